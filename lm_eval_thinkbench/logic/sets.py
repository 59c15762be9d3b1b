"""Item sets: the frozen default set and fresh-seed sets, their order, hash and composition.

The frozen set is not a data file: it is regenerated from ``FROZEN_SEED`` by the code of
``LOGIC_SET_VERSION``, and a test pins its SHA-256 so a change cannot slip through unnoticed.
Any other seed gives an unseen set of the same composition (contamination checks).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.base import KINDS, LANGS, LEVELS
from lm_eval_thinkbench.logic.items import make_item, to_doc

FROZEN_SEED = 1
ITEMS_PER_CELL = 10  # per subclass x level x language


def generate_docs(
    seed: int = FROZEN_SEED,
    langs: Sequence[str] = LANGS,
    kinds: Sequence[str] = KINDS,
    levels: Sequence[int] = LEVELS,
    per_cell: int = ITEMS_PER_CELL,
) -> Iterator[dict[str, Any]]:
    """Documents in a fixed order: language, kind, level, subclass, index."""
    for lang in langs:
        for kind in kinds:
            for level in levels:
                for sub in registry.subclasses(kind):
                    for index in range(per_cell):
                        yield to_doc(make_item(sub.family, sub.name, level, index, seed), lang)


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
