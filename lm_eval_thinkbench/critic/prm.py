"""Post-hoc evaluation of a process reward model (PRM) from its per-section / per-step scores.

No generation: a PRM run elsewhere wrote one score per DeltaBench section or ProcessBench step
(higher = more likely correct); this module turns the scores into predictions and scores them
exactly as the critic tasks score a critic.

Predictions (DeltaBench's outlier rule): a section is flagged when its score is below
``mean - std`` of that sample's scores (population standard deviation, strict inequality).
Consequences worth knowing: a sample with one scored section, or with all scores equal (zero
deviation), or with exactly two scores, flags nothing. With ``threshold=t`` a section is
flagged when its score is below ``t`` instead (ProcessBench's usual rule for PRMs that output
probabilities, e.g. 0.5).

Missing scores (``null``, or a list shorter than the sample) leave those sections out of the
statistics, the flags and the ranking; extra scores beyond the last section are ignored. A
sample with no score line at all predicts nothing (DeltaBench: precision = recall = F1 = 0,
no hit; ProcessBench: no readable prediction, wrong on either kind). All of these are counted
and reported per sample, never fatal.

Metrics: DeltaBench macro/micro precision, recall, F1 (``scoring``) and HitRate@k, the share of
scored samples whose k lowest-scored sections (ties: the earlier section first) include a true
error section; ProcessBench ``error_acc``, ``correct_acc`` and F1 with the first flagged step
as the prediction (-1 when none is flagged), per subset and averaged over subsets.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import fmean, pstdev
from typing import Any

from lm_eval_thinkbench.critic.scoring import (
    SectionScore,
    processbench_summary,
    score_sections,
    summarize_sections,
)
from lm_eval_thinkbench.datafiles import DatasetError, parse_json, read_data

Scores = list[float | None]


# ----- predictions ---------------------------------------------------------------------------


def present(scores: Sequence[float | None]) -> list[tuple[int, float]]:
    """(0-based position, score) of every usable score."""
    usable = ((i, _finite(s)) for i, s in enumerate(scores))
    return [(i, s) for i, s in usable if s is not None]


def _finite(score: object) -> float | None:
    """A score as a finite float; None for anything else (an integer too big for a float)."""
    if isinstance(score, bool) or not isinstance(score, int | float):
        return None
    try:
        value = float(score)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def zscore_flags(scores: Sequence[float | None]) -> list[int]:
    """0-based positions whose score is below mean - std of the sample's usable scores."""
    usable = present(scores)
    if len(usable) < 2:
        return []
    values = [s for _, s in usable]
    cut = fmean(values) - pstdev(values)
    return [i for i, s in usable if s < cut]


def threshold_flags(scores: Sequence[float | None], threshold: float) -> list[int]:
    """0-based positions whose score is below ``threshold``."""
    return [i for i, s in present(scores) if s < threshold]


def flags(scores: Sequence[float | None], threshold: float | None = None) -> list[int]:
    return zscore_flags(scores) if threshold is None else threshold_flags(scores, threshold)


def lowest(scores: Sequence[float | None], k: int) -> list[int]:
    """0-based positions of the ``k`` lowest usable scores; ties go to the earlier position."""
    return [i for i, _ in sorted(present(scores), key=lambda p: (p[1], p[0]))[:k]]


# ----- reading scores ------------------------------------------------------------------------

SCHEMA = (
    'one JSON object per line: {"id": "<sample id>", "scores": [s1, s2, ...]}, where the i-th '
    "score belongs to DeltaBench section i (1-based) or ProcessBench step i-1 (paragraph_0 "
    "first); higher = more likely correct; null marks an unscored section"
)


@dataclass(frozen=True)
class ScoreFile:
    """The usable score lines by sample id, and what was wrong with the others."""

    scores: dict[str, Scores]
    problems: list[str] = field(default_factory=list)


def read_scores(path: Path) -> ScoreFile:
    """Read a PRM score file; a bad line (not UTF-8, not JSON, no usable id or scores) is
    noted in ``problems`` and skipped. A file that cannot be read at all is a DatasetError."""
    data = read_data(path, DatasetError, SCHEMA)
    scores: dict[str, Scores] = {}
    problems: list[str] = []
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            record = parse_json(raw.decode("utf-8"))
        except UnicodeDecodeError:
            problems.append(f"{path}:{lineno}: not UTF-8 text")
            continue
        except ValueError as exc:
            problems.append(f"{path}:{lineno}: not valid JSON ({exc})")
            continue
        if not isinstance(record, dict) or "id" not in record:
            problems.append(f"{path}:{lineno}: no id")
            continue
        values = record.get("scores")
        if not isinstance(values, list):
            problems.append(f"{path}:{lineno}: scores is not a list")
            continue
        if isinstance(record["id"], bool) or not isinstance(record["id"], str | int):
            problems.append(f"{path}:{lineno}: id is not a string or an integer")
            continue
        key = str(record["id"])
        if key in scores:
            problems.append(f"{path}:{lineno}: id {key} repeated; the first line is used")
            continue
        scores[key] = [v if present([v]) else None for v in values]
    if not scores and not problems:
        raise DatasetError(f"{path} holds no score lines; expected {SCHEMA}")
    return ScoreFile(scores, problems)


