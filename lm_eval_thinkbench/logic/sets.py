"""Item sets: the frozen sets and fresh-seed sets, their order, hash and composition.

A set is not a data file: it is regenerated from a seed and a *set version* (which subclasses
it holds, see ``base.SET_VERSIONS``). The frozen set of version ``n`` (named ``"v<n>"``) is
``FROZEN_SEED`` at that version; the tests pin the SHA-256 of each, so a change that would move
a published number cannot slip through unnoticed, and the set a number was measured on stays
loadable by name after the suite grows. Any other seed gives an unseen set of the same
composition (contamination checks).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.base import KINDS, LANGS, LEVELS, LOGIC_SET_VERSION, SET_VERSIONS
from lm_eval_thinkbench.logic.items import make_item, to_doc

FROZEN_SEED = 1
ITEMS_PER_CELL = 10  # per subclass x level x language


def parse_set_version(value: object) -> int:
    """A set version from its name (``"v1"``), number (``1``, ``"1"``) or None (the newest).

    Raises ValueError naming the known versions, so a typo in ``--metadata`` or a task YAML is
    one clear error rather than a silently different set."""
    if value is None:
        return LOGIC_SET_VERSION
    text = str(value).strip().lower().removeprefix("v")
    if text.isdigit() and int(text) in SET_VERSIONS:
        return int(text)
    names = ", ".join(f"v{v}" for v in SET_VERSIONS)
    raise ValueError(f"unknown logic set version {value!r}; known: {names}")


def generate_docs(
    seed: int = FROZEN_SEED,
    langs: Sequence[str] = LANGS,
    kinds: Sequence[str] = KINDS,
    levels: Sequence[int] = LEVELS,
    per_cell: int = ITEMS_PER_CELL,
    set_version: int = LOGIC_SET_VERSION,
    keys: Iterable[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """Documents of set version ``set_version`` in a fixed order: language, kind, level,
    subclass, index; ``keys`` (``family/name``) keeps only those subclasses, in the same order.

    An item depends on its key alone, so a subclass's items are the same in every set version
    that holds it; only the document's ``set_version`` field differs."""
    wanted = None if keys is None else set(keys)
    members = registry.subclasses(set_version=set_version)
    for key in sorted((wanted or set()) - {s.key for s in members}):
        joined = registry.get(*key.split("/", 1)).version  # KeyError naming the known ones
        raise ValueError(f"logic subclass {key} joined in set v{joined}, not in v{set_version}")
    for lang in langs:
        for kind in kinds:
            for level in levels:
                for sub in members:
                    if sub.kind != kind or (wanted is not None and sub.key not in wanted):
                        continue
                    for index in range(per_cell):
                        item = make_item(sub.family, sub.name, level, index, seed)
                        yield to_doc(item, lang, set_version)


def jsonl_line(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, sort_keys=True)


def set_sha256(docs: Iterable[dict[str, Any]]) -> str:
    """SHA-256 of the set's JSONL text (what ``export`` writes), line order included."""
    digest = hashlib.sha256()
    for doc in docs:
        digest.update((jsonl_line(doc) + "\n").encode("utf-8"))
    return digest.hexdigest()


def composition(docs: Iterable[dict[str, Any]]) -> Counter[tuple[str, str, str, int]]:
    """Document counts per (language, kind, subclass key, level)."""
    return Counter(
        (d["lang"], d["kind"], f"{d['logic_family']}/{d['subclass']}", d["level"]) for d in docs
    )
