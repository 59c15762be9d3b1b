"""String operations (execution): explicit edits, and rearrangements of distinct letters.

Positions count from 1 and refer to the string as it is when the operation runs; a step is the
string after one operation, in capital letters.
"""

from __future__ import annotations

import random
import string
from typing import Any

from lm_eval_thinkbench.logic.base import ExecutionTaskType, State, numbered, op_sequence
from lm_eval_thinkbench.logic.registry import register

LETTERS = string.ascii_uppercase

_HEAD = {
    "en": "Start with the string {word}. Apply these operations in order; positions count from 1 "
    "at the left, in the string as it is when the operation is applied.\n{ops}\n"
    "Write every string in capital letters without spaces.",
    "zh": "初始字符串是 {word}。按顺序执行下列操作；位置从左边第 1 个字母开始计数，"
    "以执行该操作时的字符串为准。\n{ops}\n所有字符串都用大写字母书写，不加空格。",
}
_EDIT = {
    "insert": {
        "en": "Insert {1} at position {0}, so that it becomes letter number {0}.",
        "zh": "在第 {0} 位插入 {1}（插入后它是第 {0} 个字母）。",
    },
    "delete": {"en": "Delete the letter at position {0}.", "zh": "删除第 {0} 位的字母。"},
    "duplicate": {
        "en": "Duplicate the letter at position {0} (write it twice in a row).",
        "zh": "把第 {0} 位的字母重复一次（连写两遍）。",
    },
    "replace": {
        "en": "Replace the letter at position {0} with {1}.",
        "zh": "把第 {0} 位的字母替换为 {1}。",
    },
}
_REARRANGE = {
    "reverse": {"en": "Reverse the whole string.", "zh": "把整个字符串倒序。"},
    "rotate_left": {
        "en": "Rotate left by {0}: move the first {0} letter(s) to the end.",
        "zh": "循环左移 {0} 位：把开头的 {0} 个字母移到末尾。",
    },
    "rotate_right": {
        "en": "Rotate right by {0}: move the last {0} letter(s) to the front.",
        "zh": "循环右移 {0} 位：把末尾的 {0} 个字母移到开头。",
    },
    "swap": {
        "en": "Swap the letters at positions {0} and {1}.",
        "zh": "交换第 {0} 位和第 {1} 位的字母。",
    },
    "reverse_range": {
        "en": "Reverse the letters from position {0} to position {1} (inclusive).",
        "zh": "把第 {0} 位到第 {1} 位（含两端）的字母倒序。",
    },
}


def _describe(ops_text: dict[str, dict[str, str]], state: State, lang: str) -> str:
    lines = [ops_text[op[0]][lang].format(*op[1:]) for op in state["ops"]]
    return _HEAD[lang].format(word=state["word"], ops=numbered(lines))


@register
class Edit(ExecutionTaskType):
    family, name = "strings", "edit"
    KINDS = tuple(_EDIT)

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        word = "".join(rng.choice(LETTERS) for _ in range(rng.randint(4, 6)))
        kinds = op_sequence(rng, level, self.KINDS)
        length, ops = len(word), []
        for kind in kinds:
            if kind == "delete" and length < 3:  # never shrink below two letters
                kind = next(k for k in kinds if k != "delete")
            if kind == "insert":
                ops.append(["insert", rng.randint(1, length + 1), rng.choice(LETTERS)])
                length += 1
            elif kind == "delete":
                ops.append(["delete", rng.randint(1, length)])
                length -= 1
            elif kind == "duplicate":
                ops.append(["duplicate", rng.randint(1, length)])
                length += 1
            else:
                ops.append(["replace", rng.randint(1, length), rng.choice(LETTERS)])
        return {"word": word, "ops": ops}

    def run(self, state: State) -> list[str]:
        word, out = state["word"], []
        for op in state["ops"]:
            i = op[1] - 1
            if op[0] == "insert":
                word = word[:i] + op[2] + word[i:]
            elif op[0] == "delete":
                word = word[:i] + word[i + 1 :]
            elif op[0] == "duplicate":
                word = word[: i + 1] + word[i:]
            else:
                word = word[:i] + op[2] + word[i + 1 :]
            out.append(word)
        return out

    def describe(self, state: State, lang: str) -> str:
        return _describe(_EDIT, state, lang)


@register
class Rearrange(ExecutionTaskType):
    family, name = "strings", "rearrange"
    KINDS = tuple(_REARRANGE)

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        # Distinct letters, so every operation visibly changes the string.
        n = rng.randint(5, 7)
        word = "".join(rng.sample(LETTERS, n))
        ops: list[list[Any]] = []
        for kind in op_sequence(rng, level, self.KINDS):
            if kind == "reverse":
                ops.append(["reverse"])
            elif kind in ("rotate_left", "rotate_right"):
                ops.append([kind, rng.randint(1, n - 1)])
            elif kind == "swap":
                ops.append(["swap", *sorted(rng.sample(range(1, n + 1), 2))])
            else:
                i = rng.randint(1, n - 2)
                ops.append(["reverse_range", i, rng.randint(i + 2, n)])
        return {"word": word, "ops": ops}

    def run(self, state: State) -> list[str]:
        word, out = state["word"], []
        for op in state["ops"]:
            if op[0] == "reverse":
                word = word[::-1]
            elif op[0] == "rotate_left":
                word = word[op[1] :] + word[: op[1]]
            elif op[0] == "rotate_right":
                word = word[-op[1] :] + word[: -op[1]]
            elif op[0] == "swap":
                i, j = op[1] - 1, op[2] - 1
                chars = list(word)
                chars[i], chars[j] = chars[j], chars[i]
                word = "".join(chars)
            else:
                i, j = op[1] - 1, op[2]
                word = word[:i] + word[i:j][::-1] + word[j:]
            out.append(word)
        return out

    def describe(self, state: State, lang: str) -> str:
        return _describe(_REARRANGE, state, lang)
