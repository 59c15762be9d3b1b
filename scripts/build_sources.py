"""Rebuild the trace files that the held-out first-correct annotations read but shared/ lacks.

Why: most records of ``benchmarks/data/first_correct_heldout*.jsonl`` name a ``source`` file
that is not in ``shared/data``: outputs of other models taken from public GitHub repositories
(``benchmarks/data/README.md`` names, per held-out set, the repository, commit, path and
rewriting of each). The files are not committed here, and a fresh machine has none of them, so
``benchmarks/locator_truth.py ... --sources DIR`` cannot run until they are rebuilt. This script
rebuilds every one it can from local bare git mirrors, byte for byte where the file was copied
as it is, and by the README's rewriting where it was not.

How to run it:

1. Mirror the repositories (NovaSky-AI/SkyThought, thaotnguyen/thinking-llms-interp,
   bkubwimana/tegra_monitor), each as a bare repository at ``<mirrors>/<owner>+<name>/repo``
   (``git clone --mirror https://github.com/NovaSky-AI/SkyThought
   /work/.mirror/NovaSky-AI+SkyThought/repo``; the sandbox's ``fetch`` tool writes the same).
2. ``python scripts/build_sources.py --mirrors /work/.mirror --out /work/src``
   (``--only NAME ...`` for some files; ``--no-grade`` to skip the checker, see below).
3. ``python benchmarks/locator_truth.py benchmarks/data/first_correct_heldoutNN.jsonl
   --sources /work/src``.

Every known source file gets one line: built (rows, repository, commit, path), or not built and
why (no mirror of the repository, the path or commit missing from the mirror, a file the
snapshot lacks because it is too large, a file that was only ever copied page by page).

The rewritings (see the README's held-out 26, 44 and 45):

* SkyThought outputs (held-out 15-24, 41-43 and the later MATH-500 / OlympiadBench sets) are
  the Qwen2.5-Math scripts' output files themselves, copied unchanged.
* thaotnguyen/thinking-llms-interp ``hybrid/results/benchmark_results_<name>.json``: one row per
  task in the file's order (``idx`` its position, ``gt`` the number after ``####`` of the GSM8K
  solution, ``code`` ``[thinking_model]``); for MATH-500 (``r1q14b_math500.jsonl``) the tasks
  are matched to MATH-500 by problem text and written at their MATH-500 index, the rows of the
  problems the file lacks left empty (``code`` ``[]``). ``pred`` and ``score`` are this
  project's extraction (``extract_final_answer``) and checker on the text after ``</think>``
  (the files log no grader); ``--no-grade`` writes ``score`` as null (the benchmark reads
  neither field).
* bkubwimana/tegra_monitor (DeepScaleR-1.5B on AIME 2024): one row per line, ``gt`` the
  line's ``gold_answer``, ``code`` its ``generated_responses``.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.datafiles import json_lines, parse_json, read_records

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"

SKYTHOUGHT = "NovaSky-AI/SkyThought"
THINKING = "thaotnguyen/thinking-llms-interp"
TEGRA = "bkubwimana/tegra_monitor"

#: SkyThought's main branch with the 14B/27B ablations and the non-reasoning models (README:
#: "at commit 505894e").
SKY_MAIN = "505894edef18789853841ad6d199956f048aeb5f"
#: The newest commit of SkyThought's ``corrupt`` branch that changed the ``icml_models``
#: outputs ("correct math short cot"); its tip (9a750c7) holds the same blobs.
SKY_ICML = "6840eb7df638ab178d20122099286db08e376851"
#: The newest commit of thaotnguyen/thinking-llms-interp when it was fetched; the benchmark
#: results have one version in its history (0c6c09b, "Rename hybrid-2 to hybrid").
THINKING_HEAD = "501921e"
TEGRA_COMMIT = "b9d0fcb624b138983497772f3dc9a0d95c6f75f7"

OUTPUTS = "skythought/Qwen2.5-Math/evaluation/outputs"
SKY_FILE = "test_Sky-T1_-1_seed0_t0.0_s0_e-1.jsonl"
COT_FILE = "test_qwen25-math-cot_-1_seed0_t0.0_s0_e-1.jsonl"


@dataclass(frozen=True)
class Source:
    """One source file: where it comes from and how it is rewritten (``kind``)."""

    name: str
    repo: str
    commit: str
    path: str
    kind: str = "copy"  # copy | thinking | thinking_math500 | deepscaler


@dataclass(frozen=True)
class Lost:
    """A source file this script cannot rebuild, and why."""

    name: str
    why: str


def _eval(folder: str, bench: str, file: str) -> str:
    return f"{OUTPUTS}/{folder}/{bench}_eval/{bench}/{file}"


def sources() -> list[Source | Lost]:
    """Every source file the held-out sets name outside shared/, most annotated first."""
    out: list[Source | Lost] = []
    short = "icml_models/Sky-T1-math-correct-5K-32B-short-ckpts"
    instruct = {
        "qwen25_14b_instruct": "Qwen/Qwen2.5-14B-Instruct",
        "gemma2_27b_it": "google/gemma-2-27b-it",
    }
    out.append(
        Source(
            "skyt1_c32b_short_math500.jsonl",
            SKYTHOUGHT,
            SKY_ICML,
            _eval(short, "math500", SKY_FILE),
        )
    )
    out.append(
        Source(
            "skyt1_c32b_short_olympiadbench.jsonl",
            SKYTHOUGHT,
            SKY_ICML,
            _eval(short, "olympiadbench", SKY_FILE),
        )
    )
    for bench in ("math500", "olympiadbench"):
        for prefix, folder in instruct.items():
            out.append(
                Source(
                    f"{prefix}_{bench}.jsonl", SKYTHOUGHT, SKY_MAIN, _eval(folder, bench, COT_FILE)
                )
            )
    results = "hybrid/results/benchmark_results_{}.json"
    gsm8k = {
        "qwq32b": "qwen2.5-32b",
        "r1q32b": "qwen2.5-32b-on-deepseek-r1-distill-qwen-32b",
        "r1q15b": "qwen2.5-math-1.5b",
        "r1llama8b": "llama-3.1-8b",
    }
    for prefix, name in gsm8k.items():
        out.append(
            Source(
                f"{prefix}_gsm8k.jsonl",
                THINKING,
                THINKING_HEAD,
                results.format(f"{name}_gsm8k"),
                "thinking",
            )
        )
    out.append(
        Source(
            "r1q14b_math500.jsonl",
            THINKING,
            THINKING_HEAD,
            results.format("qwen2.5-14b_math500"),
            "thinking_math500",
        )
    )
    ablations = (
        "corrupt-0.2",
        "corrupt-0.5",
        "corrupt-0.7",
        "reflection-0.2",
        "reflection-0.5",
        "reflection-1.0",
    )
    for ablation in ablations:
        folder = f"icml_models/Sky-T1-math-{ablation}-32B"
        out.append(
            Source(
                f"skyt1_{ablation}-32b_amc23.jsonl",
                SKYTHOUGHT,
                SKY_ICML,
                _eval(folder, "amc23", SKY_FILE),
            )
        )
        if ablation != "corrupt-0.7":  # that model has no AIME 2024 output
            out.append(
                Source(
                    f"skyt1_{ablation}-32b_aime24.jsonl",
                    SKYTHOUGHT,
                    SKY_ICML,
                    _eval(folder, "aime24", SKY_FILE),
                )
            )
    for k in (21, 35, 49, 63, 70, 84, 98, 105, 119, 133, 140):
        folder = f"icml_models/Sky-T1-math-correct-5K-32B-ckpts/checkpoint-{k}"
        out.append(
            Source(
                f"skyt1_correct-5K-32B-ckpt{k}-aime24.jsonl",
                SKYTHOUGHT,
                SKY_ICML,
                _eval(folder, "aime24", SKY_FILE),
            )
        )
    skyov1 = "home/ubuntu/skyov1-dl/Sky-T1-math-{}-5K-{}"
    for short_name, kind, size in (
        ("c14b", "correct", "14B"),
        ("w14b", "wrong", "14B"),
        ("w27b", "wrong", "27B"),
        ("c27b", "correct", "27B"),
    ):
        folder = skyov1.format(kind, size)
        out.append(
            Source(
                f"skyt1_{short_name}_amc23.jsonl",
                SKYTHOUGHT,
                SKY_MAIN,
                _eval(folder, "amc23", SKY_FILE),
            )
        )
        out.append(
            Source(
                f"skyt1_{kind}-5K-{size}-aime24.jsonl",
                SKYTHOUGHT,
                SKY_MAIN,
                _eval(folder, "aime24", SKY_FILE),
            )
        )
        if size == "27B":
            out.append(
                Source(
                    f"skyt1_{short_name}_minerva.jsonl",
                    SKYTHOUGHT,
                    SKY_MAIN,
                    _eval(folder, "minerva_math", SKY_FILE),
                )
            )
    # held-out 21 names the correct-5K-27B AIME 2024 file by its short name too
    out.append(
        Source(
            "skyt1_c27b_aime24.jsonl",
            SKYTHOUGHT,
            SKY_MAIN,
            _eval(skyov1.format("correct", "27B"), "aime24", SKY_FILE),
        )
    )
    for prefix, folder in instruct.items():
        out.append(
            Source(
                f"{prefix}_minerva_math.jsonl",
                SKYTHOUGHT,
                SKY_MAIN,
                _eval(folder, "minerva_math", COT_FILE),
            )
        )
    for bench in ("amc23", "minerva_math"):
        out.append(
            Source(
                f"qwen25_math_7b_{bench}.jsonl",
                SKYTHOUGHT,
                SKY_MAIN,
                _eval("Qwen/Qwen2.5-Math-7B", bench, COT_FILE),
            )
        )
    deepscaler = (
        "eval/sweep_results/sweep_tokens_8192/agentica-org/DeepScaleR-1.5B-Preview/aime/"
        "8192t_test2024_qwen-instruct_t0.6_k1_s0_e30.jsonl"
    )
    out.append(Source("deepscaler1.5b_aime24.jsonl", TEGRA, TEGRA_COMMIT, deepscaler, "deepscaler"))
    thoughtology = (
        "McGill-NLP/thoughtology length_analysis/data/math_32k.tsv at 9fca6e4: the snapshot `fetch`"
        " brings lacks the file (and that commit); it was only ever copied page by page"
    )
    out.append(Lost("r1_math500.jsonl", thoughtology))
    cache = (
        "cvenhoff/thinking-llms-interp hybrid/results/response_cache/{} at d650eb1: no snapshot of"
        " that repository can be fetched and its fork lacks the response cache; the file was"
        " only ever copied page by page"
    )
    for name, file in (
        (
            "qwen32b_math500.jsonl",
            "thinking_deepseek-r1-distill-qwen-32b_math500_temp0_max2000.jsonl",
        ),
        ("qwq32b_math500.jsonl", "thinking_qwq-32b_math500_temp0_max2000.jsonl"),
        (
            "llama8b_math500.jsonl",
            "thinking_deepseek-r1-distill-llama-8b_math500_temp0_max2000.jsonl",
        ),
        (
            "r1q15b_math500.jsonl",
            "thinking_deepseek-r1-distill-qwen-1.5b_math500_temp0_max2000.jsonl",
        ),
        ("orz7b_math500.jsonl", "thinking_open-reasoner-zero-7b_math500_temp0_max2000.jsonl"),
        ("orz32b_math500.jsonl", "thinking_open-reasoner-zero-32b_math500_temp0_max2000.jsonl"),
        ("q7base_math500.jsonl", "base_qwen2.5-7b_math500_temp0_max2000.jsonl"),
        ("q32base_math500.jsonl", "base_qwen2.5-32b_math500_temp0_max2000.jsonl"),
    ):
        out.append(Lost(name, cache.format(file)))
    return out


class Missing(Exception):
    """A source that cannot be read from the mirrors; the message says why."""


def git_dir(mirrors: Path, repo: str) -> Path:
    """The bare git directory of ``repo``'s mirror (``<owner>+<name>/repo`` as ``fetch`` writes
    it, or ``<owner>+<name>`` itself)."""
    base = mirrors / repo.replace("/", "+")
    for candidate in (base / "repo", base):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    raise Missing(f"no mirror of {repo} in {mirrors} (fetch github:{repo})")


def git_show(gitdir: Path, commit: str, path: str) -> bytes:
    """The bytes of ``commit:path``; :class:`Missing` naming what is absent."""

    def git(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            ["git", f"--git-dir={gitdir}", *args], capture_output=True, check=False
        )

    if git("cat-file", "-e", f"{commit}^{{commit}}").returncode:
        raise Missing(f"commit {commit} is not in the mirror {gitdir}")
    if git("cat-file", "-e", f"{commit}:{path}").returncode:
        if git("ls-tree", commit, "--", path).stdout.strip():
            raise Missing(f"{path} at {commit[:10]}: the snapshot lacks its content (too large)")
        raise Missing(f"no {path} at {commit[:10]}")
    shown = git("show", f"{commit}:{path}")
    if shown.returncode:
        raise Missing(f"git show {commit[:10]}:{path} failed: {shown.stderr.decode().strip()}")
    return shown.stdout


Grade = Callable[[str, str], "bool | None"]


def _grader(enabled: bool) -> tuple[Callable[[str], str], Grade]:
    """This project's answer extraction and checker (``score`` None when ``enabled`` is off),
    imported only when a file is rewritten."""
    from lm_eval_thinkbench.math.extract import extract_final_answer

    def extract(text: str) -> str:
        return extract_final_answer(text).value or ""

    if not enabled:
        return extract, lambda gold, pred: None
    from lm_eval_thinkbench.math.grader import default_grader

    grader = default_grader()

    def grade(gold: str, pred: str) -> bool | None:
        return bool(pred) and grader.equivalent(gold, pred).equivalent

    return extract, grade


def _row(
    idx: int,
    question: str,
    gt: str,
    response: str | None,
    extract: Callable[[str], str],
    grade: Grade,
) -> dict[str, Any]:
    """A row in the Qwen2.5-Math scripts' layout; an empty one where ``response`` is None."""
    if response is None:
        return {"idx": idx, "question": question, "gt": gt, "code": [], "pred": [], "score": []}
    answer = response.rsplit("</think>", 1)[1] if "</think>" in response else ""
    pred = extract(answer) if answer.strip() else ""
    return {
        "idx": idx,
        "question": question,
        "gt": gt,
        "code": [response],
        "pred": [pred],
        "score": [grade(gt, pred)],
    }


