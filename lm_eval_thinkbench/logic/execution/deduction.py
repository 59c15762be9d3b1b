"""Deduction from conditions read in order (execution): after each condition, what is known.

LogicGame's arrangement and password-cracking puzzles share one shape: a space of candidates
(the orders of some books, the codes of a lock), conditions that each remove candidates, and a
process that writes, after each condition, every position on which all remaining candidates
agree (``*`` where they do not). The answer is the one candidate left after the last condition;
generation keeps only puzzles where exactly one is left and every condition removes some, so
the process is a pure function of the conditions and each step is checkable. Minesweeper is
the same idea over mine placements: after each round of numbers, the mines that every fitting
placement shares.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Sequence
from typing import Any

from lm_eval_thinkbench.logic.base import OPS_PER_LEVEL, ExecutionTaskType, State, numbered
from lm_eval_thinkbench.logic.registry import register

UNKNOWN = "*"
Test = Callable[[str], bool]


def known_mask(candidates: Sequence[str]) -> str:
    """Each position's symbol where every candidate has the same one, else ``*``."""
    return "".join(
        col[0] if all(c == col[0] for c in col) else UNKNOWN
        for col in zip(*candidates, strict=True)
    )


def masks(space: Sequence[str], tests: Sequence[Test]) -> list[str]:
    """The known mask after each test is applied to the surviving candidates."""
    out, alive = [], list(space)
    for test in tests:
        alive = [c for c in alive if test(c)]
        out.append(known_mask(alive) if alive else "")
    return out


def chain(
    rng: random.Random,
    space: Sequence[str],
    secret: str,
    steps: int,
    draw: Callable[[random.Random], tuple[Any, Test]],
    tries: int = 12,
) -> list[Any] | None:
    """``steps`` conditions drawn one at a time (``draw`` gives a condition that ``secret``
    meets, and its test), each removing a candidate, the last one leaving ``secret`` alone and
    no earlier one; None when a step finds no such condition in ``tries`` draws.

    Building the chain step by step (rather than drawing whole chains until one works) keeps
    generation fast where the space is large.
    """
    alive, out = list(space), []
    for step in range(steps):
        last = step == steps - 1
        for _ in range(tries):
            cond, test = draw(rng)
            kept = [c for c in alive if test(c)]
            if len(kept) < len(alive) and (kept == [secret] if last else len(kept) > 1):
                alive = kept
                out.append(cond)
                break
        else:
            return None
    return out


# ----- arrangements under rules (排列组合) ------------------------------------------------------

BOOKS = "ABCDEF"
#: Condition kinds by the level that introduces them (level n uses kinds 0..n).
ARRANGE_KINDS = (("at", "not_at"), ("left_of",), ("adjacent", "apart"), ("right_after", "not_end"))


def arrange_holds(cond: Sequence[Any], order: str) -> bool:
    """Whether shelf ``order`` (books by position) satisfies one condition."""
    kind, x = cond[0], cond[1]
    px = order.index(x)
    if kind == "at":
        return px == cond[2] - 1
    if kind == "not_at":
        return px != cond[2] - 1
    if kind == "not_end":
        return 0 < px < len(order) - 1
    py = order.index(cond[2])
    if kind == "left_of":
        return px < py
    if kind == "adjacent":
        return abs(px - py) == 1
    if kind == "apart":
        return abs(px - py) > 1
    if kind == "right_after":
        return px == py + 1
    raise ValueError(f"unknown arrangement condition {kind!r}")


_ARRANGE_TEXT = {
    "at": {"en": "Book {x} is in position {p}.", "zh": "书 {x} 放在位置 {p}。"},
    "not_at": {"en": "Book {x} is not in position {p}.", "zh": "书 {x} 不放在位置 {p}。"},
    "left_of": {
        "en": "Book {x} is somewhere to the left of book {y}.",
        "zh": "书 {x} 在书 {y} 左边（不一定相邻）。",
    },
    "adjacent": {"en": "Books {x} and {y} are next to each other.", "zh": "书 {x} 和书 {y} 相邻。"},
    "apart": {
        "en": "Books {x} and {y} are not next to each other.",
        "zh": "书 {x} 和书 {y} 不相邻。",
    },
    "right_after": {
        "en": "Book {x} is immediately to the right of book {y}.",
        "zh": "书 {x} 紧挨在书 {y} 的右边。",
    },
    "not_end": {
        "en": "Book {x} is at neither end of the shelf.",
        "zh": "书 {x} 不在书架的两端。",
    },
}

