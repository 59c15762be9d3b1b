"""Items: a puzzle and its worked examples from ``(family, subclass, level, index, seed)`` alone,
and the harness document for one language.

The examples come from seeds derived from the same key (``"example", k``), so an item is
self-contained: no other item, no data file and no process state influences it. An example is
redrawn if it repeats the item or an earlier example (small levels have few distinct puzzles).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.base import LOGIC_SET_VERSION, Puzzle
from lm_eval_thinkbench.logic.prompts import output_json, render
from lm_eval_thinkbench.logic.seeds import derive_rng

N_EXAMPLES = 2


@dataclass(frozen=True)
class Item:
    family: str
    subclass: str
    level: int
    index: int
    seed: int
    puzzle: Puzzle
    examples: tuple[Puzzle, ...]

    @property
    def id(self) -> str:
        return f"{self.family}/{self.subclass}/L{self.level}/{self.index}"


@functools.lru_cache(maxsize=8192)
def make_item(family: str, subclass: str, level: int, index: int, seed: int) -> Item:
    """The item for this key; both languages are rendered from it (hence the cache)."""
    sub = registry.get(family, subclass)
    puzzle = sub.generate(derive_rng(family, subclass, level, index, seed), level)
    examples: list[Puzzle] = []
    k = 0
    while len(examples) < N_EXAMPLES:
        ex = sub.generate(derive_rng(family, subclass, level, index, seed, "example", k), level)
        k += 1
        if all(ex.state != other.state for other in (puzzle, *examples)):
            examples.append(ex)
    return Item(family, subclass, level, index, seed, puzzle, tuple(examples))


def state_json(state: dict[str, Any]) -> str:
    """The canonical JSON of a language-neutral state (documents carry it for the replay)."""
    return json.dumps(state, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def to_doc(item: Item, lang: str, set_version: int = LOGIC_SET_VERSION) -> dict[str, Any]:
    """The harness document of ``item`` in ``lang`` (also one line of an exported set), as a
    member of set version ``set_version`` (which the document records, as a string)."""
    sub = registry.get(item.family, item.subclass)
    answer_only = sub.answer_only(item.level)
    p = item.puzzle
    return {
        "id": item.id,
        "logic_family": item.family,
        "subclass": item.subclass,
        "kind": sub.kind,
        "level": item.level,
        "index": item.index,
        "seed": item.seed,
        "set_version": str(set_version),
        "lang": lang,
        "prompt": render(sub, p, item.examples, lang, answer_only),
        "answer": list(p.answer),
        "process": list(p.process),
        "answer_only": answer_only,
        "optimal_length": p.optimal,
        "target": output_json(p.answer, None if answer_only else p.process),
        "state": state_json(p.state),
        "examples": [
            {
                "problem": sub.describe(ex.state, lang),
                "answer": list(ex.answer),
                "process": list(ex.process),
                "state": state_json(ex.state),
            }
            for ex in item.examples
        ],
    }