def _tasks(raw: bytes) -> list[dict[str, Any]]:
    results = parse_json(raw.decode("utf-8"))
    tasks = results.get("tasks") if isinstance(results, dict) else None
    if not isinstance(tasks, list):
        raise Missing("the results file holds no 'tasks' list")
    return tasks


def _thinking(task: dict[str, Any]) -> str:
    answers = task.get("model_answers")
    if isinstance(answers, str):
        answers = ast.literal_eval(answers)
    if not isinstance(answers, dict) or not isinstance(answers.get("thinking_model"), str):
        raise Missing("a task has no model_answers.thinking_model")
    return str(answers["thinking_model"])


def _gsm8k_gold(solution: str) -> str:
    return solution.rsplit("####", 1)[1].strip() if "####" in solution else solution.strip()


#: The instruction the shared MATH-500 copy puts before every problem.
_MATH500_PREFIX = "Return your final response within \\boxed{}."


def _problem_key(text: str) -> str:
    """A problem's text without that instruction, whitespace runs made one space."""
    text = text.strip().removeprefix(_MATH500_PREFIX)
    return " ".join(unicodedata.normalize("NFKC", text).split())


def rewrite(
    source: Source, raw: bytes, math500: Path, grading: tuple[Callable[[str], str], Grade]
) -> list[dict[str, Any]] | bytes:
    """The file's content: ``raw`` itself for a copy, else its rows."""
    if source.kind == "copy":
        return raw
    extract, grade = grading
    if source.kind == "thinking":
        return [
            _row(
                i,
                str(t.get("question", "")),
                _gsm8k_gold(str(t.get("correct_answer", ""))),
                _thinking(t),
                extract,
                grade,
            )
            for i, t in enumerate(_tasks(raw))
        ]
    if source.kind == "thinking_math500":
        if not math500.is_file():
            raise Missing(f"MATH-500 ({math500}) is needed to place the problems and is not there")
        problems = read_records(math500, "MATH-500 rows (problem, answer)")
        where = {_problem_key(str(p["problem"])): i for i, p in enumerate(problems)}
        found: dict[int, tuple[str, str]] = {}
        for task in _tasks(raw):
            question = str(task.get("question", ""))
            index = where.get(_problem_key(question))
            if index is None:
                raise Missing(f"a task's problem is not in MATH-500: {question[:60]!r}")
            if index in found:
                raise Missing(f"two tasks hold MATH-500 problem {index}")
            found[index] = (question, _thinking(task))
        rows = []
        for i, p in enumerate(problems):
            question, response = found.get(
                i, (str(p["problem"]).removeprefix(_MATH500_PREFIX).strip(), None)
            )
            rows.append(_row(i, question, str(p["answer"]), response, extract, grade))
        return rows
    if source.kind == "deepscaler":
        rows = []
        lines = json_lines(raw.splitlines(), Path(source.path), expected="one result per line")
        for i, (_, d) in enumerate(lines):
            rows.append(
                {
                    "idx": i,
                    "question": d["question"],
                    "gt": d["gold_answer"],
                    "code": listed(d["generated_responses"]),
                    "pred": listed(d["generated_answers"]),
                    "score": listed(d["answers_correctness"]),
                }
            )
        return rows
    raise ValueError(f"unknown kind {source.kind!r}")


