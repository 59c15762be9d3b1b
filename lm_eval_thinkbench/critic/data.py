"""ProcessBench and DeltaBench for the harness: the Hugging Face datasets, or local copies.

Each row becomes a *doc* with a fixed set of fields (what the prompt, the scorer and the sample
log need, nothing more: DeltaBench rows carry the whole chain of thought three times over).
A row whose labels cannot be used is kept, with ``data_error`` saying why: the model still
sees it, the scorer excludes it and counts it (metric ``excluded``), and the sample log shows
the reason. A file that cannot be used at all fails once with a one-line ``DatasetError``.

``custom_dataset`` in a task YAML calls :func:`load_processbench` / :func:`load_deltabench`
with the task's metadata (``--metadata``, merged with ``--model_args``) and its
``dataset_kwargs`` (the subset or domain).
"""

from __future__ import annotations

import ast
import functools
import logging
import os
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import datasets

from lm_eval_thinkbench.critic.parse import OFFICIAL, READINGS
from lm_eval_thinkbench.datafiles import DatasetError, parse_json, read_records
from lm_eval_thinkbench.flags import as_bool
from lm_eval_thinkbench.harness import settings

# Under lm-eval's logger, so that an lm_eval run shows the lines (it configures only its own).
log = logging.getLogger("lm_eval.thinkbench.critic")

PROCESSBENCH_HF = "Qwen/ProcessBench"
PROCESSBENCH_ENV = "THINKBENCH_PROCESSBENCH_PATH"
PROCESSBENCH_SUBSETS = ("gsm8k", "math", "olympiadbench", "omnimath")
PROCESSBENCH_FIELDS = ("id", "problem", "steps", "label")

DELTABENCH_HF = "OpenStellarTeam/DeltaBench"
DELTABENCH_ENV = "THINKBENCH_DELTABENCH_PATH"
DELTABENCH_FIELDS = (
    "id",
    "task_l1",
    "question",
    "sections_content",
    "reason_error_section_numbers",
    "reason_unuseful_section_numbers",
)
#: The four DeltaBench domains (``task_l1``), as the paper groups them.
DOMAINS = ("math", "code", "pcb", "general")
_DOMAIN_ALIASES = {
    "mathematics": "math",
    "programming": "code",
    "coding": "code",
    "physics": "pcb",
    "chemistry": "pcb",
    "biology": "pcb",
    "physics_chemistry_biology": "pcb",
    "general_reasoning": "general",
    "reasoning": "general",
}
# Numbers of at most 9 and 18 digits: int() refuses a string of more than 4,300 digits, and no
# section or step is numbered beyond these.
_SECTION_HEADER = re.compile(r"(?im)^[ \t]*section[ \t]*(\d{1,9})[ \t]*:")
_INT = re.compile(r"[-+]?\d{1,18}(?:\.0*)?")


# ----- ProcessBench --------------------------------------------------------------------------


def load_processbench(subset: str, **metadata: Any) -> datasets.DatasetDict:
    """One ProcessBench subset as a ``{"test": Dataset}`` dict.

    A local folder holding ``<subset>.json`` is used when ``--metadata processbench_path=...``
    or ``THINKBENCH_PROCESSBENCH_PATH`` names one; otherwise the ``Qwen/ProcessBench`` split.
    """
    reading = settings.configure(metadata).processbench_reading
    _check_reading("processbench_reading", reading, "ProcessBench's run_eval.py reads the box")
    path = metadata.get("processbench_path") or os.environ.get(PROCESSBENCH_ENV)
    docs = processbench_docs(subset, path)
    log.info(
        "ProcessBench %s: %d samples, verdicts read with processbench_reading=%s%s",
        subset,
        len(docs),
        reading,
        " (as ProcessBench's own run_eval.py reads them)" if reading == "official" else "",
    )
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})


