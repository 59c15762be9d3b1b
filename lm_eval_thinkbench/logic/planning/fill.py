"""Puzzles with one solution, filled in a fixed order: the shape the v2 constraint subclasses share.

LogicGame's grid and choice puzzles (arithmetic Sudoku, letter grids, n-queens, sum-limited
picks, self-referential questions) ask for *the* solution, so the generators keep only puzzles
with exactly one (verified by each subclass's solver) and the statement fixes the order of the
moves (reading order, or ascending numbers, or question order). At each step the only legal move
is then the solution's value for the next slot: any other value leaves the puzzle unsolvable,
which is why the replay can call it the first invalid step. The shortest plan is unique by
construction, so the planning tests' brute-force count of plans holds for these as well.
"""

from __future__ import annotations

import functools
import json
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any

from lm_eval_thinkbench.logic.base import PlanningSubclass, State

Node = tuple[Any, ...]  # the values filled so far, slot by slot


class OrderedFill(PlanningSubclass):
    """Fill ``slots`` in order with the values of the unique solution."""

    @abstractmethod
    def slots(self, state: State) -> list[Any]:
        """The open slots, in the order the statement asks them to be filled."""

    @abstractmethod
    def solve(self, state: State) -> list[Any]:
        """The unique solution's value for each slot (the solver; called once per state)."""

    @abstractmethod
    def move(self, state: State, slot: Any, value: Any) -> str:
        """The move string that puts ``value`` in ``slot``."""

    def solution(self, state: State) -> tuple[Any, ...]:
        return _cached_solution(self, json.dumps(state, sort_keys=True))

    def start(self, state: State) -> Node:
        return ()

    def successors(self, state: State, node: Node) -> Iterator[tuple[str, Node]]:
        slots = self.slots(state)
        if len(node) < len(slots):
            value = self.solution(state)[len(node)]
            yield self.move(state, slots[len(node)], value), (*node, value)

    def is_goal(self, state: State, node: Node) -> bool:
        return len(node) == len(self.slots(state))

    def plan(self, state: State) -> list[tuple[str, Node]]:
        """The reference plan: every slot in order."""
        node: Node = ()
        out = []
        for slot, value in zip(self.slots(state), self.solution(state), strict=True):
            node = (*node, value)
            out.append((self.move(state, slot, value), node))
        return out


@functools.lru_cache(maxsize=4096)
def _cached_solution(sub: OrderedFill, state_key: str) -> tuple[Any, ...]:
    """A replay asks for the solution at every step; the solver runs once per state."""
    return tuple(sub.solve(json.loads(state_key)))


def fill_cells(cells: str, slots: Sequence[int], values: Sequence[str]) -> str:
    """``cells`` with ``values`` written into the first ``len(values)`` of ``slots``."""
    out = list(cells)
    for i, v in zip(slots, values, strict=False):
        out[i] = v
    return "".join(out)
