"""Rules triggered by what a string contains (execution): splitting at character classes,
inserting after patterns, scoring runs (LogicGame's 字符串分割, 字符串插入, 统计计数).

Unlike ``strings/edit`` (positions given by the statement), here the model must find where each
rule applies. Every rule chosen for an item fires at least once, so a level's rule count is the
number of rules the model actually has to use.
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from itertools import groupby, pairwise
from typing import Any

from lm_eval_thinkbench.logic.base import ExecutionTaskType, State, numbered
from lm_eval_thinkbench.logic.registry import register

DIGITS, LETTERS = string.digits, string.ascii_uppercase

# ----- splitting ------------------------------------------------------------------------------

#: Cut rules on a pair of neighbours (left, right) of the given string.
SPLIT_RULES: dict[str, dict[str, str]] = {
    "letter_digit": {
        "en": "If a digit has a letter as its left neighbour, cut before the digit.",
        "zh": "如果一个数字的左边紧挨着一个字母，就在这个数字前面切开。",
    },
    "digit_letter": {
        "en": "If a letter has a digit as its left neighbour, cut before the letter.",
        "zh": "如果一个字母的左边紧挨着一个数字，就在这个字母前面切开。",
    },
    "one_digit": {
        "en": "If the digit 1 has a digit as its right neighbour, cut after the 1.",
        "zh": "如果数字 1 的右边紧挨着一个数字，就在这个 1 后面切开。",
    },
    "same": {
        "en": "If two neighbours are the same character, cut between them.",
        "zh": "如果相邻的两个字符相同，就在它们之间切开。",
    },
}
#: Splitting: string lengths and block counts per level.
SPLIT_LENGTHS = ((6, 8), (8, 11), (12, 16), (16, 22))
SPLIT_BLOCKS = ((2, 4), (3, 6), (4, 9), (6, 12))


def _cuts(rule: str, left: str, right: str) -> bool:
    if rule == "letter_digit":
        return left.isalpha() and right.isdigit()
    if rule == "digit_letter":
        return left.isdigit() and right.isalpha()
    if rule == "one_digit":
        return left == "1" and right.isdigit()
    return left == right


def split_blocks(text: str, rules: Sequence[str]) -> list[str]:
    """The blocks in the order they come off, scanning from the right end: the block after
    each cut, then the block left at the start."""
    blocks, end = [], len(text)
    for i in range(len(text) - 1, 0, -1):
        if any(_cuts(r, text[i - 1], text[i]) for r in rules):
            blocks.append(text[i:end])
            end = i
    return [*blocks, text[:end]]


_SPLIT_HEAD = {
    "en": "Split the string {text} into blocks by these rules, and by nothing else. Each rule "
    "looks at two neighbouring characters of the given string:\n{rules}\nWork from the right "
    "end to the left. A step is the block split off by one cut, in the order the cuts are met; "
    "the last step is the block left at the start. The answer lists the blocks from left to "
    "right.",
    "zh": "按照下列规则把字符串 {text} 切分成若干块，除此之外不要切分。"
    "每条规则看给定字符串中相邻的两个字符：\n"
    "{rules}\n从右往左进行。每一步写出一次切分所切下的块，按遇到切分点的先后顺序；最后一步是最左边剩下的块。"
    "答案按从左到右的顺序列出所有块。",
}


@register
class Split(ExecutionTaskType):
    family, name = "strings", "split"
    version = 2

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        while True:
            rules = sorted(rng.sample(sorted(SPLIT_RULES), level + 1), key=list(SPLIT_RULES).index)
            pool = DIGITS + LETTERS[:8]
            text = "".join(rng.choice(pool) for _ in range(rng.randint(*SPLIT_LENGTHS[level])))
            blocks = split_blocks(text, rules)
            pairs = list(pairwise(text))
            fired = all(any(_cuts(r, a, b) for a, b in pairs) for r in rules)
            lo, hi = SPLIT_BLOCKS[level]
            if fired and lo <= len(blocks) <= hi:
                return {"text": text, "rules": rules}

    def run(self, state: State) -> list[str]:
        return split_blocks(state["text"], state["rules"])

    def answer_of(self, state: State, steps: Sequence[str]) -> tuple[str, ...]:
        return tuple(reversed(steps))

    def describe(self, state: State, lang: str) -> str:
        rules = numbered(SPLIT_RULES[r][lang] for r in state["rules"])
        return _SPLIT_HEAD[lang].format(text=state["text"], rules=rules)


# ----- insertion after patterns --------------------------------------------------------------

#: Insertion: (alphabet, rule count, string length) per level.
INSERT_SHAPE = (("ABC", 1, (8, 10)), ("ABC", 3, (10, 14)), ("ABCD", 4, (14, 18)),
                ("ABCDE", 5, (18, 22)))  # fmt: skip


def insert_after(text: str, pattern: str, char: str) -> str:
    """``text`` with ``char`` inserted after the leftmost occurrence of ``pattern`` (unchanged
    when there is none)."""
    i = text.find(pattern)
    return text if i < 0 else text[: i + len(pattern)] + char + text[i + len(pattern) :]


_INSERT_HEAD = {
    "en": "Start with the string {text}. Apply these instructions once each, in order, each to "
    'the string as the previous one left it:\n{rules}\n"After the first occurrence" means '
    "after the leftmost place where the substring appears; if it does not appear, the string "
    "stays as it is. A step is the string after one instruction (also when it is unchanged).",
    "zh": "初始字符串是 {text}。按顺序各执行一次下列指令，"
    "每条指令作用于上一条指令执行后的字符串：\n{rules}\n"
    "“第一次出现处”指该子串最靠左出现的位置；如果子串没有出现，字符串保持不变。每一步写出执行一条指令后的字符串"
    "（没有变化时也要写）。",
}
_INSERT_RULE = {
    "en": "If the string contains {0}, insert {1} right after its first occurrence.",
    "zh": "如果字符串包含子串 {0}，就在它第一次出现处的后面插入 {1}。",
}


@register
class Insert(ExecutionTaskType):
    """At least half of the instructions change the string (an instruction that never applies
    tests nothing but the search)."""

    family, name = "strings", "insert"
    version = 2

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        alphabet, count, length = INSERT_SHAPE[level]
        while True:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(*length)))
            rules = []
            for _ in range(count):
                pattern = "".join(rng.choice(alphabet) for _ in range(3))
                rules.append([pattern, rng.choice(alphabet)])
            steps = self.run({"text": text, "rules": rules})
            changed = sum(a != b for a, b in zip([text, *steps], steps, strict=False))
            if len({p for p, _ in rules}) == count and 2 * changed >= count and changed:
                return {"text": text, "rules": rules}

    def run(self, state: State) -> list[str]:
        text, out = state["text"], []
        for pattern, char in state["rules"]:
            text = insert_after(text, pattern, char)
            out.append(text)
        return out

    def describe(self, state: State, lang: str) -> str:
        rules = numbered(_INSERT_RULE[lang].format(p, c) for p, c in state["rules"])
        return _INSERT_HEAD[lang].format(text=state["text"], rules=rules)


# ----- scoring runs ---------------------------------------------------------------------------

#: Runs: (letters with a score, alphabet, string length) per level.
RUN_SHAPE = ((1, "AB", (6, 9)), (3, "ABCD", (10, 14)), (4, "ABCDE", (14, 20)),
             (6, "ABCDEF", (20, 28)))  # fmt: skip
RUN_STEPS = ((1, 3), (2, 5), (3, 7), (5, 10))

_RUN_HEAD = {
    "en": "The score starts at 0. Read the string {text} from left to right. Whenever a run of "
    "two or more equal letters ends (a maximal run: the letters around it differ), add that "
    "letter's points:\n{rules}\nRuns of other letters, and single letters, score nothing. A "
    "step is one scoring run, written as the run, a colon and the total after it, e.g. "
    "AAA:3. The answer is the final total.",
    "zh": "初始分数为 0。从左到右读字符串 {text}。每当一段由两个或更多相同字母组成的连续段结束时"
    "（最长连续段：两边的字母都不同），就加上该字母对应的分数：\n{rules}\n其他字母的连续段以及单个字母不计分。"
    "每一步写出一个计分的连续段，格式为该连续段、冒号和加分后的总分，例如 AAA:3。"
    "答案是最后的总分。",
}
_RUN_RULE = {"en": "a run of {0}: {1} point(s)", "zh": "{0} 的连续段：{1} 分"}


@register
class Runs(ExecutionTaskType):
    family, name = "strings", "runs"
    version = 2

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        scored, alphabet, length = RUN_SHAPE[level]
        points = {c: rng.randint(1, 6) for c in rng.sample(alphabet, scored)}
        while True:
            text, n = "", rng.randint(*length)
            while len(text) < n:  # runs of 1-4 letters, so that runs are common
                text += rng.choice(alphabet) * rng.choice((1, 1, 2, 3, 4))
            state = {"text": text[:n], "points": dict(sorted(points.items()))}
            steps = self.run(state)
            used = {s.split(":")[0][0] for s in steps}
            lo, hi = RUN_STEPS[level]
            if lo <= len(steps) <= hi and used == set(points):
                return state

    def run(self, state: State) -> list[str]:
        total, out = 0, []
        for letter, group in groupby(state["text"]):
            run = "".join(group)
            if len(run) >= 2 and letter in state["points"]:
                total += state["points"][letter]
                out.append(f"{run}:{total}")
        return out

    def result(self, last_step: str) -> str:
        return last_step.rsplit(":", 1)[1]

    def describe(self, state: State, lang: str) -> str:
        rules = "\n".join(f"- {_RUN_RULE[lang].format(c, p)}" for c, p in state["points"].items())
        return _RUN_HEAD[lang].format(text=state["text"], rules=rules)