def processbench_docs(subset: str, path: str | os.PathLike | None) -> list[dict[str, Any]]:
    """The docs of one subset, from a local folder (``path``) or the Hub (``None``)."""
    if subset not in PROCESSBENCH_SUBSETS:
        raise ValueError(f"unknown ProcessBench subset {subset!r}; known: {PROCESSBENCH_SUBSETS}")
    if path:
        source = _processbench_file(Path(path), subset)
        expected = f"ProcessBench records with fields {', '.join(PROCESSBENCH_FIELDS)}"
        rows = read_records(source, expected)
        _require_some(rows, PROCESSBENCH_FIELDS, source, expected)
    else:
        rows = [dict(r) for r in datasets.load_dataset(PROCESSBENCH_HF, split=subset)]
    docs = [processbench_doc(r, subset) for r in rows]
    _warn_broken(docs, f"ProcessBench {subset}")
    return docs


def processbench_doc(row: Mapping[str, Any], subset: str) -> dict[str, Any]:
    """A ProcessBench row as a doc; ``label`` is None and ``data_error`` set when unusable."""
    problems = _missing(row, PROCESSBENCH_FIELDS)
    raw_steps = row.get("steps")
    steps = [str(s) for s in raw_steps] if isinstance(raw_steps, list) else []
    if "steps" in row and not steps:
        problems.append("steps is not a non-empty list")
    label = as_int(row.get("label"))
    if "label" in row:
        if label is None:
            problems.append(f"label {row.get('label')!r} is not an integer")
        elif not -1 <= label < len(steps):
            problems.append(f"label {label} is outside -1..{len(steps) - 1}")
    return {
        "id": str(row.get("id", "")),
        "subset": subset,
        "generator": str(row.get("generator", "")),
        "problem": str(row.get("problem", "")),
        "steps": steps,
        "final_answer_correct": _final_answer_correct(row, problems),
        "label": None if problems else label,
        "data_error": "; ".join(problems),
    }


def _final_answer_correct(row: Mapping[str, Any], problems: list[str]) -> bool:
    try:
        return as_bool(row.get("final_answer_correct", False), "final_answer_correct")
    except ValueError as exc:
        problems.append(str(exc))
        return False


def _processbench_file(folder: Path, subset: str) -> Path:
    for name in (f"{subset}.json", f"{subset}.jsonl"):
        if os.path.lexists(folder / name):  # read_records says what is wrong with a non-file
            return folder / name
    raise DatasetError(
        f"no {subset}.json in {folder}; expected a folder with "
        f"{', '.join(s + '.json' for s in PROCESSBENCH_SUBSETS)} "
        f"(records with fields {', '.join(PROCESSBENCH_FIELDS)})"
    )


# ----- DeltaBench ----------------------------------------------------------------------------


def load_deltabench(domain: str, **metadata: Any) -> datasets.DatasetDict:
    """The DeltaBench rows of one domain (``task_l1``) as a ``{"test": Dataset}`` dict.

    A local CSV or JSONL file is used when ``--metadata deltabench_path=...`` or
    ``THINKBENCH_DELTABENCH_PATH`` names one; otherwise ``OpenStellarTeam/DeltaBench``.
    """
    if domain not in DOMAINS:
        raise ValueError(f"unknown DeltaBench domain {domain!r}; known: {DOMAINS}")
    run = settings.configure(metadata)
    _check_reading("deltabench_reading", run.deltabench_reading, "DeltaBench's evaluation.py reads")
    path = metadata.get("deltabench_path") or os.environ.get(DELTABENCH_ENV)
    docs = [d for d in deltabench_docs(path) if d["domain"] == domain]
    if not docs:
        raise NoRows(
            f"DeltaBench data from {path or DELTABENCH_HF} has no {domain!r} rows (task_l1), "
            f"so thinkbench_deltabench_{domain} has nothing to run (the thinkbench_deltabench "
            "group leaves it out and reports the other domains)"
        )
    log.info(
        "DeltaBench %s: %d samples, verdicts read with deltabench_reading=%s%s; predicted "
        "sections beyond the last true one %s (deltabench_reference_filter=%s)",
        domain,
        len(docs),
        run.deltabench_reading,
        " (as DeltaBench's own evaluation.py reads them)"
        if run.deltabench_reading == OFFICIAL
        else "",
        "are dropped, as evaluation.py does"
        if run.reference_filter
        else "count as false positives",
        str(run.reference_filter).lower(),
    )
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})


