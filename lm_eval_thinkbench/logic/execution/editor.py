"""A small text editor's commands (execution; LogicGame's 字符串处理).

Beyond ``strings/edit`` (one letter at a position) and ``strings/rearrange``: whole strings are
appended and inserted, the document is sliced, a range is reversed, and a search reports a
position instead of a document. A step is the editor's output after one command: the document,
or for a search the position found.
"""

from __future__ import annotations

import random
import string
from typing import Any

from lm_eval_thinkbench.logic.base import (
    OPS_PER_LEVEL,
    ExecutionTaskType,
    State,
    numbered,
    op_sequence,
)
from lm_eval_thinkbench.logic.registry import register

LOWER = string.ascii_lowercase
#: The longest document the generator lets commands build.
MAX_DOC = 18

_TEXT = {
    "append": {
        "en": "append {0}: add {0} at the end of the document.",
        "zh": "append {0}：在文档末尾加上 {0}。",
    },
    "slice": {
        "en": "slice {0} {1}: keep only the {1} character(s) starting at character {0}.",
        "zh": "slice {0} {1}：只保留从第 {0} 个字符开始的 {1} 个字符。",
    },
    "insert": {
        "en": "insert {0} {1}: insert {1} before character {0}.",
        "zh": "insert {0} {1}：在第 {0} 个字符之前插入 {1}。",
    },
    "find": {
        "en": "find {0}: output the position where {0} first occurs (-1 if it does not); the "
        "document stays as it is.",
        "zh": "find {0}：输出 {0} 第一次出现的位置（没有出现则输出 -1）；文档保持不变。",
    },
    "reverse": {
        "en": "reverse {0} {1}: reverse the order of the {1} characters starting at character {0}.",
        "zh": "reverse {0} {1}：把从第 {0} 个字符开始的 {1} 个字符倒序。",
    },
}
_HEAD = {
    "en": 'A text editor holds the document "{doc}". Characters are counted from 1 at the left, '
    "in the document as it is when a command runs. Run these commands in order:\n{ops}\nA step "
    "is the editor's output after one command: the whole document, or for find the position "
    "(e.g. 3 or -1). The answer is the output of the last command.",
    "zh": "一个文本编辑器中的文档是“{doc}”。字符从左边第 1 个开始计数，以执行命令时的文档为准。"
    "按顺序执行下列命令：\n{ops}\n每一步写出执行一条命令后编辑器的输出：整个文档，"
    "或者对 find 写出找到的位置（例如 3 或 -1）。答案是最后一条命令的输出。",
}


def edit(doc: str, op: list[Any]) -> tuple[str, str]:
    """The document after ``op`` and the editor's output."""
    kind = op[0]
    if kind == "append":
        doc = doc + op[1]
    elif kind == "slice":
        doc = doc[op[1] - 1 : op[1] - 1 + op[2]]
    elif kind == "insert":
        doc = doc[: op[1] - 1] + op[2] + doc[op[1] - 1 :]
    elif kind == "find":
        i = doc.find(op[1])
        return doc, str(i + 1 if i >= 0 else -1)
    else:
        i, n = op[1] - 1, op[2]
        doc = doc[:i] + doc[i : i + n][::-1] + doc[i + n :]
    return doc, doc


def _word(rng: random.Random, lo: int, hi: int) -> str:
    return "".join(rng.choice(LOWER) for _ in range(rng.randint(lo, hi)))


def _draw(rng: random.Random, kind: str, doc: str) -> list[Any] | None:
    """A command of ``kind`` that changes ``doc`` (find: any), or None if there is none."""
    n = len(doc)
    if kind == "append" and n <= MAX_DOC - 2:
        return ["append", _word(rng, 2, 3)]
    if kind == "insert" and n <= MAX_DOC - 2:
        return ["insert", rng.randint(1, n), _word(rng, 2, 3)]
    if kind == "slice" and n >= 4:
        start = rng.randint(1, n - 2)
        return ["slice", start, rng.randint(2, n - start)]
    if kind == "find":
        if rng.random() < 0.7:
            i = rng.randrange(n - 1)
            return ["find", doc[i : i + rng.randint(2, 3)]]
        return ["find", _word(rng, 2, 3)]
    if kind == "reverse" and n >= 3:
        start = rng.randint(1, n - 2)
        length = rng.randint(2, n - start + 1)
        part = doc[start - 1 : start - 1 + length]
        return ["reverse", start, length] if part != part[::-1] else None
    return None


@register
class Editor(ExecutionTaskType):
    family, name = "strings", "editor"
    version = 2
    KINDS = tuple(_TEXT)

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        while True:
            doc = start = _word(rng, 5, 8)
            ops = []
            for kind in op_sequence(rng, level, self.KINDS):
                op = _draw(rng, kind, doc)
                if op is None:
                    break
                ops.append(op)
                doc = edit(doc, op)[0]
            if len(ops) == OPS_PER_LEVEL[level]:
                return {"doc": start, "ops": ops}

    def run(self, state: State) -> list[str]:
        doc, out = state["doc"], []
        for op in state["ops"]:
            doc, shown = edit(doc, op)
            out.append(shown)
        return out

    def describe(self, state: State, lang: str) -> str:
        ops = numbered(_TEXT[op[0]][lang].format(*op[1:]) for op in state["ops"])
        return _HEAD[lang].format(doc=state["doc"], ops=ops)
