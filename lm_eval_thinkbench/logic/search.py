"""Breadth-first search that also counts shortest plans, for the planning generators.

A planning item is kept only if its shortest plan is unique, so the reference answer is *the*
answer. Counting shortest paths during BFS (capped at 2, which is all the check needs) decides
that in one pass; the parent pointers then give the plan when the count is 1.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

Successors = Callable[[Any], Iterable[tuple[str, Any]]]


@dataclass
class Reach:
    """Nodes reached from ``origin``: depth, number of shortest paths (capped at 2, counted as
    move sequences: two moves into the same node are two plans) and one parent edge. Nodes are
    any hashable value of the puzzle's own type, typed ``Any`` like the callers' nodes."""

    origin: Any
    depth: dict[Any, int] = field(default_factory=dict)
    count: dict[Any, int] = field(default_factory=dict)
    parent: dict[Any, tuple[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.depth[self.origin] = 0
        self.count[self.origin] = 1

    def plan_to(self, node: Any) -> list[tuple[str, Any]]:
        """``(move, node after it)`` from ``origin`` to ``node``; unique when its count is 1."""
        plan = []
        while node != self.origin:
            move, prev = self.parent[node]
            plan.append((move, node))
            node = prev
        return plan[::-1]


def _layers(reach: Reach, successors: Successors, max_depth: int) -> Iterator[list[Any]]:
    """Grow ``reach`` one BFS layer at a time; a layer is yielded once its counts are final."""
    frontier = [reach.origin]
    for depth in range(1, max_depth + 1):
        layer = []
        for node in frontier:
            paths = reach.count[node]
            for move, child in successors(node):
                seen = reach.depth.get(child)
                if seen is None:
                    reach.depth[child] = depth
                    reach.count[child] = paths
                    reach.parent[child] = (move, node)
                    layer.append(child)
                elif seen == depth:
                    reach.count[child] = min(2, reach.count[child] + paths)
        if not layer:
            return
        yield layer
        frontier = layer


def explore(origin: Hashable, successors: Successors, max_depth: int) -> Reach:
    """Everything reachable from ``origin`` within ``max_depth`` moves."""
    reach = Reach(origin)
    for _ in _layers(reach, successors, max_depth):
        pass
    return reach


def shortest_plan(
    origin: Hashable, successors: Successors, is_goal: Callable[[Any], bool], max_depth: int
) -> list[tuple[str, Any]] | None:
    """Any one shortest plan to a goal (empty when ``origin`` is one), None if out of reach."""
    if is_goal(origin):
        return []
    reach = Reach(origin)
    for layer in _layers(reach, successors, max_depth):
        for node in layer:
            if is_goal(node):
                return reach.plan_to(node)
    return None


def descend(reach: Reach, node: Any, successors: Successors) -> list[tuple[str, Any]]:
    """The plan from ``node`` to ``reach.origin`` along decreasing depth.

    For puzzles whose moves can all be undone one for one, ``explore`` from the goal gives each
    node's distance *to* the goal and its number of shortest plans; when that count is 1 this
    walk is the unique shortest plan.
    """
    plan = []
    while node != reach.origin:
        depth = reach.depth[node]
        move, node = next((m, n) for m, n in successors(node) if reach.depth.get(n) == depth - 1)
        plan.append((move, node))
    return plan