class NoRows(DatasetError):
    """The data has no row for a task (a DeltaBench domain missing from a local file).

    lm-eval 0.4.13 cannot build a task without documents (its constructor renders the first
    one, its evaluator reads the first request). Run alone, such a task stops the run with this
    message; inside a group it is left out and the group reports its other members
    (``critic.metrics.leave_out_empty_members``).
    """


def deltabench_docs(path: str | os.PathLike | None) -> list[dict[str, Any]]:
    """Every DeltaBench doc, from a local CSV/JSONL file (``path``) or the Hub (``None``).

    Read once per file version: each of the four domain tasks asks for the whole file.
    """
    if not path:
        return list(_deltabench_from_hub())
    source = Path(path)
    try:
        stamp = source.stat().st_mtime_ns
    except OSError as exc:
        raise DatasetError(f"cannot read {source}: {exc}; expected {_DELTABENCH_EXPECTED}") from exc
    return list(_deltabench_from_file(str(source.resolve()), stamp))


#: A file with none of these is not DeltaBench at all (``sections`` may stand in for the rest).
_DELTABENCH_KEYS = ("question", "reason_error_section_numbers")
_DELTABENCH_EXPECTED = (
    f"DeltaBench records (CSV or JSON Lines) with fields {', '.join(DELTABENCH_FIELDS)}"
)


@functools.lru_cache(maxsize=4)
def _deltabench_from_file(path: str, _mtime_ns: int) -> tuple[dict[str, Any], ...]:
    rows = read_records(Path(path), _DELTABENCH_EXPECTED)
    _require_some(rows, _DELTABENCH_KEYS, Path(path), _DELTABENCH_EXPECTED)
    return _deltabench_checked(rows, path)


@functools.lru_cache(maxsize=1)
def _deltabench_from_hub() -> tuple[dict[str, Any], ...]:
    loaded = datasets.load_dataset(DELTABENCH_HF)
    split = next((s for s in ("test", "train") if s in loaded), next(iter(loaded)))
    return _deltabench_checked([dict(r) for r in loaded[split]], DELTABENCH_HF)


def _deltabench_checked(rows: list[dict[str, Any]], where: str) -> tuple[dict[str, Any], ...]:
    docs = tuple(deltabench_doc(r) for r in rows)
    _warn_broken(docs, f"DeltaBench ({where})")
    unknown = Counter(d["task_l1"] for d in docs if d["domain"] not in DOMAINS)
    if unknown:
        log.warning(
            "DeltaBench (%s): %d rows have a task_l1 outside %s and belong to no task: %s",
            where,
            sum(unknown.values()),
            "/".join(DOMAINS),
            dict(unknown),
        )
    return docs


def deltabench_doc(row: Mapping[str, Any]) -> dict[str, Any]:
    """A DeltaBench row (JSONL-typed or CSV strings) as a doc.

    ``truth_sections`` is the benchmark's ground truth: the union of the error sections and
    the unuseful sections (1-based). ``sections_text`` is what the critic reads, in the
    release's own ``section1: ...`` layout.
    """
    problems = _missing(row, DELTABENCH_FIELDS, alternatives={"sections_content": "sections"})
    sections = _section_list(row.get("sections"))
    text = str(row.get("sections_content") or row.get("section_content") or "")
    if not text.strip() and sections:
        text = "\n\n\n".join(f"section{i}: {s}" for i, s in enumerate(sections, 1))
    headers = [int(n) for n in _SECTION_HEADER.findall(text)]
    n_sections = len(sections) if sections else max(headers, default=0)
    if not n_sections:
        problems.append("no sections (sections_content / sections)")
    errors = _section_numbers(row, "reason_error_section_numbers", n_sections, problems)
    unuseful = _section_numbers(row, "reason_unuseful_section_numbers", n_sections, problems)
    if not str(row.get("question") or "").strip() and "question" in row:
        problems.append("empty question")
    task_l1 = str(row.get("task_l1") or "")
    return {
        "id": str(row.get("id", "")),
        "task_l1": task_l1,
        "task_l2": str(row.get("task_l2") or ""),
        "domain": domain_of(task_l1),
        "question": str(row.get("question") or ""),
        "sections_text": text.strip(),
        "n_sections": n_sections,
        "error_sections": errors,
        "unuseful_sections": unuseful,
        "truth_sections": [] if problems else sorted(set(errors) | set(unuseful)),
        "data_error": "; ".join(problems),
    }


