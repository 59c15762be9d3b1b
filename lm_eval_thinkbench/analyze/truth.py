"""Agreement of a first-correct locator with hand annotations of real traces.

The annotations follow ``FIRST_CORRECT_PROTOCOL.md`` (shared data): one JSON object per line
with ``idx`` (the line of the trace in the Sky-T1 MATH-500 outputs and of the problem in
MATH-500), ``first_correct_step`` (0-based over the blank-line paragraphs of the thought, -1
when the reasoning never reaches the answer) and usually ``gold``, ``n_steps``, ``quote``,
``note``. Each annotated trace is scored the way ``thinkbench analyze`` scores it
(``math500.score.score_response`` at the default config, markers detected from the response),
with the rule locator or with a scripted judge that answers the annotated step (which checks
that the judge path maps an index to the step and its tokens correctly), and compared with the
annotation: the step, and the token efficiency at the chosen step against that at the
annotated one. ``benchmarks/locator_truth.py`` prints the figures; the tests assert floors.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.datafiles import read_records
from lm_eval_thinkbench.locate.judge import read_first_correct
from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.math500.score import score_response
from lm_eval_thinkbench.reading import ScoringConfig
from lm_eval_thinkbench.response import ModelResponse
from lm_eval_thinkbench.steps import Span, step_index_at
from lm_eval_thinkbench.tokens import TokenCounter
from lm_eval_thinkbench.trace import split_trace

LOCATORS = ("rule", "judge")
_EXPECTED = "one JSON object per line with idx and first_correct_step (the dev set's schema)"


@dataclass(frozen=True)
class Annotated:
    """One annotated trace: where it comes from, what it answers, and the annotated step."""

    idx: int
    problem: str
    gold: str
    response: str | ModelResponse
    step: int
    n_steps: int | None


@dataclass(frozen=True)
class Agreement:
    """A locator's step against the annotated one, with the token efficiency at both.

    ``steps`` is the number of steps the scoring path found (it should be ``n_steps``).
    """

    idx: int
    annotated: int
    chosen: int
    steps: int
    rule: str | None
    quote: str | None
    efficiency: float | None
    annotated_efficiency: float | None

    @property
    def exact(self) -> bool:
        return self.chosen == self.annotated

    @property
    def near(self) -> bool:
        return abs(self.chosen - self.annotated) <= 1


def read_annotations(
    path: Path, traces: Path, math500: Path, folders: Sequence[Path] = ()
) -> list[Annotated]:
    """The annotations of ``path`` joined with their responses and problems.

    A record's ``source`` names its trace file (default: the Sky-T1 outputs ``traces``, in the
    Qwen2.5-Math scripts' layout, with problems and golds from ``math500`` by ``idx``), found
    beside ``traces`` or in the ``outputs`` folder next to that one (the Qwen2.5-Math-7B
    responses, same layout: a non-reasoning model, whose whole response is its reasoning); a
    DeepSeek-R1 file beside it (``r1_*.json``: ``problem``, ``gtruth_answer``,
    ``message_thinking``, ``message_content``) is read at position ``idx``, its thinking and
    answer arriving as separate fields, as from a server with a reasoning parser; a ProcessBench
    subset (``gsm8k.json`` ... in the ``processbench`` folder next to ``traces``' folder:
    ``id, generator, problem, steps``) is read at position ``idx``, its solution being its
    ``steps`` joined by blank lines (the steps the splitter cuts back: no step holds a blank
    line) and its gold the record's own ``gold``, as ProcessBench carries none; a record's ``id``
    must then be the solution's. ``folders`` are further folders a ``source`` is looked up in
    (traces that are not in shared/, such as the other SkyThought outputs); a record whose
    ``benchmark`` is not ``math500`` (say ``amc23``) takes its problem from its row's
    ``question`` and its gold from the record's ``gold``, not from MATH-500 by ``idx``.

    Raises ``ValueError`` (``DatasetError`` for an unreadable file) naming the file and record
    for a record without a usable ``idx`` or step, an unknown ``source``, an ``idx`` that the
    trace or problem file does not have, or a ProcessBench record without a gold or with
    another solution's ``id``.
    """
    sources: dict[str, list[dict[str, Any]]] = {}
    problems: list[dict[str, Any]] | None = None
    out = []
    for number, record in enumerate(read_records(path, _EXPECTED), 1):
        where = f"{path}: record {number}"
        idx, step = record.get("idx"), record.get("first_correct_step")
        if not isinstance(idx, int) or not isinstance(step, int) or step < -1:
            raise ValueError(f"{where}: needs an integer idx and first_correct_step >= -1")
        source = record.get("source") or traces.name
        if not isinstance(source, str) or Path(source).name != source:
            raise ValueError(f"{where}: source {source!r} is not a file name")
        if source not in sources:
            data = traces.parent.parent
            places = (traces.parent, data / "outputs", data / "processbench", *folders)
            files = [traces] if source == traces.name else [f / source for f in places]
            file = next((f for f in files if f.is_file()), None)
            if file is None:
                raise ValueError(
                    f"{where}: source {source!r} is not in {' or '.join(map(str, places))}"
                )
            sources[source] = read_records(file, "reasoning traces")
        rows = sources[source]
        if not 0 <= idx < len(rows):
            raise ValueError(f"{where}: idx {idx} is not in {source}")
        n_steps = record.get("n_steps")
        n_steps = n_steps if isinstance(n_steps, int) else None
        row = rows[idx]
        if "message_thinking" in row:  # a DeepSeek-R1 trace: thinking and answer apart
            response: str | ModelResponse = ModelResponse(
                content=str(row.get("message_content", "")),
                reasoning=str(row["message_thinking"]),
            )
            problem, gold = str(row.get("problem", "")), str(row.get("gtruth_answer", ""))
        elif "steps" in row and "generator" in row:  # a ProcessBench solution
            response, problem, gold = _processbench(row, record, f"{where} ({source})")
        elif record.get("benchmark", "math500") != "math500":  # the row holds its problem
            stated = record.get("gold")
            if not isinstance(stated, str) or not stated.strip():
                raise ValueError(f"{where}: a record outside MATH-500 needs its gold")
            gold = stated
            response = _response(row, f"{source}: record {idx + 1}")
            problem = str(row.get("question", ""))
        else:
            if problems is None:
                problems = read_records(math500, "MATH-500 records with 'problem' and 'answer'")
            if idx >= len(problems):
                raise ValueError(f"{where}: idx {idx} is not in {math500}")
            response = _response(row, f"{source}: record {idx + 1}")
            problem = str(problems[idx].get("problem", ""))
            gold = str(problems[idx].get("answer", record.get("gold", "")))
        out.append(Annotated(idx, problem, gold, response, step, n_steps))
    return out


def measure(
    item: Annotated, grader: Grader, counter: TokenCounter, locator: str = "rule"
) -> Agreement:
    """Score one annotated trace with ``locator`` ("rule", or "judge": a scripted judge that
    answers the annotated step) and compare it with the annotation."""
    if locator not in LOCATORS:
        raise ValueError(f"locator must be one of {LOCATORS}, not {locator!r}")
    judged: list[Sequence[Span]] = []
    thought = split_trace(item.response).thought
    step = scoring_step(thought, item.step)

    def scripted(reasoning: str, steps: Sequence[Span], gold: str, statements: object):
        judged.append(steps)
        return read_first_correct(f"\\boxed{{{step}}}", reasoning, steps)

    record = score_response(
        item.response,
        item.gold,
        ScoringConfig(),
        counter,
        grader,
        problem=item.problem,
        locate=scripted if locator == "judge" else None,
        locator=locator,
    )
    annotated_efficiency = _efficiency_at(thought, step, counter)
    chosen = -1 if record.first_correct_step is None else record.first_correct_step
    return Agreement(
        idx=item.idx,
        annotated=step,
        chosen=chosen,
        steps=record.steps,
        rule=record.first_correct_rule,
        quote=record.first_correct_quote,
        efficiency=record.token_efficiency,
        annotated_efficiency=annotated_efficiency,
    )


def summary(rows: Sequence[Agreement]) -> dict[str, float | int]:
    """Exact and within-one-step agreement and the mean efficiency error, over ``rows``."""
    n = len(rows)
    errors = [
        abs(r.efficiency - r.annotated_efficiency)
        for r in rows
        if r.efficiency is not None and r.annotated_efficiency is not None
    ]
    return {
        "n": n,
        "exact": sum(r.exact for r in rows),
        "within_one": sum(r.near for r in rows),
        "mean_efficiency_error": sum(errors) / len(errors) if errors else 0.0,
    }


#: The protocol's paragraph break: a blank line, also one holding a carriage return.
_PROTOCOL_BREAK = re.compile(r"\n\s*\n")


def scoring_step(thought: str, step: int) -> int:
    """The scoring splitter's index of the annotated step ``step``, which counts the protocol's
    paragraphs (``re.split(r"\\n\\s*\\n", thought)``, empty ones dropped). The two agree except
    where a blank line holds a carriage return (``\\n\\r\\n`` in a model's Python block), which
    only the protocol cuts: the step is the scoring step holding the paragraph's first
    character. -1 stays -1; a step the thought does not have is returned as it is."""
    if step < 0:
        return step
    starts = [0, *(m.end() for m in _PROTOCOL_BREAK.finditer(thought))]
    ends = [*(m.start() for m in _PROTOCOL_BREAK.finditer(thought)), len(thought)]
    paragraphs = [(a, b) for a, b in zip(starts, ends, strict=True) if thought[a:b].strip()]
    if step >= len(paragraphs):
        return step
    a, b = paragraphs[step]
    first = a + len(thought[a:b]) - len(thought[a:b].lstrip())
    found = step_index_at(ScoringConfig().split_steps(thought), first)
    return step if found is None else found


def _efficiency_at(thought: str, step: int, counter: TokenCounter) -> float | None:
    """Token efficiency at an annotated step of ``thought``, counted as
    ``math500.score.score_graded`` counts it (1.0 when the reasoning never reaches the answer and
    the final answer is right; None for a step the splitter does not have)."""
    steps = ScoringConfig().split_steps(thought)
    if step < 0:
        return 1.0
    if step >= len(steps):
        return None
    total, reached = counter.count_with_prefix(thought, steps[step].end)
    return reached / total if total else 1.0


def _processbench(row: dict[str, Any], record: dict[str, Any], where: str) -> tuple[str, str, str]:
    """The response, problem and gold of an annotation of a ProcessBench solution ``row``.

    The steps are joined by blank lines, the protocol's paragraph break, so that step ``i``
    of the annotation is ProcessBench's step ``i``; the gold is the annotation's (ProcessBench
    states only whether the final answer is right, not what the answer is)."""
    steps, gold = row.get("steps"), record.get("gold")
    if record.get("id") not in (None, row.get("id")):
        raise ValueError(f"{where}: id {record['id']!r} is not the solution's {row.get('id')!r}")
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
        raise ValueError(f"{where}: steps is not a list of strings")
    if not isinstance(gold, str) or not gold.strip():
        raise ValueError(f"{where}: a ProcessBench record needs its gold (the file has none)")
    return "\n\n".join(steps), str(row.get("problem", "")), gold


def _response(line: dict[str, Any], where: str) -> str:
    """The first response of a Qwen2.5-Math scripts' output line (``code``: a list, or a
    string holding a JSON or Python list literal)."""
    code = line.get("code")
    if isinstance(code, str):
        try:
            code = json.loads(code)
        except ValueError:
            try:
                code = ast.literal_eval(code)
            except (ValueError, SyntaxError) as exc:
                raise ValueError(f"{where}: code is not a list literal") from exc
    if not isinstance(code, list) or not code or not isinstance(code[0], str):
        raise ValueError(f"{where}: code holds no response")
    return code[0]
