"""LogicGame's released files for the harness: loader, and the leaderboard submission file.

``custom_dataset`` in ``tasks/logicgame/`` calls :func:`load_logicgame` with the task's
metadata and its ``dataset_kwargs`` (the language). Metadata keys:

* ``logicgame_split``: ``all`` (default: the 304-item whole set the leaderboard runs, no
  references, so nothing is scored) or ``dev`` (the 10 items with references).
* ``logicgame_path``: a local folder holding the release's files (``{en,zh}_dev_10.jsonl``,
  ``{en,zh}_all_304.jsonl``, directly or under ``data/`` and ``data/dev/`` as in a clone of the
  repository); else ``THINKBENCH_LOGICGAME_PATH``; else the files of the pinned release commit
  on GitHub, downloaded once through ``datasets``' cache (``HF_DATASETS_OFFLINE=1`` refuses
  the download: then name a local copy).

:func:`write_submission` turns the sample logs of a run of these tasks into the files for the
leaderboard (``thinkbench-logic logicgame-submission``; see ``docs/logicgame.md`` for their
form).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import datasets
from datasets.utils.file_utils import cached_path

from lm_eval_thinkbench.datafiles import DatasetError, read_json_lines, read_records
from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.logic.base import LANGS
from lm_eval_thinkbench.logic.logicgame import (
    FIELDS,
    RELEASE_REPO,
    logicgame_doc,
    release_file,
)
from lm_eval_thinkbench.logic.parse import UNSCORED

log = logging.getLogger("lm_eval.thinkbench.logicgame")

PATH_ENV = "THINKBENCH_LOGICGAME_PATH"
RELEASE_SHA = "4884edb6de726fe35debb656215ef429cd7e2f4d"
RELEASE_URL = f"https://raw.githubusercontent.com/{RELEASE_REPO}/{RELEASE_SHA}/data/"
EXPECTED = f"LogicGame JSON Lines with fields {', '.join(FIELDS)} (and reference in the dev sets)"


def load_logicgame(lang: str, **metadata: Any) -> datasets.DatasetDict:
    settings.configure(metadata)
    split = str(metadata.get("logicgame_split", "all"))
    folder = metadata.get("logicgame_path") or os.environ.get(PATH_ENV)
    docs = logicgame_docs(lang, split, Path(folder) if folder else None)
    unscored = sum(not d["reference"] for d in docs)
    log.info(
        "LogicGame %s %s: %d items from %s, %d without a reference (run and exported, not scored)",
        lang,
        split,
        len(docs),
        folder or f"{RELEASE_REPO}@{RELEASE_SHA[:7]}",
        unscored,
    )
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})


def logicgame_docs(lang: str, split: str, folder: Path | None) -> list[dict[str, Any]]:
    """The documents of one language and split, from a local folder or the pinned release."""
    name = release_file(lang, split)
    path = _local_file(folder, name) if folder else _download(name, split)
    rows = read_records(path, EXPECTED)
    return [logicgame_doc(r, lang, f"{path}: record {i}") for i, r in enumerate(rows, 1)]


def _local_file(folder: Path, name: str) -> Path:
    for sub in ("", "data", "data/dev"):
        if os.path.lexists(folder / sub / name):  # read_records says what is wrong with it
            return folder / sub / name
    raise DatasetError(
        f"no {name} in {folder} (nor in its data/ or data/dev/); expected a folder with the "
        f"LogicGame release's files ({PATH_ENV} or --metadata logicgame_path=...)"
    )


def _download(name: str, split: str) -> Path:
    url = RELEASE_URL + ("dev/" if split == "dev" else "") + name
    try:
        return Path(cached_path(url))
    except (OSError, ConnectionError, ValueError) as exc:
        raise DatasetError(
            f"cannot fetch {url} ({type(exc).__name__}: {exc}); for an offline run, point "
            f"{PATH_ENV} or --metadata logicgame_path=... at a local copy of the release"
        ) from None


def submission_rows(samples: Iterable[Mapping[str, Any]], where: str) -> list[dict[str, Any]]:
    """One submission row per logged sample of a LogicGame task, in the release's order.

    A row is the item's release fields (``qid``, ``level``, ``category``) and ``response``: the
    model's reply after its reasoning (what the fenced-JSON instruction of ``contexts`` asks
    for; empty for a truncated reply), which the filter's record keeps as ``answer_text``.
    With repeats, the first repeat's reply. ``where`` names the log in errors.
    """
    rows = []
    try:
        for sample in sorted(samples, key=lambda s: int(s["doc_id"])):
            doc, filtered = sample["doc"], sample["filtered_resps"]
            first = filtered[0][0] if isinstance(filtered[0], list) else filtered[0]
            record = json.loads(first) if isinstance(first, str) else first
            rows.append(
                {
                    "qid": str(doc["qid"]),
                    "level": doc["level"],
                    "category": doc["category"],
                    "response": record.get("answer_text") or "",
                    "scored": record["status"] != UNSCORED,
                }
            )
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise DatasetError(
            f"{where}: not a sample log of a thinkbench_logicgame task ({type(exc).__name__}: "
            f"{exc}); expected lm_eval --log_samples output"
        ) from None
    return rows


def write_submission(run_dir: Path, out_dir: Path) -> str:
    """Write ``{lang}_submission.jsonl`` per language found in the sample logs under
    ``run_dir`` (an lm-eval ``--output_path``) and return a report with the unscored counts."""
    lines = []
    out_dir.mkdir(parents=True, exist_ok=True)
    for lang in LANGS:
        logs = sorted(run_dir.rglob(f"samples_thinkbench_logicgame_{lang}_*.jsonl"))
        if not logs:
            continue
        where = str(logs[-1])  # the newest run of this task
        rows = submission_rows((v for _, v in read_json_lines(logs[-1])), where)
        out = out_dir / f"{lang}_submission.jsonl"
        with out.open("w", encoding="utf-8") as fh:
            for row in rows:
                fields = {k: row[k] for k in ("qid", "level", "category", "response")}
                fh.write(json.dumps(fields, ensure_ascii=False) + "\n")
        unscored = sum(not r["scored"] for r in rows)
        empty = sum(not r["response"] for r in rows)
        lines.append(
            f"{lang}: {len(rows)} items -> {out}; {unscored} left unscored here (no reference: "
            f"scored by the leaderboard), {empty} with no answer part (truncated or empty)"
        )
    if not lines:
        raise DatasetError(f"no samples_thinkbench_logicgame_*.jsonl under {run_dir}")
    return "\n".join(lines)