def domain_of(task_l1: str) -> str:
    """The domain slug of a ``task_l1`` value ("Math" -> math, "Programming" -> code, ...)."""
    slug = re.sub(r"[^a-z]+", "_", task_l1.lower()).strip("_")
    return _DOMAIN_ALIASES.get(slug, slug)


def _section_list(value: object) -> list[str]:
    """The ``sections`` field: a list of ``{"content": ...}`` dicts, or that list as a literal.

    CSV exports hold it as a Python literal; ``ast.literal_eval`` reads literals only.
    """
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return []
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        if isinstance(item, Mapping):
            out.append(str(item.get("content", item.get("section", ""))))
        else:
            out.append(str(item))
    return out


def _section_numbers(
    row: Mapping[str, Any], key: str, n_sections: int, problems: list[str]
) -> list[int]:
    """A list of 1-based section numbers, from a list, a JSON/Python literal, or one number."""
    value = row.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return []
    if isinstance(value, str):
        value = _literal(value)
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    numbers = [as_int(v) for v in items]
    if any(n is None for n in numbers):
        problems.append(f"{key} {row.get(key)!r} is not a list of section numbers")
        return []
    bad = [n for n in numbers if n is not None and not 1 <= n <= max(n_sections, 1)]
    if bad:
        problems.append(f"{key} has {bad}, outside sections 1..{n_sections}")
        return []
    return sorted({n for n in numbers if n is not None})


def _literal(text: str) -> object:
    try:
        return parse_json(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


# ----- shared --------------------------------------------------------------------------------


def _check_reading(key: str, reading: str, official: str) -> None:
    """An unknown reading fails at load time, before any generation is spent."""
    if reading not in READINGS:
        raise ValueError(
            f"{key} {reading!r} is not one of {', '.join(READINGS)} "
            f"(official: as {official}; tolerant: see the README)"
        )


def as_int(value: object) -> int | None:
    """An integer from an int, an integral float, or a string such as "3" or "3.0"."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and _INT.fullmatch(value.strip()):
        return int(value.strip().partition(".")[0])
    return None


def _missing(
    row: Mapping[str, Any], fields: tuple[str, ...], alternatives: Mapping[str, str] | None = None
) -> list[str]:
    alternatives = alternatives or {}
    absent = [f for f in fields if f not in row and alternatives.get(f) not in row]
    return [f"missing {', '.join(absent)}"] if absent else []


def _require_some(
    rows: list[dict[str, Any]], fields: tuple[str, ...], path: Path, expected: str
) -> None:
    """A file none of whose records has the fields is the wrong file, not a set of bad rows."""
    if not any(all(f in r for f in fields) for r in rows):
        raise DatasetError(
            f"{path}: no record has the fields {', '.join(fields)}; expected {expected}"
        )


def _warn_broken(docs: tuple[dict[str, Any], ...] | list[dict[str, Any]], what: str) -> None:
    broken = [d for d in docs if d["data_error"]]
    if broken:
        log.warning(
            "%s: %d of %d rows have unusable labels and are excluded from scoring "
            "(data_error in the sample logs), e.g. %s: %s",
            what,
            len(broken),
            len(docs),
            broken[0]["id"],
            broken[0]["data_error"],
        )
