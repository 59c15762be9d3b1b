"""A disk cache of completed judge calls: one JSON file per call, written atomically.

Why one file per entry: a run can be killed at any moment (SIGKILL included) and must resume
without repeating a completed call or reading a half-written entry. Each entry is written to a
temporary file in the same folder, flushed to disk and renamed over its final name with
``os.replace``, which is atomic on POSIX and Windows: a reader sees the whole entry or none.
Concurrent writers of the same key (two runs sharing a cache) each rename a complete file, and
either one is a valid answer. There is no index file to corrupt and no lock to leave behind.

No ``fsync``: the rename is atomic against a killed process (the data is in the page cache,
whole, before the rename), and an entry torn by a power cut fails to parse and counts as a
miss. Skipping it keeps the window between the server's last byte and the entry on disk to a
fraction of a millisecond: only a reply still in that window when the run dies is asked again.

The key is the SHA-256 of the canonical JSON of everything that decides the answer: the full
request payload (model, messages, temperature, seed, token limit) and the prompt version. The
server's address is not part of it: one model name is one judge, wherever it is served.
Only successful calls are stored; a failure is retried by the next run.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

#: Default cache folder, below ``$XDG_CACHE_HOME`` (or ``~/.cache``).
CACHE_ENV = "THINKBENCH_JUDGE_CACHE"


def default_cache_dir() -> Path:
    """``$THINKBENCH_JUDGE_CACHE``, else ``$XDG_CACHE_HOME/thinkbench/judge``."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "thinkbench" / "judge"


def cache_key(payload: dict[str, Any], prompt_version: str) -> str:
    """SHA-256 over the canonical JSON of the request payload and the prompt version."""
    canonical = json.dumps(
        {"payload": payload, "prompt_version": prompt_version},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class JudgeCache:
    """Entries live at ``root/<key[:2]>/<key>.json``; see the module docstring."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry, or None when absent or unreadable (then the call is made again
        and the entry rewritten; atomic writes make that a disk fault, not a crash)."""
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) and entry.get("key") == key else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store ``entry`` (JSON-ready) under ``key``: temp file, then atomic rename."""
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps({**entry, "key": key}, ensure_ascii=False, sort_keys=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
