"""Score one response to a logic item: status, answer, steps, and the replay of the steps.

Definitions (every comparison goes through :func:`~lm_eval_thinkbench.logic.base.canon`):

* ``answer_correct``: the answer list equals the reference list, element by element (or, for a
  subclass whose answers have several spellings, passes its own check).
* ``step_similarity``: ``difflib.SequenceMatcher(None, hyp, ref, autojunk=False).ratio()``
  where ``ref`` is the reference steps, canonicalised and joined with ``"\\n"``, and ``hyp`` the
  model's steps serialised the same way and cut to ``4 * len(ref) + 256`` characters (which
  bounds the cost on hostile output; the ratio of anything that long is below 0.4 anyway).
  ``autojunk`` is off because its popular-character heuristic distorts strings longer than 200
  characters. A step that is a list of strings is serialised as its elements in brackets,
  comma-separated (:func:`~lm_eval_thinkbench.logic.base.step_text`), then canonicalised like
  any step: ``["1", "3"]`` and ``"[1, 3]"`` compare equal, and a nested step that misses one
  candidate of three costs about that share of its characters. Answer-only items compare the
  answer lists instead.
* ``answer_step_correct``: both of the above are perfect.
* ``valid_process`` / ``first_invalid_step``: the subclass simulator's replay (see
  :class:`~lm_eval_thinkbench.logic.base.Replay`); for planning any legal plan that reaches the
  goal is valid, and ``plan_length`` can be set against ``optimal_length``. Items without a
  simulator (LogicGame's own) have no replay: these stay None.

A response with an instruction-following or format error scores 0 and False everywhere.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.base import Step, TaskType, answers_equal, canon, step_text
from lm_eval_thinkbench.logic.parse import OK, parse_output

#: Bumped whenever a change can move a reported number; every record carries it.
LOGIC_METRICS_VERSION = "1"


def serialise(steps: Sequence[Step]) -> str:
    """The canonical serialisation that step similarity compares."""
    return "\n".join(canon(step_text(s)) for s in steps)


def step_similarity(steps: Sequence[Step], reference: Sequence[Step]) -> float:
    ref = serialise(reference)
    hyp = serialise(steps)[: 4 * len(ref) + 256]
    if hyp == ref:
        return 1.0
    return difflib.SequenceMatcher(None, hyp, ref, autojunk=False).ratio()


@dataclass(frozen=True)
class Reference:
    """What scoring needs from a harness document. ``sub`` and ``state`` are None for an item
    without a simulator (LogicGame's own): its process is compared, not replayed."""

    sub: TaskType | None
    state: dict[str, Any] | None
    answer: tuple[str, ...]
    process: tuple[Step, ...]
    answer_only: bool
    optimal: int | None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Reference:
        return cls(
            sub=registry.get(doc["logic_family"], doc["subclass"]),
            state=json.loads(doc["state"]),
            answer=tuple(doc["answer"]),
            process=tuple(doc["process"]),
            answer_only=bool(doc["answer_only"]),
            optimal=doc.get("optimal_length"),
        )


def score_output(ref: Reference, text: str | None) -> dict[str, Any]:
    """The per-sample record for the answer part ``text`` (None for a truncated response)."""
    parsed = parse_output(text, ref.answer_only)
    record: dict[str, Any] = {
        "status": parsed.status,
        "error": parsed.error,
        "answer_correct": False,
        "step_similarity": 0.0,
        "answer_step_correct": False,
        "valid_process": False if ref.sub else None,
        "first_invalid_step": None,
        "steps_given": None,
        "plan_length": None,
        "optimal_length": ref.optimal,
        "logic_metrics_version": LOGIC_METRICS_VERSION,
    }
    if parsed.status != OK or parsed.answer is None:
        return record
    answer, process = parsed.answer, parsed.process
    correct = (
        answers_equal(answer, ref.answer)
        if ref.sub is None or ref.state is None
        else ref.sub.answer_correct(ref.state, answer, ref.answer)
    )
    similarity = (
        step_similarity(answer, ref.answer)
        if process is None
        else step_similarity(process, ref.process)
    )
    record.update(
        answer_correct=correct,
        step_similarity=similarity,
        answer_step_correct=correct and similarity == 1.0,
        steps_given=len(answer if process is None else process),
    )
    if ref.sub is not None and ref.state is not None:
        texts = None if process is None else [step_text(s) for s in process]
        replay = ref.sub.replay(ref.state, answer, texts)
        record.update(
            valid_process=replay.valid,
            first_invalid_step=replay.first_invalid_step,
            plan_length=replay.length if ref.sub.kind == "planning" else None,
        )
    return record
