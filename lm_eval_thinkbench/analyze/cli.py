"""``thinkbench analyze RUN [RUN ...]``: think-efficiency reports from existing logs.

A thin shell over :func:`lm_eval_thinkbench.analyze.api.analyze`: parse the options, run, print
where the reports are and what the judge cost. Input problems (an unknown format, a missing
field) end the command with one line naming the file, exit status 2.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from lm_eval_thinkbench.analyze.api import AnalyzeOptions, analyze
from lm_eval_thinkbench.analyze.readers import FORMATS
from lm_eval_thinkbench.analyze.samples import InputFormatError
from lm_eval_thinkbench.analyze.score import CORRECTNESS, LOCATORS, SPLITS
from lm_eval_thinkbench.board import cli as board_cli
from lm_eval_thinkbench.compare import cli as compare_cli
from lm_eval_thinkbench.judge.cache import CACHE_ENV
from lm_eval_thinkbench.judge.settings import API_KEY_ENV, BASE_URL_ENV, MODEL_ENV, JudgeSettings
from lm_eval_thinkbench.steps import DEFAULT_SEPARATOR, DEFAULT_SWITCH_PHRASES
from lm_eval_thinkbench.trace import AUTO, MARKER_SETS

DESCRIPTION = """\
Think-efficiency reports from logs you already have: lm-eval --log_samples output
(thinkbench_math500, hendrycks_math500, minerva_math500, aime24, aime25, ...; other tasks in
the folder are left out and named), EvalScope math_500 reviews/predictions, Qwen2.5-Math /
SkyThought evaluation outputs (idx, question, gt, code, pred, score), or a plain JSONL (id,
problem, gold, response | reasoning + answer, optional level). Several runs are compared in
one table and one figure.

Metrics per subset (MATH level) and overall, each with a 95% bootstrap interval: accuracy,
reasoning / first-correct / reflection tokens, token efficiency, thought switches, truncated
rate, outcome efficiency, underthinking, solution rounds, redundant sections. Definitions and
the differences from EvalScope's ThinkBench: README.md, section "thinkbench analyze".
"""

EPILOG = f"""\
judge endpoint: --judge-base-url or ${BASE_URL_ENV} (else $OPENAI_BASE_URL); model:
--judge-model or ${MODEL_ENV}; API key: ${API_KEY_ENV} (else $OPENAI_API_KEY), read from the
environment only and never written anywhere. Judge cache: --judge-cache, else ${CACHE_ENV},
else ~/.cache/thinkbench/judge.