_ARRANGE_HEAD = {
    "en": "{n} books ({books}) go on a shelf with positions 1 to {n} from left to right, one book "
    "per position. Conditions, to be read in this order:\n{conds}\nAfter each condition, write "
    "the shelf as far as it is known from the conditions so far: the book in each position from "
    "left to right, * where the position is not yet determined (e.g. *B*). Exactly one "
    "arrangement meets all the conditions.",
    "zh": "{n} 本书（{books}）放到书架上，位置从左到右为 1 到 {n}，每个位置放一本。"
    "按顺序阅读下列条件：\n{conds}\n每读完一个条件，写出根据到目前为止的条件能确定的书架：从左到右"
    "写出每个位置的书，尚不能确定的位置写 *（例如 *B*）。满足全部条件的排法恰好只有一种。",
}


@register
class Arrange(ExecutionTaskType):
    family, name, version = "deduction", "arrange", 2
    #: Books per level.
    BOOKS_PER_LEVEL = (2, 3, 4, 5)

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        n = self.BOOKS_PER_LEVEL[level]
        books = BOOKS[:n]
        space = ["".join(p) for p in itertools.permutations(books)]
        kinds = [k for group in ARRANGE_KINDS[: level + 1] for k in group]
        while True:
            secret = "".join(rng.sample(books, n))
            draw = functools.partial(self._draw, kinds, secret)
            conds = chain(rng, space, secret, OPS_PER_LEVEL[level], draw)
            if conds is not None:
                return {"books": books, "conds": conds}

    @classmethod
    def _draw(cls, kinds: list[str], secret: str, rng: random.Random) -> tuple[Any, Test]:
        cond = cls._condition(rng, rng.choice(kinds), secret)
        return cond, functools.partial(arrange_holds, cond)

    @staticmethod
    def _condition(rng: random.Random, kind: str, secret: str) -> list[Any]:
        """A condition of ``kind`` that ``secret`` satisfies."""
        n = len(secret)
        x, y = rng.sample(secret, 2)
        px, py = secret.index(x) + 1, secret.index(y) + 1
        if kind == "at":
            return [kind, x, px]
        if kind == "not_at":
            return [kind, x, rng.choice([p for p in range(1, n + 1) if p != px])]
        if kind == "not_end":  # (introduced at a level with at least three books)
            return [kind, rng.choice(secret[1:-1])]
        if kind == "left_of":
            return [kind, x, y] if px < py else [kind, y, x]
        if kind in ("adjacent", "apart"):
            return ["adjacent" if abs(px - py) == 1 else "apart", x, y]
        i = rng.randrange(n - 1)
        return [kind, secret[i + 1], secret[i]]  # right_after

    def run(self, state: State) -> list[str]:
        space = ["".join(p) for p in itertools.permutations(state["books"])]
        return masks(space, [functools.partial(arrange_holds, c) for c in state["conds"]])

    def describe(self, state: State, lang: str) -> str:
        conds = numbered(
            _ARRANGE_TEXT[c[0]][lang].format(
                x=c[1], p=c[2] if len(c) > 2 else "", y=c[2] if len(c) > 2 else ""
            )
            for c in state["conds"]
        )
        sep = ", " if lang == "en" else "、"
        return _ARRANGE_HEAD[lang].format(
            n=len(state["books"]), books=sep.join(state["books"]), conds=conds
        )


# ----- password cracking (密码破译) -------------------------------------------------------------

#: Feedback classes of one guessed digit, in the order the feedback lists them.
RIGHT, MISPLACED, SMALL, LARGE = "right", "misplaced", "small", "large"
FEEDBACK = (RIGHT, MISPLACED, SMALL, LARGE)


