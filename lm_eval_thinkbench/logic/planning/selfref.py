"""Self-referential multiple choice (单选自推理, planning): questions about the answers themselves.

Each question asks for a fact about the answers to all the questions (how many are B, which is
the first C, what question 3's answer is, ...), and its options are distinct values of that
fact. A way of answering is consistent when every chosen option states the truth about it; the
generator keeps only question sets with exactly one consistent way, found by checking every way
of answering at once (numpy over all ``m ** n`` answer vectors, at most 4 ** 8 here).
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from lm_eval_thinkbench.logic.base import PLAN_LENGTHS, Puzzle, State
from lm_eval_thinkbench.logic.planning.fill import OrderedFill
from lm_eval_thinkbench.logic.registry import register

LETTERS = "ABCDE"
NONE = -1  # the value of "first/next question whose answer is X" when there is none
#: Question kinds by the level that introduces them.
KINDS_BY_LEVEL = (("count",), ("answer_of",), ("first",), ("after", "distance"))
#: Options per question, and the most questions, per level.
OPTIONS = (2, 3, 4, 4)
MOST_QUESTIONS = (1, 3, 6, 8)


@functools.lru_cache(maxsize=16)
def _all_answers(n: int, m: int) -> np.ndarray:
    """Every way of answering ``n`` questions with ``m`` options: rows of option indices."""
    return np.array(list(itertools.product(range(m), repeat=n)), dtype=np.int8).reshape(-1, n)


def fact(question: list[Any], i: int, answers: np.ndarray) -> np.ndarray:
    """The value question ``i`` asks about, for every row of ``answers`` (option indices)."""
    kind = question[0]
    if kind == "count":
        return (answers == question[1]).sum(axis=1)
    if kind == "answer_of":
        return answers[:, question[1]].astype(np.int64)
    if kind == "distance":
        return np.abs(answers[:, i].astype(np.int64) - answers[:, question[1]])
    start = 0 if kind == "first" else question[1] + 1
    hits = answers[:, start:] == question[-1]
    return np.where(hits.any(axis=1), hits.argmax(axis=1) + start + 1, NONE)


def consistent(questions: list[list[Any]], options: list[list[int]], m: int) -> np.ndarray:
    """The ways of answering in which every chosen option is the true value of its fact."""
    answers = _all_answers(len(questions), m)
    ok = np.ones(len(answers), dtype=bool)
    for i, (q, opts) in enumerate(zip(questions, options, strict=True)):
        ok &= fact(q, i, answers) == np.asarray(opts)[answers[:, i]]
    return answers[ok]


def still_possible(question: list[Any], i: int, prefix: Sequence[int], n: int, said: int) -> bool:
    """Whether question ``i`` (answered in ``prefix``, the first answers of ``n``) can still
    have ``said`` as its true value, whatever the answers after the prefix: what the prefix
    decides must agree (exact once every question is answered)."""
    kind, done = question[0], len(prefix)
    if kind == "count":
        seen = sum(a == question[1] for a in prefix)
        return seen <= said <= seen + n - done
    if kind in ("answer_of", "distance"):
        k = question[1]
        if k >= done:
            return True
        return said == (prefix[k] if kind == "answer_of" else abs(prefix[i] - prefix[k]))
    start = 0 if kind == "first" else question[1] + 1
    hit = next((j for j in range(start, done) if prefix[j] == question[-1]), None)
    if hit is not None:
        return said == hit + 1
    return said == NONE or (done < n and said > max(done, start))


def _domain(question: list[Any], n: int, m: int) -> list[int]:
    """The values an option of this question may state (a count may also be one more than the
    number of questions: with a single question, 0 and 1 alone would leave no puzzle)."""
    kind = question[0]
    if kind == "count":
        return list(range(n + 2))
    if kind in ("answer_of", "distance"):
        return list(range(m))
    return [NONE, *range(1, n + 1)]


_Q = {
    "count": {
        "en": "How many of the questions have the answer {x}?",
        "zh": "有几道题的答案是 {x}？",
    },
    "answer_of": {"en": "What is the answer to question {k}?", "zh": "第 {k} 题的答案是什么？"},
    "first": {
        "en": "Which is the first question whose answer is {x}?",
        "zh": "答案是 {x} 的第一道题是第几题？",
    },
    "after": {
        "en": "Which is the first question after question {k} whose answer is {x}?",
        "zh": "第 {k} 题之后，答案是 {x} 的第一道题是第几题？",
    },
    "distance": {
        "en": "How many letters apart in the alphabet are the answers to this question and to "
        "question {k}? (A and C are 2 apart.)",
        "zh": "本题的答案与第 {k} 题的答案在字母表中相差几个字母？（A 与 C 相差 2 个。）",
    },
}
_NO_SUCH = {"en": "there is none", "zh": "没有这样的题"}
_HEAD = {
    "en": "Answer these multiple-choice questions; each has exactly one correct option. The "
    "questions are about the answers to the questions themselves (this one included): an "
    "option is correct when what it states is true of the answers you give.\n{questions}\n"
    "Exactly one way of answering all the questions is correct. Answer the questions in order, "
    "one per move; write a move as the option's letter, like B, and a state as the letters "
    "chosen so far followed by * for each question not answered yet, like BA**.",
    "zh": "回答下面的单选题，每题恰好有一个正确选项。题目问的是这些题目（包括本题）自己的答案：一"
    "个选项正确，是指它所说的内容对你给出的答案成立。\n{questions}\n所有题目的正确答法恰好只有一种"
    "。按题号顺序作答，每步回答一题；移动写成所选选项的字母，例如 B，状态写成到目前为止选出的字母"
    "，后面每道未答的题写一个 *，例如 BA**。",
}


@register
class Choice(OrderedFill):
    family, name, version = "selfref", "choice", 2

    def generate(self, rng: random.Random, level: int) -> Puzzle:
        """A random answer vector, questions of the level's kinds with the true value among
        their options (the others distinct values of the same kind); kept when no other answer
        vector is consistent."""
        m = OPTIONS[level]
        kinds = [k for group in KINDS_BY_LEVEL[: level + 1] for k in group]
        lo, hi = PLAN_LENGTHS[level]
        while True:
            n = rng.randint(lo, min(hi, MOST_QUESTIONS[level]))
            truth = [rng.randrange(m) for _ in range(n)]
            row = np.array([truth], dtype=np.int8)
            questions, options = [], []
            for i in range(n):
                kind = rng.choice([k for k in kinds if n > 1 or k == "count"])
                others = [k for k in range(n) if k != i]
                if kind in ("count", "first"):
                    q: list[Any] = [kind, rng.randrange(m)]
                elif kind in ("answer_of", "distance"):
                    q = [kind, rng.choice(others)]
                else:
                    q = [kind, rng.randrange(n - 1) if n > 1 else 0, rng.randrange(m)]
                true = int(fact(q, i, row)[0])
                wrong = rng.sample([v for v in _domain(q, n, m) if v != true], m - 1)
                opts = [*wrong[: truth[i]], true, *wrong[truth[i] :]]
                questions.append(q)
                options.append(opts)
            if len(consistent(questions, options, m)) == 1:
                state = {"m": m, "questions": questions, "options": options}
                return self.puzzle(state, self.plan(state))

    def slots(self, state: State) -> list[int]:
        return list(range(len(state["questions"])))

    def solve(self, state: State) -> list[str]:
        (row,) = consistent(state["questions"], state["options"], state["m"])
        return [LETTERS[int(x)] for x in row]

    def move(self, state: State, slot: Any, value: Any) -> str:
        return str(value)

    def candidates(self, state: State, node: Any) -> Iterator[str]:
        """Letters for the next question after which every answered question can still be
        right (so a full assignment reached this way is consistent)."""
        questions, options, n = state["questions"], state["options"], len(state["questions"])
        for letter in LETTERS[: state["m"]]:
            prefix = [LETTERS.index(x) for x in (*node, letter)]
            if all(
                still_possible(questions[i], i, prefix, n, options[i][a])
                for i, a in enumerate(prefix)
            ):
                yield letter

    def show(self, state: State, node: Any) -> str:
        return "".join(node) + "*" * (len(state["questions"]) - len(node))

    def _option(self, q: list[Any], value: int, lang: str) -> str:
        if q[0] in ("first", "after") and value == NONE:
            return _NO_SUCH[lang]
        return LETTERS[value] if q[0] == "answer_of" else str(value)

    def describe(self, state: State, lang: str) -> str:
        blocks = []
        for i, (q, opts) in enumerate(zip(state["questions"], state["options"], strict=True), 1):
            x = LETTERS[q[-1]] if q[0] in ("count", "first", "after") else ""
            k = q[1] + 1 if q[0] in ("answer_of", "distance", "after") else ""
            lines = [f"{i}. " + _Q[q[0]][lang].format(x=x, k=k)]
            lines += [f"{LETTERS[j]}. {self._option(q, v, lang)}" for j, v in enumerate(opts)]
            blocks.append("\n".join(lines))
        return _HEAD[lang].format(questions="\n\n".join(blocks))
