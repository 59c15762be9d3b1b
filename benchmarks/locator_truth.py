"""How well the first-correct locators agree with hand annotations of real reasoning traces.

For each file in the dev set's schema (``first_correct_dev.jsonl``: ``idx``,
``first_correct_step``, ``gold``, ``n_steps``, ``quote``, ... under ``FIRST_CORRECT_PROTOCOL.md``)
every annotated Sky-T1 trace is scored the way ``thinkbench analyze`` scores it at its defaults
(``lm_eval_thinkbench.analyze.truth``), once with the rule locator and once with a scripted judge
that answers the annotated step (this one must agree on every trace: it checks that the judge
path maps an index to its step and tokens). Printed per file: exact and within-one-step
agreement, the mean |token_efficiency(chosen) - token_efficiency(annotated)|, and with
``--table`` the per-trace rows (annotated and chosen step, the rule that fired, the quote).
Tokens are counted with the project's default counter (``tokens.get_counter``). Nothing is
asserted; ``tests/test_locate_truth.py`` asserts floors.

    python benchmarks/locator_truth.py FILE [FILE ...] [--table] [--traces PATH] [--math500 PATH]

Files here: ``../shared/data/traces/first_correct_dev.jsonl`` (20 traces, two annotation passes),
``benchmarks/data/first_correct_design.jsonl`` (102 further traces, one pass, read while the
locator was designed), ``benchmarks/data/first_correct_heldout.jsonl`` (36 traces annotated
blind to the locator), ``first_correct_heldout2.jsonl`` (28 Sky-T1 and the 10 DeepSeek-R1
traces, blind too; an R1 record's ``source`` names its file beside the Sky-T1 one), and
``first_correct_heldout3.jsonl`` to ``first_correct_heldout8.jsonl`` (44, 40, 40, 38, 36 and 36
Qwen2.5-Math-7B responses from ``outputs/``, non-reasoning, each annotated after the rules were
revised for the previous set's misses) and ``first_correct_heldout9.jsonl`` (64 ProcessBench
solutions by instruction-tuned models, read from ``processbench/``; annotated blind), and up to
``first_correct_heldout50.jsonl``, whose traces are outside shared/ (other SkyThought outputs,
DeepScaleR, QwQ, Open-Reasoner-Zero, DeepSeek-R1 distills, base and instruction-tuned Qwen2.5
and gemma-2 models: ``benchmarks/data/README.md`` names each file and
commit); ``scripts/build_sources.py`` rebuilds the 49 of them that public repositories still
hold (not DeepSeek-R1's MATH-500 thinking nor the eight cvenhoff files: held-out 27-39 and
57-65); pass the folder holding them with ``--sources``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from lm_eval_thinkbench.analyze.truth import LOCATORS, measure, read_annotations, summary
from lm_eval_thinkbench.math.grader import default_grader
from lm_eval_thinkbench.tokens import get_counter

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("THINKBENCH_DATA", REPO.parent / "shared" / "data"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--table", action="store_true", help="print every trace's row")
    parser.add_argument(
        "--traces", type=Path, default=DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl"
    )
    parser.add_argument("--math500", type=Path, default=DATA / "math500" / "test.jsonl")
    parser.add_argument(
        "--sources",
        type=Path,
        action="append",
        default=[],
        help="a further folder of trace files (those of held-out 15-32, not in shared/)",
    )
    args = parser.parse_args()
    counter = get_counter(None)
    grader = default_grader()
    for path in args.files:
        items = read_annotations(path, args.traces, args.math500, args.sources)
        print(f"{path} ({len(items)} traces)")
        for locator in LOCATORS:
            rows = [measure(item, grader, counter, locator) for item in items]
            s = summary(rows)
            print(
                f"  {locator:5s}  exact {s['exact']}/{s['n']} ({s['exact'] / s['n']:.0%})"
                f"  within one {s['within_one']}/{s['n']} ({s['within_one'] / s['n']:.0%})"
                f"  mean efficiency error {s['mean_efficiency_error']:.3f}"
            )
            if args.table and locator == "rule":
                for r in rows:
                    mark = "=" if r.exact else "~" if r.near else "x"
                    quote = " ".join((r.quote or "").split())[:90]
                    print(
                        f"    {mark} idx {r.idx:3d}  annotated {r.annotated:3d}  chosen"
                        f" {r.chosen:3d}  {r.rule or '-':8s}  {quote}"
                    )


if __name__ == "__main__":
    main()