def feedback(guess: str, code: str) -> list[int]:
    """How many guessed digits are right and in place, in the code but elsewhere, and (absent
    from the code) smaller or larger than the code's digit in their position (the order of
    ``FEEDBACK``)."""
    right = misplaced = small = 0
    for g, c in zip(guess, code, strict=True):
        if g == c:
            right += 1
        elif g in code:
            misplaced += 1
        elif g < c:
            small += 1
    return [right, misplaced, small, len(code) - right - misplaced - small]


def agrees(guess: str, said: Sequence[int], code: str) -> bool:
    """Whether ``code`` would have given ``guess`` the feedback ``said``."""
    return feedback(guess, code) == list(said)


_FEEDBACK_TEXT = {
    "en": {
        RIGHT: "{k} right and in the right place",
        MISPLACED: "{k} in the code but in another place",
        SMALL: "{k} not in the code and too small",
        LARGE: "{k} not in the code and too large",
    },
    "zh": {
        RIGHT: "{k} 个数字正确且位置正确",
        MISPLACED: "{k} 个数字在密码中但位置不对",
        SMALL: "{k} 个数字不在密码中且偏小",
        LARGE: "{k} 个数字不在密码中且偏大",
    },
}

_PASSWORD_HEAD = {
    "en": "A lock's code has {k} digits, each from {lo} to {hi}, no digit used twice. Each guess "
    "below got feedback on its digits, counted by kind: a guessed digit is right and in the right "
    "place; or in the code but in another place; or not in the code at all, and then too small or "
    "too large compared with the code's digit in the same place.\n{guesses}\nRead the guesses in "
    "order. After each one, write the code as far as the guesses so far determine it, * for each "
    "digit not yet determined (e.g. 6*). Exactly one code fits all the feedback.",
    "zh": "一把锁的密码有 {k} 位数字，每位是 {lo} 到 {hi} 之间的数字，且数字互不重复。下面每次猜测"
    "都得到了按类别计数的反馈：猜的某个数字正确且位置正确；或者在密码中但位置不对；或者根本不在密"
    "码中，此时再说明它比密码同一位置上的数字偏小还是偏大。\n{guesses}\n按顺序阅读这些猜测。每读完"
    "一次猜测，写出根据到目前为止的猜测能确定的密码，尚不能确定的位写 *（例如 6*）。符合全部反馈的"
    "密码恰好只有一个。",
}


#: Level 0's claims about a number: kind -> whether it holds of ``x`` given the claim's ``arg``.
CLAIMS: dict[str, Callable[[int, int], bool]] = {
    "even": lambda x, _: x % 2 == 0,
    "greater": lambda x, k: x > k,
    "less": lambda x, k: x < k,
    "is": lambda x, k: x == k,
    "multiple": lambda x, k: x % k == 0,
}


def claim_agrees(claim: Sequence[Any], candidate: str) -> bool:
    """Whether ``candidate`` would have given the claim ``[kind, arg, right]`` its feedback."""
    kind, arg, right = claim
    return CLAIMS[kind](int(candidate), arg) == right


def candidate_lists(space: Sequence[str], tests: Sequence[Test]) -> list[str]:
    """The candidates left after each test, written as a list: ``[1,3,5]``."""
    out, alive = [], list(space)
    for test in tests:
        alive = [c for c in alive if test(c)]
        out.append("[" + ",".join(alive) + "]")
    return out


_CLAIM_TEXT = {
    "en": {
        "even": "L is even",
        "greater": "L is greater than {k}",
        "less": "L is less than {k}",
        "is": "L is {k}",
        "multiple": "L is a multiple of {k}",
    },
    "zh": {
        "even": "L 是偶数",
        "greater": "L 大于 {k}",
        "less": "L 小于 {k}",
        "is": "L 是 {k}",
        "multiple": "L 是 {k} 的倍数",
    },
}
_VERDICT = {"en": ("wrong", "right"), "zh": ("错误", "正确")}
_NUMBER_HEAD = {
    "en": "L is a whole number from {lo} to {hi} (both included). Each guess below is a claim "
    "about L, and its feedback says whether the claim is right:\n{guesses}\nRead the guesses in "
    "order. After each one, write the numbers L can still be, in increasing order, as a list "
    "like [1,3,5]. Exactly one number fits all the feedback.",
    "zh": "L 是 {lo} 到 {hi} 之间（含两端）的整数。下面每次猜测是关于 L 的一个说法，反馈说明该说法"
    "是否正确：\n{guesses}\n按顺序阅读这些猜测。每读完一次猜测，按从小到大的顺序写出 L 仍可能取的"
    "所有数，写成列表，例如 [1,3,5]。符合全部反馈的数恰好只有一个。",
}
_GUESS_LINE = {
    "en": "Guess: {claim}. Feedback: {verdict}.",
    "zh": "猜测：{claim}。反馈：{verdict}。",
}


