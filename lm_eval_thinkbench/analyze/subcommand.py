"""``thinkbench analyze RUN [RUN ...]``: think-efficiency reports from existing logs.

A thin shell over :func:`lm_eval_thinkbench.analyze.api.analyze`: parse the options (generated
from the fields of ``AnalyzeOptions`` and ``JudgeSettings``), run, print where the reports are
and what the judge cost. Input problems (an unknown format, a missing
field) end the command with one line naming the file, exit status 2. Registered on the
``thinkbench`` command by ``lm_eval_thinkbench.thinkbench``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from lm_eval_thinkbench.analyze.api import AnalyzeOptions, analyze
from lm_eval_thinkbench.analyze.samples import InputFormatError
from lm_eval_thinkbench.judge.cache import CACHE_ENV
from lm_eval_thinkbench.judge.settings import API_KEY_ENV, BASE_URL_ENV, MODEL_ENV, JudgeSettings
from lm_eval_thinkbench.options import add_arguments, from_args

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


#: The sections of ``--help``: each setting names its own (``options.Option.group``).
GROUPS = {
    "measured": "what is measured",
    "samples": "which samples",
    "intervals": "intervals",
    "judge": "judge (for --locator judge/both and --split llm)",
    "output": "output and speed",
}


def register(commands: Any) -> None:
    """Add ``analyze`` to the ``thinkbench`` subcommands (``add_subparsers``)."""
    p = commands.add_parser(
        "analyze",
        help="think-efficiency reports from existing logs",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    groups = {key: p.add_argument_group(title) for key, title in GROUPS.items()}
    add_arguments(p, AnalyzeOptions, groups, nested={"judge": (JudgeSettings, "judge_")})
    p.set_defaults(run=run)


def options_from_args(args: argparse.Namespace) -> AnalyzeOptions:
    """The options the parsed ``args`` set, with the judge when the run needs one."""
    options = AnalyzeOptions(**from_args(AnalyzeOptions, args))
    if not options.needs_judge:
        return options
    return replace(
        options, judge=JudgeSettings.from_env(**from_args(JudgeSettings, args, "judge_"))
    )


def run(args: argparse.Namespace) -> int:
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
    if result.judge_stats is not None and scored and errors == scored:
        # every sample's judge call failed: a server that is not there or refuses every call,
        # not a few bad replies; the reports hold no judge figure, so say so and fail
        first = next(s.record.locator_error for s in result.scored)
        print(
            f"thinkbench analyze: every judge call failed, so the reports hold no figure that"
            f" needs the judge (the first: {first}); check the judge's URL, model and key",
            file=sys.stderr,
        )
        return 1
    return 0
