"""What every rule-based subclass provides: a generator, a bilingual statement and a replayer.

A *puzzle* is language-neutral: its ``state`` (JSON-ready, everything needed to state and to
replay it), its reference ``answer`` and ``process`` (lists of strings), and for planning the
optimal plan length. Only :meth:`TaskType.describe` knows about languages, so the English and
the Chinese item share one reference by construction.

Two kinds:

* **execution**: operations applied in a given order; ``process`` is the result after each
  operation and ``answer`` the final result (read off the last step). The run is
  deterministic, so the first invalid step of a replay is the first step that differs from the
  simulation.
* **planning**: the model chooses the moves; ``answer`` is the plan (one string per move) and
  ``process`` the state after each move. The reference plan is the unique shortest one (puzzles
  with several shortest plans are rejected while generating); a replay accepts any legal plan
  that reaches the goal, and reports its length.
"""

from __future__ import annotations

import random
import sys
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from lm_eval_thinkbench.moved import forward

LANGS = ("en", "zh")
KINDS = ("execution", "planning")
LEVELS = (0, 1, 2, 3)
#: Execution: operations per item at each level (level 0 is a single step).
OPS_PER_LEVEL = (1, 2, 4, 6)
#: Planning: the range of optimal plan lengths at each level.
PLAN_LENGTHS = ((1, 1), (2, 3), (4, 6), (7, 10))
#: The item set versions, oldest first. A set version is a fixed list of subclasses (each
#: subclass declares the version it joined, :attr:`TaskType.version`): set version ``n`` holds
#: every registered subclass with ``version <= n``, so adding a subclass never changes an older
#: set, and published numbers stay reproducible by naming their set ("v1").
SET_VERSIONS = (1, 2)
#: The newest set version: what tasks and the CLI use unless told otherwise.
LOGIC_SET_VERSION = SET_VERSIONS[-1]
#: Set version 1 is frozen: exactly these 15 subclasses (the pinned SHA-256 of its frozen set
#: in the tests depends on it).
V1_SUBCLASSES = frozenset(
    {
        "board/merge",
        "cipher/shift",
        "grid/walk",
        "machines/automaton",
        "machines/counter",
        "matrix/transform",
        "operators/custom",
        "strings/edit",
        "strings/rearrange",
        "blocks/stacking",
        "constraints/sudoku",
        "containers/jugs",
        "routes/maze",
        "tiles/slide",
        "towers/hanoi",
    }
)
#: Set version 2 is frozen too (pinned once its subclasses had landed): v1 and these 23, added
#: after LogicGame's categories.
V2_SUBCLASSES = V1_SUBCLASSES | frozenset(
    {
        "cards/elements",
        "cards/tiles",
        "deduction/arrange",
        "deduction/mines",
        "deduction/password",
        "equations/letters",
        "equations/target",
        "games/lights",
        "games/reversi",
        "latin/cages",
        "latin/letters",
        "matrix/pool",
        "matrix/prune",
        "matrix/squares",
        "placement/picks",
        "placement/queens",
        "recipes/blocks",
        "recipes/exchange",
        "selfref/choice",
        "strings/editor",
        "strings/insert",
        "strings/runs",
        "strings/split",
    }
)
#: The frozen set versions and their members. A subclass added now joins the next version
#: (declare ``version = 3`` and add 3 to ``SET_VERSIONS``); registering it under a frozen one
#: fails, since that would change a set whose numbers are published.
FROZEN_SETS = {1: V1_SUBCLASSES, 2: V2_SUBCLASSES}

State = Mapping[str, Any]
#: One step of a model's or a reference's process: a string, or a list of strings (LogicGame's
#: password-cracking references list the candidates left after each clue).
Step = str | list[str]

# Look-alikes that NFKC keeps apart but models type interchangeably.
_LOOKALIKES = str.maketrans({"→": "->", "−": "-", "–": "-", "—": "-"})