@register
class Password(ExecutionTaskType):
    """Levels 1-3: a lock's code from counted feedback (LogicGame's levels 1-3). Level 0: a
    number narrowed by right/wrong claims, each step the candidates left as a list (LogicGame's
    level 0, whose reference steps are lists of strings; a reply in that nested form equals
    these steps under the step normalisation, ``base.step_text``)."""

    family, name, version = "deduction", "password", 2
    #: Code length and largest digit per level (level 0: the number game).
    DIGITS_PER_LEVEL = (0, 2, 3, 3)
    TOP_DIGIT = (0, 9, 7, 9)
    #: Level 0's claims (fewer than level 1's guesses would make it look harder than it is).
    CLAIMS_AT_LEVEL_0 = 2

    def answer_only(self, level: int) -> bool:
        """LogicGame's password items ask for the steps at every level, level 0 included."""
        return False

    def result(self, last_step: str) -> str:
        """The code (the last mask), or at level 0 the one number left (``[3]`` -> ``3``)."""
        return last_step.strip("[]")

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        if level == 0:
            return self._make_number(rng)
        k = self.DIGITS_PER_LEVEL[level]
        while True:
            lo, hi = 0, self.TOP_DIGIT[level]
            digits = "".join(str(d) for d in range(lo, hi + 1))
            space = ["".join(p) for p in itertools.permutations(digits, k)]
            secret = rng.choice(space)
            draw = functools.partial(self._draw, space, secret)
            rows = chain(rng, space, secret, OPS_PER_LEVEL[level], draw)
            if rows is not None:
                return {"digits": k, "lo": lo, "hi": hi, "guesses": rows}

    @staticmethod
    def _draw(space: list[str], secret: str, rng: random.Random) -> tuple[Any, Test]:
        guess = rng.choice(space)
        said = feedback(guess, secret)
        return [guess, said], functools.partial(agrees, guess, said)

    def _make_number(self, rng: random.Random) -> dict[str, Any]:
        while True:
            lo, hi = 1, rng.randint(6, 12)
            space = [str(x) for x in range(lo, hi + 1)]
            secret = rng.choice(space)
            draw = functools.partial(self._draw_claim, lo, hi, secret)
            claims = chain(rng, space, secret, self.CLAIMS_AT_LEVEL_0, draw)
            if claims is not None:
                return {"lo": lo, "hi": hi, "guesses": claims}

    @staticmethod
    def _draw_claim(lo: int, hi: int, secret: str, rng: random.Random) -> tuple[Any, Test]:
        kind = rng.choice(sorted(CLAIMS))
        if kind == "even":
            arg = 0
        elif kind == "multiple":
            arg = rng.randint(2, 4)
        else:
            arg = rng.randint(lo, hi)
        claim = [kind, arg, CLAIMS[kind](int(secret), arg)]
        return claim, functools.partial(claim_agrees, claim)

    def run(self, state: State) -> list[str]:
        if "digits" not in state:  # level 0's claims
            space = [str(x) for x in range(state["lo"], state["hi"] + 1)]
            tests = [functools.partial(claim_agrees, c) for c in state["guesses"]]
            return candidate_lists(space, tests)
        digits = "".join(str(d) for d in range(state["lo"], state["hi"] + 1))
        space = ["".join(p) for p in itertools.permutations(digits, state["digits"])]
        return masks(space, [functools.partial(agrees, g, f) for g, f in state["guesses"]])

    def describe(self, state: State, lang: str) -> str:
        if "digits" not in state:
            guesses = numbered(
                _GUESS_LINE[lang].format(
                    claim=_CLAIM_TEXT[lang][kind].format(k=arg), verdict=_VERDICT[lang][right]
                )
                for kind, arg, right in state["guesses"]
            )
            return _NUMBER_HEAD[lang].format(lo=state["lo"], hi=state["hi"], guesses=guesses)
        texts = _FEEDBACK_TEXT[lang]
        sep = "; " if lang == "en" else "；"
        word = "Guess" if lang == "en" else "猜测"
        colon = ": " if lang == "en" else "："
        guesses = numbered(
            word
            + f" {g}{colon}"
            + sep.join(texts[kind].format(k=n) for kind, n in zip(FEEDBACK, f, strict=True) if n)
            for g, f in state["guesses"]
        )
        return _PASSWORD_HEAD[lang].format(
            k=state["digits"], lo=state["lo"], hi=state["hi"], guesses=guesses
        )