examples:
  thinkbench analyze out/r1                               # rule locator, offline
  thinkbench analyze r1=out/r1 qwq=out/qwq -o report      # two models side by side
  thinkbench analyze out/r1 --locator both --judge-model qwen-max \\
      --judge-base-url http://127.0.0.1:8000/v1 --sample 50
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="thinkbench", description="lm-eval-thinkbench tools")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser(
        "analyze",
        help="think-efficiency reports from existing logs",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="a log folder or file, optionally labelled NAME=PATH (NAME names the model)",
    )
    p.add_argument(
        "-o", "--output", type=Path, default=Path("thinkbench-analysis"),
        help="folder for summary.md/.csv/.json, per_sample.jsonl and the PNG figures "
        "(default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--format", dest="input_format", choices=FORMATS, default="auto",
        help="input format; auto recognises each run (default: %(default)s)",
    )  # fmt: skip

    g = p.add_argument_group("what is measured")
    g.add_argument(
        "--locator", choices=LOCATORS, default="rule",
        help="first-correct locator: rule (deterministic, offline), judge (an LLM reads the "
        "numbered steps), both (judge figures, plus how often the two agree and their token "
        "distance) (default: %(default)s)",
    )  # fmt: skip
    g.add_argument(
        "--split", choices=SPLITS, default="separator",
        help="step splitting: separator (--separator), keywords (at each switch phrase), llm "
        "(the judge rewrites the reasoning into steps; rewrites that change the text are "
        "rejected) (default: %(default)s)",
    )  # fmt: skip
    g.add_argument(
        "--separator", default=DEFAULT_SEPARATOR,
        help="regex between steps for --split separator, and between paragraphs for "
        "solution rounds and sections (default: blank lines)",
    )  # fmt: skip
    g.add_argument(
        "--switch-phrases", default="|".join(DEFAULT_SWITCH_PHRASES),
        help="thought-switch phrases, |-separated, matched case-insensitively on word "
        "boundaries (default: %(default)s)",
    )  # fmt: skip
    g.add_argument(
        "--markers", choices=[AUTO, *sorted(MARKER_SETS)], default=AUTO,
        help="how the reasoning is delimited in the text when no separate reasoning field "
        "was logged; auto finds the family each run's responses show, none is a model that "
        "does not reason (default: %(default)s)",
    )  # fmt: skip
    g.add_argument(
        "--truncated", choices=("lenient", "zero"), default="lenient",
        help="a response with no end of reasoning: lenient grades its last \\boxed{}, zero "
        "scores it wrong (default: %(default)s)",
    )  # fmt: skip
    g.add_argument(
        "--tokenizer",
        help="tokenizer that counts every model: a Hugging Face name or local folder "
        "(default: each run's own, as its records or model arguments name it, if it loads "
        "offline; else the offline Qwen2.5 vocabulary)",
    )
    g.add_argument(
        "--gold", type=Path, metavar="FILE",
        help="the dataset (JSONL/JSON/CSV with problem and answer, e.g. MATH-500's "
        "test.jsonl): its answers replace the logged golds, matched by problem text",
    )  # fmt: skip
    g.add_argument(
        "--correctness", choices=CORRECTNESS, default="checker",
        help="accuracy from our answer checker (math-verify) on the final answer, or from "
        "the verdict the run logged where it logged one (default: %(default)s)",
    )  # fmt: skip

    g = p.add_argument_group("which samples")
    g.add_argument(
        "--limit", type=int, help="the first N responses per model and subset (file order)"
    )
    g.add_argument(
        "--sample", type=int,
        help="N problems per subset drawn at random with --seed (the same problems for "
        "every model; all their repeats kept)",
    )  # fmt: skip
    g.add_argument(
        "--seed", type=int, default=0, help="seed of --sample and the bootstrap (default: 0)"
    )
    g.add_argument(
        "--max-tokens", type=int,
        help="leave out responses longer than N tokens (reasoning + answer); the report "
        "counts them per subset. Off by default: nothing is dropped silently",
    )  # fmt: skip

    g = p.add_argument_group("intervals")
    g.add_argument(
        "--bootstrap", type=int, default=1000,
        help="bootstrap resamples per interval (default: %(default)s; 0: no intervals)",
    )  # fmt: skip
    g.add_argument(
        "--confidence", type=float, default=0.95, help="interval level (default: %(default)s)"
    )

    g = p.add_argument_group("judge (for --locator judge/both and --split llm)")
    g.add_argument("--judge-model", help=f"served model name (or ${MODEL_ENV})")
    g.add_argument(
        "--judge-base-url",
        help=f"OpenAI-compatible endpoint, http://host:port/v1 (or ${BASE_URL_ENV})",
    )
    g.add_argument(
        "--judge-concurrency", type=int, default=16,
        help="requests in flight at once (default: %(default)s)",
    )  # fmt: skip
    g.add_argument(
        "--judge-timeout", type=float, default=120.0,
        help="seconds per attempt (default: %(default)s)",
    )  # fmt: skip
    g.add_argument(
        "--judge-retries", type=int, default=4,
        help="retries after a rate limit, server error, timeout, dropped connection or "
        "malformed reply, with exponential backoff (default: %(default)s)",
    )  # fmt: skip
    g.add_argument(
        "--judge-seed", type=int, default=0,
        help="seed sent with every request; temperature is always 0 (default: %(default)s)",
    )  # fmt: skip
    g.add_argument(
        "--judge-max-tokens", type=int, help="completion token limit per call (default: none)"
    )
    g.add_argument(
        "--judge-cache", type=Path,
        help=f"cache folder (default: ${CACHE_ENV} or ~/.cache/thinkbench/judge)",
    )  # fmt: skip
    g.add_argument(
        "--no-judge-cache", action="store_true",
        help="neither read nor write the cache (every call is made)",
    )  # fmt: skip

    g = p.add_argument_group("output and speed")
    g.add_argument("--no-plots", action="store_true", help="skip the PNG figures")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g.add_argument(
        "--workers", type=int, default=min(4, os.cpu_count() or 1),
        help="processes that grade and count (default: the CPU count, at most 4; 1: none)",
    )  # fmt: skip
    compare_cli.register(commands)
    board_cli.register(commands)
    return parser


def options_from_args(args: argparse.Namespace) -> AnalyzeOptions:
    judge = None
    if args.locator != "rule" or args.split == "llm":
        judge = JudgeSettings.from_env(
            args.judge_model,
            args.judge_base_url,
            concurrency=args.judge_concurrency,
            timeout=args.judge_timeout,
            max_retries=args.judge_retries,
            seed=args.judge_seed,
            max_tokens=args.judge_max_tokens,
        )
    return AnalyzeOptions(
        runs=args.runs,
        output=args.output,
        input_format=args.input_format,
        locator=args.locator,
        split=args.split,
        separator=args.separator,
        switch_phrases=tuple(args.switch_phrases.split("|")),
        markers=args.markers,
        truncated=args.truncated,
        tokenizer=args.tokenizer,
        gold=args.gold,
        correctness=args.correctness,
        limit=args.limit,
        sample=args.sample,
        seed=args.seed,
        max_tokens=args.max_tokens,
        bootstrap=args.bootstrap,
        confidence=args.confidence,
        judge=judge,
        judge_cache=args.judge_cache,
        use_judge_cache=not args.no_judge_cache,
        plots=not args.no_plots,
        progress=not args.no_progress,
        workers=args.workers,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.command != "analyze":  # the other subcommands run themselves
        return int(args.run(args))
    try:
        options = options_from_args(args)
        result = analyze(options)
    except (InputFormatError, ValueError) as exc:
        print(f"thinkbench analyze: {exc}", file=sys.stderr)
        return 2
    scored = len(result.scored)
    dropped = sum(result.dropped.values())
    errors = sum(1 for s in result.scored if s.record.locator_error is not None)
    left = sum(s.samples for s in result.skipped)
    print(
        f"analysed {scored} samples ({dropped} dropped by --max-tokens, {errors} judge errors"
        + (f"; {left} samples of tasks that are not math left out" if left else "")
        + ")"
    )
    if result.judge_stats is not None:
        st = result.judge_stats
        print(
            f"judge: {st.completed} calls completed, {st.cache_hits} from cache, "
            f"{st.retries} retries, {st.failures} failed, {st.prompt_tokens:,} prompt tokens"
        )
    print(f"reports in {options.output}: " + ", ".join(p.name for p in result.files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
