"""Simulated answers to logic items, with the truth an end-to-end test needs.

Each item gets one scenario, drawn deterministically from (item, language, seed):

* ``ok`` answers: ``perfect``; ``wrong_step`` (one intermediate step or state misreported, the
  answer right); ``wrong_answer`` (execution: a wrong final result; planning: an illegal move);
  ``alt_plan`` (planning: a legal plan that is not the reference, usually longer);
* instruction-following errors: ``no_json`` (the answer in prose), ``truncated`` (no end of
  reasoning, so no answer part), ``not_object`` (a fenced JSON list);
* format errors: ``broken_json`` (a trailing comma or single quotes), ``missing_key``,
  ``wrong_type`` (non-string list items).

``ok`` blocks come in the wrappings the parser must tolerate (tags in any case, tildes, no tag,
an unterminated fence, a glued closing fence, a block quoted in an outer block) and with the
spacing and full-width punctuation that light normalisation must absorb. The truth
(:func:`logic_truth`) says what the block holds and what its replay must find; the deliberate
errors are built with the subclass simulator (an illegal move is checked to be illegal), never
judged by the scorer under test.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.base import PlanningTaskType, canon
from lm_eval_thinkbench.logic.parse import FORMAT_ERROR, IF_ERROR, OK
from lm_eval_thinkbench.logic.search import shortest_plan
from lm_eval_thinkbench.logic.seeds import derive_rng
from lm_eval_thinkbench.simulate import RESPONDERS
from lm_eval_thinkbench.simulate.traces import SimTrace, TraceTruth

SCENARIO_WEIGHTS: dict[str, float] = {
    "perfect": 0.28,
    "wrong_step": 0.12,
    "wrong_answer": 0.12,
    "alt_plan": 0.08,
    "no_json": 0.08,
    "truncated": 0.05,
    "not_object": 0.05,
    "broken_json": 0.09,
    "missing_key": 0.06,
    "wrong_type": 0.07,
}
STATUS = {
    "perfect": OK,
    "wrong_step": OK,
    "wrong_answer": OK,
    "alt_plan": OK,
    "no_json": IF_ERROR,
    "truncated": IF_ERROR,
    "not_object": IF_ERROR,
    "broken_json": FORMAT_ERROR,
    "missing_key": FORMAT_ERROR,
    "wrong_type": FORMAT_ERROR,
}
#: Wrappings of an ``ok`` block: format string of the reply's end, ``{j}`` the JSON.
WRAPPINGS = (
    "```json\n{j}\n```",
    "```JSON\n{j}\n```",
    "```\n{j}\n```",
    "~~~json\n{j}\n~~~",
    "  ```json\n  {j}\n  ```",
    "```json\n{j}",
    "```json\n{j}```",
    "````markdown\n```json\n{j}\n```\n````",
    "```\njson\n{j}\n```",
)
_FULL_WIDTH = str.maketrans({"(": "（", ")": "）", ",": "，"})
_INTRO = {"en": "Here is my result.", "zh": "下面是我的结果。"}
_WORK = {"en": "Let me work through this step by step.", "zh": "我来逐步推理。"}
_STEP = {"en": "Step {i}: {s}", "zh": "第 {i} 步：{s}"}
_PROSE = {"en": "The final answer is {a}.", "zh": "最终答案是 {a}。"}


@dataclass(frozen=True)
class LogicTruth:
    """What the simulated reply holds: its scenario and status, the lists in its block (as
    written, before normalisation; None on an error), and what a replay must conclude."""

    scenario: str
    status: str
    answer: tuple[str, ...] | None
    process: tuple[str, ...] | None
    answer_correct: bool
    valid_process: bool


def _mutate(text: str, rng: random.Random) -> str:
    """``text`` with one letter or digit changed to another of its kind (case included); text
    with neither (a step that determines nothing yet, ``***``) gets a digit for its first
    character."""
    spots = [i for i, c in enumerate(text) if c.isascii() and c.isalnum()]
    if not spots:
        return "0" + text[1:]
    i = rng.choice(spots)
    pool = string.digits if text[i].isdigit() else string.ascii_uppercase
    new = rng.choice([c for c in pool if c != text[i].upper()])
    return text[:i] + new + text[i + 1 :]


def _illegal_move(
    sub: PlanningTaskType, state: dict[str, Any], moves: list[str], k: int, rng: random.Random
) -> str:
    """A move that is not legal at step ``k`` of ``moves`` (by the simulator)."""
    node = sub.start(state)
    for move in moves[:k]:
        node = dict((canon(m), n) for m, n in sub.successors(state, node))[canon(move)]
    legal = {canon(m) for m, _ in sub.successors(state, node)}
    for _ in range(20):
        candidate = _mutate(moves[k], rng)
        if canon(candidate) not in legal:
            return candidate
    return "??"


def _alternative(
    sub: PlanningTaskType, state: dict[str, Any], reference: list[str]
) -> tuple[list[str], list[str]] | None:
    """A legal plan other than the reference (another first move, then a shortest plan)."""
    for move, node in sub.successors(state, sub.start(state)):
        if canon(move) == canon(reference[0]):
            continue
        rest = shortest_plan(
            node, lambda n: sub.successors(state, n), lambda n: sub.is_goal(state, n), 20
        )
        if rest is not None:
            plan = [(move, node), *rest]
            return [m for m, _ in plan], [sub.show(state, n) for _, n in plan]
    return None


def _restyle(text: str, lang: str, rng: random.Random) -> str:
    """Spacing (and, in Chinese replies, full-width punctuation) that normalisation absorbs."""
    if rng.random() < 0.3:
        text = text.replace(",", ", ")
    if lang == "zh" and rng.random() < 0.3:
        text = text.translate(_FULL_WIDTH)
    return text


def _compose(doc: Mapping[str, Any], seed: int) -> tuple[LogicTruth, str, str | None]:
    """The truth, the reasoning, and the answer part (None when the reply is truncated)."""
    rng = derive_rng("thinkbench-sim-logic", doc["id"], doc["seed"], doc["lang"], seed)
    scenario = rng.choices(list(SCENARIO_WEIGHTS), weights=list(SCENARIO_WEIGHTS.values()))[0]
    sub = registry.get(doc["logic_family"], doc["subclass"])
    state = json.loads(doc["state"])
    answer, process = list(doc["answer"]), list(doc["process"])
    only, lang = bool(doc["answer_only"]), doc["lang"]
    planning = isinstance(sub, PlanningTaskType)
    if scenario == "wrong_step" and only:
        scenario = "wrong_answer"
    alternative = (
        _alternative(sub, state, answer)
        if isinstance(sub, PlanningTaskType) and scenario == "alt_plan"
        else None
    )
    if scenario == "alt_plan" and alternative is None:
        scenario = "perfect"

    correct, valid = True, True
    if scenario == "wrong_step":
        k = rng.randrange(len(process) if planning else len(process) - 1)
        process[k] = _mutate(process[k], rng)
        valid = False
    elif scenario == "wrong_answer":
        if isinstance(sub, PlanningTaskType):  # (``planning``, narrowed for the type checker)
            k = rng.randrange(len(answer))
            answer[k] = _illegal_move(sub, state, answer, k, rng)
        else:
            answer[-1], process[-1] = _mutate(answer[-1], rng), _mutate(process[-1], rng)
        correct = valid = False
    elif scenario == "alt_plan" and alternative is not None:
        answer, process = alternative
        correct = False

    status = STATUS[scenario]
    ok = status == OK
    answer = [_restyle(a, lang, rng) for a in answer] if ok else answer
    process = [_restyle(p, lang, rng) for p in process] if ok else process
    shown = process if not only else answer
    reasoning = "\n\n".join(
        [_WORK[lang], *(_STEP[lang].format(i=i, s=s) for i, s in enumerate(shown, 1))]
    )
    payload: dict[str, Any] = {"answer": answer}
    if not only:
        payload["process"] = process
    body = json.dumps(payload, ensure_ascii=False, indent=2 if rng.random() < 0.3 else None)
    content: str | None = None
    if ok:
        content = _INTRO[lang] + "\n\n" + rng.choice(WRAPPINGS).format(j=body)
    elif scenario == "no_json":
        content = _PROSE[lang].format(a=", ".join(answer))
    elif scenario == "not_object":
        content = f"```json\n{json.dumps(answer, ensure_ascii=False)}\n```"
    elif scenario == "broken_json":
        broken = body[:-1] + ",}" if rng.random() < 0.5 else body.replace('"', "'")
        content = f"```json\n{broken}\n```"
    elif scenario == "missing_key":
        key = "result" if only else "answer"
        content = f"```json\n{json.dumps({key: answer}, ensure_ascii=False)}\n```"
    elif scenario == "wrong_type":
        content = f"```json\n{json.dumps({**payload, 'answer': [[a] for a in answer]})}\n```"
    truth = LogicTruth(
        scenario,
        status,
        tuple(answer) if ok else None,
        tuple(process) if ok and not only else None,
        correct and ok,
        valid and ok,
    )
    return truth, reasoning, content


def logic_truth(doc: Mapping[str, Any], seed: int = 0) -> LogicTruth:
    """What ``respond_logic(doc, seed)`` wrote and what scoring it must find."""
    return _compose(doc, seed)[0]


def respond_logic(doc: Mapping[str, Any], seed: int = 0) -> SimTrace:
    truth, reasoning, content = _compose(doc, seed)
    return SimTrace(
        reasoning=reasoning,
        content=content or "",
        truth=TraceTruth(
            scenario=truth.scenario,
            final_answer=None if truth.answer is None else json.dumps(list(truth.answer)),
            final_correct=truth.answer_correct,
            first_correct_step=None,
            first_correct_char_end=None,
            thought_num=0,
            truncated=content is None,
            steps=reasoning.count("\n\n") + 1,
        ),
    )


RESPONDERS["logic_family"] = respond_logic