# ----- Minesweeper (扫雷) -----------------------------------------------------------------------

HIDDEN = "*"


def _neighbours(n: int, r: int, c: int) -> list[int]:
    return [
        (r + dr) * n + c + dc
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if (dr, dc) != (0, 0) and 0 <= r + dr < n and 0 <= c + dc < n
    ]


def certain_mines(rows: Sequence[str]) -> list[int]:
    """The hidden cells (as ``row * n + column``) that are mines in every placement of mines on
    the hidden cells that agrees with every shown number.

    Only hidden cells next to a number are constrained; the others may or may not hold a mine,
    so they are never certain. The constrained ones are searched exhaustively, one group of
    cells linked through shared numbers at a time (backtracking, pruned by each number's
    remaining room); an inconsistent board has no certain mines.
    """
    n = len(rows)
    flat = "".join(rows)
    need = {i: int(x) for i, x in enumerate(flat) if x != HIDDEN}
    around = {i: [j for j in _neighbours(n, *divmod(i, n)) if flat[j] == HIDDEN] for i in need}
    clues_of: dict[int, list[int]] = {}
    for i in sorted(need):
        for j in around[i]:
            clues_of.setdefault(j, []).append(i)
    mine: dict[int, bool] = {}

    def fits(i: int) -> bool:
        placed = sum(mine.get(j, False) for j in around[i])
        return placed <= need[i] <= placed + sum(j not in mine for j in around[i])

    def placement(group: list[int], k: int = 0) -> set[int] | None:
        """The mines of one fitting placement of ``group`` (given ``mine`` so far), or None."""
        if k == len(group):
            return {j for j in group if mine[j]}
        cell = group[k]
        if cell in mine:
            return placement(group, k + 1) if all(fits(i) for i in clues_of[cell]) else None
        for value in (True, False):
            mine[cell] = value
            if all(fits(i) for i in clues_of[cell]):
                found = placement(group, k + 1)
                if found is not None:
                    del mine[cell]
                    return found
        del mine[cell]
        return None

    def certain(group: list[int]) -> set[int] | None:
        """Cells of ``group`` that are mines in every fitting placement (None: none fits):
        the mines of one placement, less each one that some placement leaves safe."""
        first = placement(group)
        if first is None:
            return None
        candidates = set(first)
        for cell in sorted(first):
            if cell in candidates:
                mine[cell] = False
                other = placement(group)
                del mine[cell]
                if other is not None:
                    candidates &= other
        return candidates

    if not all(fits(i) for i in need):
        return []
    out: set[int] = set()
    left = sorted(clues_of)
    while left:  # one linked group at a time, grown from its smallest cell
        group, todo = [], [left[0]]  # breadth first, so that numbers fill up early
        while todo:
            j = todo.pop(0)
            if j not in group:
                group.append(j)
                todo += [k for i in clues_of[j] for k in around[i] if k not in group]
        found = certain(group)
        if found is None:
            return []
        out |= found
        left = [j for j in left if j not in group]
    return sorted(out)


def show_mines(cells: Sequence[int], n: int) -> str:
    """Mines as ``(row,column)`` in reading order, comma-separated; ``none`` when there are none."""
    return ",".join(f"({i // n + 1},{i % n + 1})" for i in cells) or "none"