def listed(value: Any) -> list[Any]:
    """A list field, or one written as a Python literal (evaluated as a literal, never run)."""
    return ast.literal_eval(value) if isinstance(value, str) else list(value)


def _write(path: Path, content: list[dict[str, Any]] | bytes) -> int:
    if isinstance(content, bytes):
        path.write_bytes(content)
        return len([line for line in content.splitlines() if line.strip()])
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in content))
    return len(content)


def build(
    items: Iterable[Source | Lost], mirrors: Path, out: Path, math500: Path, grade: bool
) -> int:
    """Build every ``Source`` of ``items`` into ``out``; print one line each. Returns how many
    were not built."""
    out.mkdir(parents=True, exist_ok=True)
    grading: tuple[Callable[[str], str], Grade] | None = None
    failed = 0
    for item in items:
        if isinstance(item, Lost):
            print(f"not built  {item.name}: {item.why}")
            failed += 1
            continue
        try:
            raw = git_show(git_dir(mirrors, item.repo), item.commit, item.path)
            if item.kind != "copy" and grading is None:
                grading = _grader(grade)
            content = rewrite(item, raw, math500, grading or (str, lambda gold, pred: None))
        except Missing as exc:
            print(f"not built  {item.name}: {exc}")
            failed += 1
            continue
        except (ValueError, SyntaxError, TypeError, KeyError, RecursionError) as exc:  # malformed
            print(f"not built  {item.name}: unreadable content ({type(exc).__name__}: {exc})")
            failed += 1
            continue
        rows = _write(out / item.name, content)
        print(
            f"built      {item.name}: {rows} rows from {item.repo}@{item.commit[:10]}:{item.path}"
        )
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--mirrors",
        type=Path,
        help="folder of bare git mirrors (<owner>+<name>/repo); required unless --list",
    )
    parser.add_argument(
        "--out", type=Path, help="folder the source files are written to; required unless --list"
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help="build only these files (names as the records' source)",
    )
    parser.add_argument(
        "--math500",
        type=Path,
        default=DATA / "math500" / "test.jsonl",
        help="MATH-500 test.jsonl (default: shared/data)",
    )
    parser.add_argument(
        "--no-grade", action="store_true", help="write score null instead of running the checker"
    )
    parser.add_argument("--list", action="store_true", help="list the known source files and exit")
    args = parser.parse_args(argv)
    items = sources()
    if args.list:
        for item in items:
            where = (
                f"{item.repo}@{item.commit[:10]}:{item.path}"
                if isinstance(item, Source)
                else item.why
            )
            print(f"{item.name}  {where}")
        return 0
    if args.mirrors is None or args.out is None:
        parser.error("--mirrors and --out are required (unless --list)")
    if args.only:
        known = {item.name for item in items}
        unknown = sorted(set(args.only) - known)
        if unknown:
            parser.error(f"unknown source file(s): {', '.join(unknown)}")
        items = [item for item in items if item.name in args.only]
    failed = build(items, args.mirrors, args.out, args.math500, not args.no_grade)
    print(f"{len(items) - failed} of {len(items)} built into {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