def step_text(step: Step) -> str:
    """A step as one string: a list step as its elements in brackets, comma-separated
    (``["1", "3"]`` -> ``"[1,3]"``), so that every comparison sees strings.

    After :func:`canon` a list step equals the same elements written as one string
    (``"[1, 3]"``): the light normalisation does not tell the two spellings apart."""
    return step if isinstance(step, str) else "[" + ",".join(step) + "]"


def canon(text: str) -> str:
    """The light normalisation every comparison uses: NFKC, arrows and dashes to ASCII,
    case-folded, all whitespace removed.

    NFKC maps the full-width forms a Chinese reply tends to use (``（２，３）``) to ASCII; no
    answer of this suite depends on case or spacing.
    """
    return "".join(unicodedata.normalize("NFKC", text).translate(_LOOKALIKES).casefold().split())


@dataclass(frozen=True)
class Puzzle:
    state: dict[str, Any]
    answer: tuple[str, ...]
    process: tuple[str, ...]
    optimal: int | None = None


@dataclass(frozen=True)
class Replay:
    """The model's steps replayed in the simulator.

    ``first_invalid_step`` is the 0-based index of the first step that breaks a rule or
    misreports the state (``len(steps)`` when every step is legal but the run stops short of the
    goal, or leaves a state without its move); None when the whole process is valid. ``length``
    is the number of steps (planning: moves) the model gave.
    """

    first_invalid_step: int | None
    length: int

    @property
    def valid(self) -> bool:
        return self.first_invalid_step is None


class TaskType(ABC):
    """One task type, registered by ``family/name`` in :mod:`lm_eval_thinkbench.logic.registry`."""

    family: ClassVar[str]
    name: ClassVar[str]
    kind: ClassVar[str]
    #: The set version the subclass joined (see ``SET_VERSIONS``). The default, 1, is valid only
    #: for the 15 subclasses of ``V1_SUBCLASSES``; a later subclass declares its own version
    #: (2 for those of ``V2_SUBCLASSES``; 3 for one added now, see ``FROZEN_SETS``).
    version: ClassVar[int] = 1

    @property
    def key(self) -> str:
        return f"{self.family}/{self.name}"

    @abstractmethod
    def generate(self, rng: random.Random, level: int) -> Puzzle:
        """A puzzle of ``level`` drawn from ``rng`` alone."""

    @abstractmethod
    def describe(self, state: State, lang: str) -> str:
        """The problem statement (rules, start, notation) in ``lang``."""

    @abstractmethod
    def replay(self, state: State, answer: Sequence[str], process: Sequence[str] | None) -> Replay:
        """Replay a model's output; ``process`` is None for an answer-only item."""

    def answer_only(self, level: int) -> bool:
        """Whether items of ``level`` ask for the answer alone (no ``process``). Level 0 by
        default; a subclass whose level-0 items still have steps worth checking (or whose
        higher levels have none) overrides it. Each item records the choice
        (``answer_only``), and scoring reads it from there."""
        return level == 0

    def answer_correct(self, state: State, answer: Sequence[str], reference: Sequence[str]) -> bool:
        """Whether ``answer`` is right: by default it equals the reference element by element.

        A subclass whose answers have several spellings (an arithmetic expression with redundant
        brackets) checks the answer itself instead.
        """
        return answers_equal(answer, reference)


class ExecutionTaskType(TaskType):
    kind = "execution"

    @abstractmethod
    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        """The start and the operations, for ``OPS_PER_LEVEL[level]`` steps."""

    @abstractmethod
    def run(self, state: State) -> list[str]:
        """The simulation: the result after each operation."""

    def result(self, last_step: str) -> str:
        """The final answer, read off the last step (the step itself unless steps show work)."""
        return last_step

    def answer_of(self, state: State, steps: Sequence[str]) -> tuple[str, ...]:
        """The answer list: one string read off the last step, unless the answer is a tally of
        the final state that the steps do not spell out (a subclass then overrides this)."""
        return (self.result(steps[-1]),)

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        state = self.make(rng, level)
        steps = self.run(state)
        return Puzzle(state, answer=self.answer_of(state, steps), process=tuple(steps))

    def replay(self, state: State, answer: Sequence[str], process: Sequence[str] | None) -> Replay:
        """The run is deterministic: the first invalid step is the first one that differs from
        the simulation (every earlier step equals it, so it is the replay's expectation too).
        An answer-only item is replayed as its one step, the answer."""
        reference = self.run(state)
        if process is None:
            return Replay(first_mismatch(answer, self.answer_of(state, reference)), len(answer))
        return Replay(first_mismatch(process, reference), len(process))