_MINES_HEAD = {
    "en": "Minesweeper on a {n}x{n} grid: some cells hold a mine. A shown number is on a cell "
    "without a mine and counts the mines in its (up to) eight neighbouring cells (up, down, "
    "left, right and the four diagonals); * is a cell not shown yet, which may or may not hold a "
    "mine. Cells are (row,column), rows 1 to {n} from the top, columns 1 to {n} from the left. "
    "The numbers are shown in rounds; each round's grid shows every number shown so far:\n"
    "{rounds}\nAfter each round, write every mine that is certain from the numbers shown so far "
    "(a cell is certain to hold a mine when it does in every placement of mines that fits all "
    "the numbers), in reading order, e.g. (1,2),(2,3), or none. After the last round every mine "
    "is certain.",
    "zh": "在 {n}x{n} 的扫雷网格中，有些格子里有地雷。显示出的数字所在格子没有地雷，数字表示它周围"
    "（最多）八个相邻格子（上、下、左、右和四个斜向）中的地雷数；* 表示尚未显示的格子，可能有地雷"
    "也可能没有。格子写成 (行,列)，行从上到下编号 1 到 {n}，列从左到右编号 1 到 {n}。数字分轮显示"
    "，每轮的网格包含到该轮为止显示的所有数字：\n{rounds}\n每一轮之后，按阅读顺序写出根据到目前为"
    "止显示的数字可以确定的所有地雷（某格在所有符合全部数字的地雷布置中都有地雷，才算确定），例如 "
    "(1,2),(2,3)，没有则写 none。最后一轮之后，所有地雷都能确定。",
}
_MINES_ROUND = {"en": "Round {i}:\n{grid}", "zh": "第 {i} 轮：\n{grid}"}


@register
class Mines(ExecutionTaskType):
    family, name, version = "deduction", "mines", 2
    SIDE = (3, 3, 4, 5)

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        """Mines at random; each round but the last shows one or two more safe cells, and the
        last as many more as it takes for every mine to be certain, which they must not be
        before it (drawn again when showing every safe cell is not enough)."""
        n, rounds = self.SIDE[level], OPS_PER_LEVEL[level]
        while True:
            mines = set(rng.sample(range(n * n), rng.randint(1, max(1, n * n // 4))))
            # Safe cells next to a mine tend to come first: their numbers say something.
            near = {j for m in mines for j in _neighbours(n, *divmod(m, n))}
            safe = [i for i in range(n * n) if i not in mines]
            safe.sort(key=lambda i: rng.random() - 0.5 * (i in near))
            shown, grids = 0, []
            for _ in range(rounds - 1):
                shown = min(len(safe), shown + rng.randint(1, 2))
                grids.append(self._grid(n, mines, safe[:shown]))
            want = sorted(mines)
            if (grids and certain_mines(grids[-1]) == want) or shown == len(safe):
                continue
            # The fewest more cells that make every mine certain (what is certain only grows
            # as cells are shown, so a bisection finds it).
            lo, hi = shown + 1, len(safe)
            if certain_mines(self._grid(n, mines, safe[:hi])) != want:
                continue
            while lo < hi:
                mid = (lo + hi) // 2
                if certain_mines(self._grid(n, mines, safe[:mid])) == want:
                    hi = mid
                else:
                    lo = mid + 1
            return {"rounds": [*grids, self._grid(n, mines, safe[:lo])]}

    @staticmethod
    def _grid(n: int, mines: set[int], shown: Sequence[int]) -> list[str]:
        flat = [HIDDEN] * (n * n)
        for i in shown:
            flat[i] = str(sum(j in mines for j in _neighbours(n, *divmod(i, n))))
        return ["".join(flat[r * n : (r + 1) * n]) for r in range(n)]

    def run(self, state: State) -> list[str]:
        n = len(state["rounds"][0])
        return [show_mines(certain_mines(rows), n) for rows in state["rounds"]]

    def describe(self, state: State, lang: str) -> str:
        rounds = "\n".join(
            _MINES_ROUND[lang].format(i=i, grid="\n".join(rows))
            for i, rows in enumerate(state["rounds"], 1)
        )
        return _MINES_HEAD[lang].format(n=len(state["rounds"][0]), rounds=rounds)
