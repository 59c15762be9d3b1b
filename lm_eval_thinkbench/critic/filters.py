"""The critic tasks' lm-eval filters: each raw response becomes a verdict record (what was
read, and how).

lm-eval logs the record as ``filtered_resps`` next to the untouched response, so every parse
failure and every truncation is visible per sample; :mod:`.metrics` scores the records.
"""

from __future__ import annotations

from typing import Any

from lm_eval_thinkbench.critic.parse import OFFICIAL, UNPARSED, read_sections, read_step_index
from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.harness.records import RecordFilter
from lm_eval_thinkbench.trace import MarkerSet, split_trace

TRUNCATED = "truncated"


class ProcessBenchFilter(RecordFilter):
    def score(self, raw: object, doc: dict[str, Any]) -> dict[str, Any]:
        return processbench_record(raw, self.markers, settings.current().processbench_reading)


class DeltaBenchFilter(RecordFilter):
    def score(self, raw: object, doc: dict[str, Any]) -> dict[str, Any]:
        return deltabench_record(raw, self.markers, settings.current().deltabench_reading)


def processbench_record(
    raw: object, markers: str | MarkerSet, reading: str = OFFICIAL
) -> dict[str, Any]:
    """What a ProcessBench critic answered: ``status`` ok / unparsed / truncated, and the
    ``reading`` (``official`` / ``tolerant``) that turned its box into a prediction.

    The box is looked for in the answer: all of a reply without reasoning, what follows the
    reasoning of one with it (the official script reads the whole output, so it also takes a
    draft box from the reasoning when the answer has none, or from a cut-off critique).
    """
    trace = split_trace(raw, markers)
    if trace.truncated:
        return {"status": TRUNCATED, "prediction": None, "boxed": None, "reading": reading}
    verdict = read_step_index(trace.answer, reading)
    status = "ok" if verdict.index is not None else UNPARSED
    return {
        "status": status,
        "prediction": verdict.index,
        "boxed": verdict.boxed,
        "reading": reading,
    }


def deltabench_record(
    raw: object, markers: str | MarkerSet, reading: str = OFFICIAL
) -> dict[str, Any]:
    """What a DeltaBench critic answered: ``status`` error / no_error / unparsed / truncated,
    and the ``reading`` (``official`` / ``tolerant``) that turned its answer into sections.

    The verdict is read from the answer, as the reference script reads the ``content`` of a
    chat reply (a reasoning model's thought is not part of it).
    """
    trace = split_trace(raw, markers)
    if trace.truncated:
        return {
            "status": TRUNCATED,
            "format": None,
            "sections": [],
            "listed": [],
            "reading": reading,
        }
    verdict = read_sections(trace.answer, reading)
    return {
        "status": verdict.status,
        "format": verdict.format,
        "sections": list(verdict.sections),
        "listed": list(verdict.listed),
        "reading": reading,
    }