class PlanningTaskType(TaskType):
    """Planning over hashable states; legal moves come from :meth:`successors`."""

    kind = "planning"

    @abstractmethod
    def start(self, state: State) -> Hashable: ...

    @abstractmethod
    def successors(self, state: State, node: Any) -> Iterable[tuple[str, Any]]:
        """Every legal move from ``node`` as ``(move string, next node)``."""

    @abstractmethod
    def is_goal(self, state: State, node: Any) -> bool: ...

    @abstractmethod
    def show(self, state: State, node: Any) -> str:
        """The language-neutral state string of ``node``."""

    def puzzle(self, state: dict[str, Any], plan: Sequence[tuple[str, Any]]) -> Puzzle:
        """The puzzle whose reference is ``plan`` (a list of ``(move, node after it)``)."""
        return Puzzle(
            state,
            answer=tuple(m for m, _ in plan),
            process=tuple(self.show(state, n) for _, n in plan),
            optimal=len(plan),
        )

    def replay(self, state: State, answer: Sequence[str], process: Sequence[str] | None) -> Replay:
        """Apply the ``answer`` moves one by one; each ``process`` state (if asked for) must
        match the state the move leads to. Any legal plan that ends in the goal is valid,
        whatever its length."""
        node = self.start(state)
        for i, move in enumerate(answer):
            legal = {canon(m): n for m, n in self.successors(state, node)}
            node = legal.get(canon(move))
            if node is None:
                return Replay(i, len(answer))
            if process is not None and (
                i >= len(process) or canon(process[i]) != canon(self.show(state, node))
            ):
                return Replay(i, len(answer))
        extra_states = process is not None and len(process) > len(answer)
        if extra_states or not self.is_goal(state, node):
            return Replay(len(answer), len(answer))
        return Replay(None, len(answer))


def answers_equal(answer: Sequence[str], reference: Sequence[str]) -> bool:
    """The plain answer check: equal lists, element by element, canonically."""
    return len(answer) == len(reference) and all(
        canon(a) == canon(b) for a, b in zip(answer, reference, strict=True)
    )


def first_mismatch(steps: Sequence[str], reference: Sequence[str]) -> int | None:
    """Index of the first step that differs from the reference (canonically), or None."""
    for i, (got, want) in enumerate(zip(steps, reference, strict=False)):
        if canon(got) != canon(want):
            return i
    return None if len(steps) == len(reference) else min(len(steps), len(reference))


def op_sequence(rng: random.Random, level: int, kinds: Sequence[str]) -> list[str]:
    """The operation kinds of one execution item: ``level + 1`` distinct kinds (fewer if the
    subclass has fewer), each used at least once, ``OPS_PER_LEVEL[level]`` operations in all."""
    chosen = rng.sample(list(kinds), min(level + 1, len(kinds)))
    seq = chosen + [rng.choice(chosen) for _ in range(OPS_PER_LEVEL[level] - len(chosen))]
    rng.shuffle(seq)
    return seq


def numbered(lines: Iterable[str]) -> str:
    return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, 1))


# The base classes' old names (a task type was called a subclass), for task types written
# against them: they forward, with a DeprecationWarning (docs/moved.md).
__getattr__ = forward(
    __name__,
    sys.modules[__name__],
    renamed={
        "Subclass": "TaskType",
        "ExecutionSubclass": "ExecutionTaskType",
        "PlanningSubclass": "PlanningTaskType",
    },
)
