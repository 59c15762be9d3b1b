"""Puzzles with one solution, filled in a fixed order: the shape the v2 constraint subclasses share.

LogicGame's grid and choice puzzles (arithmetic Sudoku, letter grids, n-queens, sum-limited
picks, self-referential questions) ask for *the* solution, so the generators keep only puzzles
with exactly one (verified by each subclass's solver) and the statement fixes the order of the
moves (reading order, or ascending numbers, or question order).

The legal moves (:meth:`OrderedFill.candidates`) are the values for the next slot that break no
stated rule given the values so far, and a goal is a full assignment that meets every rule, so
a search over the legal moves counts the solutions (the planning tests' brute-force count of
plans) and a random legal player rarely stumbles on the answer. The replay is stricter: any value
other than the solution's leaves the puzzle unsolvable, since the solution is unique and the
order fixed, so the first step that differs from the reference plan is the first invalid step.
"""

from __future__ import annotations

import functools
import json
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from lm_eval_thinkbench.logic.base import PlanningTaskType, Replay, State, canon

Node = tuple[Any, ...]  # the values filled so far, slot by slot


class OrderedFill(PlanningTaskType):
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

    @abstractmethod
    def candidates(self, state: State, node: Node) -> Iterable[Any]:
        """The values for the next slot that break no rule given the values in ``node``."""

    def satisfied(self, state: State, node: Node) -> bool:
        """Whether a full assignment meets every rule (by default the candidates already
        enforce them all)."""
        return True

    def solution(self, state: State) -> tuple[Any, ...]:
        return _cached_solution(self, json.dumps(state, sort_keys=True))

    def start(self, state: State) -> Node:
        return ()

    def successors(self, state: State, node: Node) -> Iterator[tuple[str, Node]]:
        slots = self.slots(state)
        if len(node) < len(slots):
            for value in self.candidates(state, node):
                yield self.move(state, slots[len(node)], value), (*node, value)

    def is_goal(self, state: State, node: Node) -> bool:
        return len(node) == len(self.slots(state)) and self.satisfied(state, node)

    def replay(self, state: State, answer: Sequence[str], process: Sequence[str] | None) -> Replay:
        """The first move that differs from the reference plan, or whose state is misreported,
        is the first invalid step (a run that stops short, or leaves extra states, is invalid at
        its end); the unique solution makes any other legal plan impossible."""
        plan = self.plan(state)
        for i, move in enumerate(answer):
            if i >= len(plan) or canon(move) != canon(plan[i][0]):
                return Replay(i, len(answer))
            if process is not None and (
                i >= len(process) or canon(process[i]) != canon(self.show(state, plan[i][1]))
            ):
                return Replay(i, len(answer))
        if len(answer) < len(plan) or (process is not None and len(process) > len(answer)):
            return Replay(len(answer), len(answer))
        return Replay(None, len(answer))

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
