"""Write a logic item set to JSONL and print its composition.

    python -m lm_eval_thinkbench.logic.cli export --out FILE [--seed N] [--lang en|zh|both]
                                                  [--items N] [--set-version v1|v2|...]

    python -m lm_eval_thinkbench.logic.cli logicgame-submission RUN_DIR --out DIR
    python -m lm_eval_thinkbench.logic.cli gallery [-o docs/logic_gallery.md]

``export``: one line per document, exactly as the harness sees it (prompt, reference answer
and steps, language-neutral state, worked examples), for inspection or other harnesses. Without
``--seed`` the frozen set of the set version is written (default: the newest; ``v1`` is the
original 15 subclasses, as published); its SHA-256 (printed) identifies it.

``logicgame-submission``: the replies of a ``thinkbench_logicgame`` run (``lm_eval ...
--log_samples --output_path RUN_DIR``) as one submission file per language for LogicGame's
leaderboard, with the count of items left unscored here.

``gallery``: the generated gallery page (:mod:`lm_eval_thinkbench.logic.gallery`), to a file or
standard output.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from lm_eval_thinkbench.datafiles import DatasetError
from lm_eval_thinkbench.logic.base import LANGS, LEVELS, LOGIC_SET_VERSION
from lm_eval_thinkbench.logic.gallery import gallery
from lm_eval_thinkbench.logic.logicgame_files import write_submission
from lm_eval_thinkbench.logic.sets import (
    FROZEN_SEED,
    ITEMS_PER_CELL,
    composition,
    generate_docs,
    jsonl_line,
    parse_set_version,
    set_sha256,
)


def export(
    out: Path,
    seed: int,
    langs: Sequence[str],
    per_cell: int,
    set_version: int = LOGIC_SET_VERSION,
) -> str:
    """Write the set to ``out`` and return its composition report."""
    docs = list(generate_docs(seed, langs, per_cell=per_cell, set_version=set_version))
    with out.open("w", encoding="utf-8") as fh:
        for doc in docs:
            fh.write(jsonl_line(doc) + "\n")
    counts = composition(docs)
    kind = f"frozen set v{set_version}" if seed == FROZEN_SEED else "fresh set"
    lines = [
        f"{len(docs)} items -> {out}",
        f"{kind}: seed {seed}, set version {set_version}, sha256 {set_sha256(docs)}",
        "",
        f"{'subclass':<22} {'kind':<10} " + " ".join(f"L{n:<3}" for n in LEVELS),
    ]
    subclasses = sorted({(k, key) for _, k, key, _ in counts}, key=lambda x: (x[0], x[1]))
    for k, key in subclasses:
        per_level = [sum(counts[(lang, k, key, n)] for lang in langs) for n in LEVELS]
        lines.append(f"{key:<22} {k:<10} " + " ".join(f"{c:<4}" for c in per_level))
    by_lang = Counter(lang for lang, *_ in counts.elements())
    lines.append("")
    lines.append("per language: " + ", ".join(f"{lang} {by_lang[lang]}" for lang in langs))
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The ``thinkbench-logic`` parser (``tests/test_docs_commands.py`` parses the docs with it)."""
    parser = argparse.ArgumentParser(prog="thinkbench-logic")
    commands = parser.add_subparsers(dest="command", required=True)
    cmd = commands.add_parser("export", help="write a set to JSONL and print its composition")
    cmd.add_argument("--out", type=Path, required=True)
    cmd.add_argument("--seed", type=int, default=FROZEN_SEED, help="default: the frozen set")
    cmd.add_argument("--lang", choices=[*LANGS, "both"], default="both")
    cmd.add_argument("--items", type=int, default=ITEMS_PER_CELL, help="per subclass and level")
    cmd.add_argument(
        "--set-version",
        type=_set_version,
        default=LOGIC_SET_VERSION,
        help=f"which subclasses: v1 (the original 15) ... v{LOGIC_SET_VERSION} (default, newest)",
    )
    sub = commands.add_parser(
        "logicgame-submission", help="LogicGame leaderboard files from a run's sample logs"
    )
    sub.add_argument("run_dir", type=Path, help="the lm_eval --output_path of the run")
    sub.add_argument("--out", type=Path, required=True, help="folder for {lang}_submission.jsonl")
    page = commands.add_parser("gallery", help="write the gallery of subclasses and examples")
    page.add_argument("-o", "--out", type=Path, help="default: standard output")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "gallery":
        if args.out:
            args.out.write_text(gallery(), encoding="utf-8")
        else:
            print(gallery(), end="")
        return
    if args.command == "logicgame-submission":
        try:
            print(write_submission(args.run_dir, args.out))
        except DatasetError as exc:
            parser.exit(2, f"thinkbench-logic: {exc}\n")
        return
    langs = LANGS if args.lang == "both" else (args.lang,)
    print(export(args.out, args.seed, langs, args.items, args.set_version))


def _set_version(text: str) -> int:
    """argparse type: a clear usage error for an unknown set version."""
    try:
        return parse_set_version(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


if __name__ == "__main__":
    main()