# ----- DeltaBench ----------------------------------------------------------------------------


def evaluate_deltabench(
    docs: Iterable[Mapping[str, Any]],
    scores: Mapping[str, Scores],
    ks: Sequence[int] = (1, 3, 5),
    reference_filter: bool = False,
    threshold: float | None = None,
) -> dict[str, Any]:
    """Figures overall and per domain, plus one record per sample.

    ``docs`` are DeltaBench docs (``data.deltabench_doc``); samples with unusable labels or
    without a true error section are excluded and counted, as in the critic task.
    """
    samples = [
        _deltabench_sample(d, scores.get(str(d["id"])), ks, reference_filter, threshold)
        for d in docs
    ]
    by_domain: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in samples:
        by_domain[s["domain"]].append(s)
    return {
        "overall": _deltabench_figures(samples, ks),
        "domains": {d: _deltabench_figures(rows, ks) for d, rows in sorted(by_domain.items())},
        "samples": samples,
    }


def _deltabench_sample(
    doc: Mapping[str, Any],
    scores: Scores | None,
    ks: Sequence[int],
    reference_filter: bool,
    threshold: float | None,
) -> dict[str, Any]:
    n = int(doc["n_sections"])
    truth = list(doc["truth_sections"])
    record: dict[str, Any] = {"id": str(doc["id"]), "domain": doc["domain"]}
    if doc["data_error"] or not truth:
        record["excluded"] = doc["data_error"] or "no error sections in the ground truth"
        return record
    own = (scores or [])[:n]
    record.update(
        excluded=None,
        missing_scores=not present(own),
        unscored_sections=n - len(present(own)),
        extra_scores=max(0, len(scores or []) - n),
    )
    flagged = [i + 1 for i in flags(own, threshold)]
    record["flagged"] = flagged
    record.update(asdict(score_sections(flagged, truth, reference_filter)))
    ranked = [i + 1 for i in lowest(own, max(ks, default=0))]
    record["hits"] = {str(k): any(s in truth for s in ranked[:k]) for k in ks}
    return record


def _deltabench_figures(samples: list[dict[str, Any]], ks: Sequence[int]) -> dict[str, Any]:
    scored = [s for s in samples if not s["excluded"]]
    summary = summarize_sections(
        [
            SectionScore(s["tp"], s["fp"], s["fn"], s["precision"], s["recall"], s["f1"])
            for s in scored
        ]
    )
    for k in ks:
        summary[f"hit@{k}"] = fmean(s["hits"][str(k)] for s in scored) if scored else math.nan
    summary.update(
        samples=len(samples),
        scored=len(scored),
        excluded=len(samples) - len(scored),
        missing_scores=sum(bool(s["missing_scores"]) for s in scored),
    )
    return summary


# ----- ProcessBench --------------------------------------------------------------------------


def evaluate_processbench(
    docs_by_subset: Mapping[str, Iterable[Mapping[str, Any]]],
    scores: Mapping[str, Scores],
    threshold: float | None = None,
) -> dict[str, Any]:
    """Per-subset ``error_acc``, ``correct_acc``, ``f1`` and their average F1 over subsets."""
    subsets: dict[str, dict[str, Any]] = {}
    samples: list[dict[str, Any]] = []
    for name, docs in docs_by_subset.items():
        rows = [_processbench_sample(d, name, scores.get(str(d["id"])), threshold) for d in docs]
        samples.extend(rows)
        scored = [r for r in rows if not r["excluded"]]
        figures = processbench_summary((r["label"], r["prediction"]) for r in scored)
        figures.update(
            samples=len(rows),
            scored=len(scored),
            excluded=len(rows) - len(scored),
            missing_scores=sum(bool(r["missing_scores"]) for r in scored),
        )
        subsets[name] = figures
    f1s = [f["f1"] for f in subsets.values()]
    return {
        "average_f1": fmean(f1s) if f1s else math.nan,
        "subsets": subsets,
        "samples": samples,
    }


def _processbench_sample(
    doc: Mapping[str, Any], subset: str, scores: Scores | None, threshold: float | None
) -> dict[str, Any]:
    record: dict[str, Any] = {"id": str(doc["id"]), "subset": subset}
    if doc["data_error"]:
        record["excluded"] = doc["data_error"]
        return record
    n = len(doc["steps"])
    own = (scores or [])[:n]
    flagged = flags(own, threshold)
    missing = not present(own)
    record.update(
        excluded=None,
        label=doc["label"],
        missing_scores=missing,
        unscored_steps=n - len(present(own)),
        extra_scores=max(0, len(scores or []) - n),
        prediction=None if missing else min(flagged, default=-1),
    )
    return record
