"""Letter ciphers (execution): shifts, a keyed shift and the mirror alphabet, applied in turn."""

from __future__ import annotations

import random
import string
from typing import Any

from lm_eval_thinkbench.logic.base import ExecutionTaskType, State, numbered, op_sequence
from lm_eval_thinkbench.logic.registry import register

LETTERS = string.ascii_uppercase


def _shift(word: str, shifts: list[int]) -> str:
    return "".join(
        LETTERS[(LETTERS.index(c) + shifts[i % len(shifts)]) % 26] for i, c in enumerate(word)
    )


_OPS = {
    "forward": {
        "en": "Shift every letter {0} place(s) forward in the alphabet (after Z comes A).",
        "zh": "把每个字母在字母表中向后移 {0} 位（Z 之后接 A）。",
    },
    "back": {
        "en": "Shift every letter {0} place(s) back in the alphabet (before A comes Z).",
        "zh": "把每个字母在字母表中向前移 {0} 位（A 之前是 Z）。",
    },
    "mirror": {
        "en": "Replace every letter by its mirror in the alphabet: A<->Z, B<->Y, C<->X, and so on.",
        "zh": "把每个字母换成字母表中与它对称的字母：A<->Z，B<->Y，C<->X，依此类推。",
    },
    "keyed": {
        "en": "Shift with the key {0}, repeated as needed: the first letter moves forward by "
        "the alphabet index of the key's first letter (A=0, B=1, ...), the second letter by "
        "the key's second letter, and so on (after Z comes A).",
        "zh": "用密钥 {0}（不够长时循环使用）移动字母：第 1 个字母向后移动的位数"
        "等于密钥第 1 个字母的序号（A=0，B=1，……），第 2 个字母按密钥第 2 个字母移动，"
        "依此类推（Z 之后接 A）。",
    },
}
_HEAD = {
    "en": "Start with the word {word}. Apply these cipher operations in order:\n{ops}\n"
    "Write every word in capital letters without spaces.",
    "zh": "初始单词是 {word}。按顺序执行下列加密操作：\n{ops}\n"
    "所有单词都用大写字母书写，不加空格。",
}


@register
class Shift(ExecutionTaskType):
    family, name = "cipher", "shift"
    KINDS = tuple(_OPS)

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        word = "".join(rng.choice(LETTERS) for _ in range(rng.randint(4, 6)))
        ops: list[list[Any]] = []
        for kind in op_sequence(rng, level, self.KINDS):
            if kind in ("forward", "back"):
                ops.append([kind, rng.randint(1, 9)])
            elif kind == "mirror":
                ops.append(["mirror"])
            else:
                key = "".join(rng.choice("BCDEF") for _ in range(rng.randint(2, 3)))
                ops.append(["keyed", key])
        return {"word": word, "ops": ops}

    def run(self, state: State) -> list[str]:
        word, out = state["word"], []
        for op in state["ops"]:
            if op[0] == "forward":
                word = _shift(word, [op[1]])
            elif op[0] == "back":
                word = _shift(word, [-op[1]])
            elif op[0] == "mirror":
                word = "".join(LETTERS[25 - LETTERS.index(c)] for c in word)
            else:
                word = _shift(word, [LETTERS.index(k) for k in op[1]])
            out.append(word)
        return out

    def describe(self, state: State, lang: str) -> str:
        lines = [_OPS[op[0]][lang].format(*op[1:]) for op in state["ops"]]
        return _HEAD[lang].format(word=state["word"], ops=numbered(lines))
