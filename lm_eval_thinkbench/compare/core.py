"""Grade the same responses with every grader and list where they disagree.

``compare(samples)`` is pure apart from the graders themselves: each sample gets one
:class:`~lm_eval_thinkbench.compare.graders.Verdict` per grader (ours graded as ``thinkbench
analyze`` grades it: the run's reasoning markers, the length stop, the lenient truncation
policy), and each (model, task) one :class:`Summary` with every grader's accuracy and the
documents on which the graders do not all agree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval_thinkbench.analyze.counting import tokenizers_for
from lm_eval_thinkbench.analyze.samples import Sample, subset_order
from lm_eval_thinkbench.analyze.score import run_markers
from lm_eval_thinkbench.compare.graders import GRADERS, OURS, Verdict, harness_verdicts
from lm_eval_thinkbench.math.grader import default_grader
from lm_eval_thinkbench.math500.score import grade_response
from lm_eval_thinkbench.reading import ScoringConfig
from lm_eval_thinkbench.tokens import get_counter
from lm_eval_thinkbench.trace import AUTO, mark_length_stop

#: The column of the verdict the producing run logged (its own task's metric), where it did.
LOGGED = "logged"


@dataclass(frozen=True)
class Row:
    """One response and every grader's verdict on it."""

    sample: Sample
    verdicts: dict[str, Verdict]

    @property
    def disagree(self) -> bool:
        """The graders (and the run's logged verdict, where there is one) do not all agree."""
        values = {v.correct for v in self.verdicts.values()}
        if self.sample.logged_correct is not None:
            values.add(self.sample.logged_correct)
        return len(values) > 1

    def to_dict(self) -> dict[str, Any]:
        s = self.sample
        return {
            **s.identity(),
            "source": s.where,
            "gold": s.gold,
            LOGGED: s.logged_correct,
            "verdicts": {name: v.correct for name, v in self.verdicts.items()},
            "saw": {name: v.saw for name, v in self.verdicts.items()},
        }


@dataclass(frozen=True)
class Summary:
    """One model on one task: how many responses, each grader's accuracy (and the logged
    verdict's, over the responses that have one), and the rows where they disagree."""

    model: str
    task: str
    samples: int
    accuracy: dict[str, float]
    logged: float | None
    logged_n: int
    disagreements: list[Row]


def grade_ours(samples: Sequence[Sample]) -> list[Verdict]:
    """Our checker's verdict on each sample, as ``thinkbench analyze`` reaches it."""
    markers = run_markers(samples, AUTO)
    counters = tokenizers_for(samples, None)
    grader = default_grader()
    out = []
    for s in samples:
        config = ScoringConfig(markers=markers[s.model, s.task])
        count = get_counter(counters.get(s.model)).count
        response = mark_length_stop(s.response, s.max_gen_toks, count)
        graded = grade_response(response, s.gold, config, grader)
        method = graded.extraction.method
        saw = f"{graded.extraction.value!r} ({method}) vs gold {s.gold!r}"
        out.append(Verdict(graded.correct, saw))
    return out


def compare(
    samples: Sequence[Sample], solutions: dict[str, str] | None = None
) -> tuple[list[Row], list[Summary]]:
    """Every grader on every sample; ``solutions`` (problem -> worked solution) gives the
    harness graders the documents' own solutions where known."""
    ours = grade_ours(samples)
    rows = []
    for sample, verdict in zip(samples, ours, strict=True):
        solution = (solutions or {}).get(sample.problem)
        verdicts = {OURS: verdict}
        verdicts |= harness_verdicts(sample.response, sample.problem, sample.gold, solution)
        rows.append(Row(sample, verdicts))
    return rows, summarise(rows)


def summarise(rows: Iterable[Row]) -> list[Summary]:
    groups: defaultdict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in rows:
        groups[row.sample.model, row.sample.task].append(row)
    out = []
    for (model, task), members in groups.items():
        n = len(members)
        logged = [r.sample.logged_correct for r in members if r.sample.logged_correct is not None]
        out.append(
            Summary(
                model=model,
                task=task,
                samples=n,
                accuracy={g: sum(r.verdicts[g].correct for r in members) / n for g in GRADERS},
                logged=sum(logged) / len(logged) if logged else None,
                logged_n=len(logged),
                disagreements=sorted(
                    (r for r in members if r.disagree),
                    key=lambda r: (subset_order(r.sample.subset), _id_key(r.sample)),
                ),
            )
        )
    return out


def with_solutions(samples: Sequence[Sample], records: Iterable[dict[str, Any]]) -> dict[str, str]:
    """problem -> solution from dataset records (MATH-500's ``problem``/``solution``)."""
    wanted = {s.problem for s in samples}
    return {
        r["problem"]: r["solution"]
        for r in records
        if isinstance(r.get("problem"), str)
        and isinstance(r.get("solution"), str)
        and r["problem"] in wanted
    }


def _id_key(sample: Sample) -> tuple[int, str, int]:
    sid = sample.sample_id
    return (int(sid), "", sample.repeat) if sid.isdigit() else (1 << 62, sid, sample.repeat)
