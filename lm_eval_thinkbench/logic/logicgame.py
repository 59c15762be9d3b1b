"""LogicGame's own items (the published benchmark this suite follows), read as they are released.

A release row (``{en,zh}_dev_10.jsonl``, ``{en,zh}_all_304.jsonl``) has ``qid``, ``contexts``
(a list holding one string: rules, question and output instructions), ``level`` (0-3),
``category`` (a Chinese category name, in both languages), and in the dev sets ``reference``
(``answer`` and, unless the item is answer-only, ``process``; a JSON object or its text) and
``examples``. :func:`logicgame_doc` turns a row into a harness document:

* the prompt is the item's ``contexts``, unchanged (its strings joined by newlines; every
  release row has one). ``examples`` is kept in the document but not prompted: the
  leaderboard (Codabench) runs the whole sets, whose rows have none, on ``contexts`` alone;
* an item is answer-only exactly when its reference has no ``process``, whatever its level
  (level-0 string synthesis asks for a process, level-0 counting does not);
* a row without ``reference`` (the whole sets) is *unscored*: it is run and exported for a
  submission (:mod:`lm_eval_thinkbench.logic.logicgame_files`), and counted, never scored.

:data:`CATEGORIES` maps the 31 categories to this suite's subclasses that cover each in kind.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lm_eval_thinkbench.datafiles import DatasetError
from lm_eval_thinkbench.logic.base import LEVELS
from lm_eval_thinkbench.logic.score import Reference

#: The release these files come from (Hypatiaalegra/LogicGame-Data), pinned.
RELEASE_REPO = "Hypatiaalegra/LogicGame-Data"
RELEASE_COMMIT = "4884edb"
SPLITS = {"dev": "dev_10", "all": "all_304"}
FIELDS = ("qid", "contexts", "level", "category")


@dataclass(frozen=True)
class Category:
    """One LogicGame category: its Chinese name (the data's ``category``), an English name, and
    the registered subclasses (``family/name``) that cover it in kind."""

    zh: str
    en: str
    subclasses: tuple[str, ...]


CATEGORIES: tuple[Category, ...] = (
    Category("字符查找", "character search (letter shift ciphers)", ("cipher/shift",)),
    Category("统计计数", "statistical counting", ("strings/runs", "machines/counter")),
    Category("字符串插入", "string insertion", ("strings/insert",)),
    Category("字符串合成", "string (block) synthesis", ("recipes/blocks",)),
    Category("字符串删改", "string deletion and modification", ("strings/edit",)),
    Category("字符串重排", "string rearrangement", ("strings/rearrange",)),
    Category(
        "字符串处理", "string processing (editor commands)", ("strings/editor", "strings/edit")
    ),
    Category("字符串分割", "string splitting", ("strings/split",)),
    Category("新运算符计算", "new operator calculation", ("operators/custom",)),
    Category("逻辑等式", "letter equations under inequalities", ("equations/letters",)),
    Category("组合计算", "combination calculation (target arithmetic)", ("equations/target",)),
    Category("矩阵变换", "matrix transformation", ("matrix/transform",)),
    Category("元素操作", "element operations on matrices", ("matrix/prune",)),
    Category("模式识别", "pattern recognition in a character grid", ("matrix/squares",)),
    Category("路径移动", "path movement", ("grid/walk",)),
    Category("池化", "max pooling", ("matrix/pool",)),
    Category("逻辑拼图", "logic puzzle under sum limits", ("placement/picks",)),
    Category("数独", "Sudoku", ("constraints/sudoku",)),
    Category("运算规则数独", "arithmetic (cage) Sudoku", ("latin/cages",)),
    Category("字母逻辑图", "letter logic grid", ("latin/letters",)),
    Category("八皇后", "n-queens", ("placement/queens",)),
    Category("2048", "2048", ("board/merge",)),
    Category("黑白棋", "Reversi-like play", ("games/reversi",)),
    Category("单选自推理", "self-referential multiple choice", ("selfref/choice",)),
    Category("密码破译", "password cracking (Mastermind-style)", ("deduction/password",)),
    Category("扫雷", "Minesweeper", ("deduction/mines",)),
    Category("Lights out", "Lights Out", ("games/lights",)),
    Category("排列组合", "arrangements under rules", ("deduction/arrange",)),
    Category("相生相克", "five-element card duel", ("cards/elements",)),
    Category("合成拆解", "synthesis and decomposition exchanges", ("recipes/exchange",)),
    Category("麻将类", "mahjong-like hands", ("cards/tiles",)),
)
BY_ZH = {c.zh: c for c in CATEGORIES}


def release_file(lang: str, split: str) -> str:
    """The release's file name of one language and split (``dev`` or ``all``)."""
    if split not in SPLITS:
        raise ValueError(f"unknown LogicGame split {split!r}; known: {', '.join(SPLITS)}")
    return f"{lang}_{SPLITS[split]}.jsonl"


def logicgame_doc(row: Mapping[str, Any], lang: str, where: str) -> dict[str, Any]:
    """The harness document of one release row; ``where`` (file and record) names it in the
    one-line :class:`DatasetError` a malformed row raises."""
    missing = [f for f in FIELDS if f not in row]
    if missing:
        raise DatasetError(f"{where}: lacks {', '.join(missing)}; expected LogicGame fields")
    contexts = row["contexts"]
    if isinstance(contexts, str):
        contexts = [contexts]
    if not (isinstance(contexts, list) and contexts and all(isinstance(c, str) for c in contexts)):
        raise DatasetError(f"{where}: contexts is not a non-empty list of strings")
    level = row["level"]
    if isinstance(level, bool) or level not in LEVELS:
        raise DatasetError(f"{where}: level {level!r} is not one of {LEVELS}")
    reference = _reference(row.get("reference"), where)
    category = str(row["category"])
    known = BY_ZH.get(category)
    examples = row.get("examples") or []
    return {
        "qid": str(row["qid"]),
        "lang": lang,
        "level": int(level),
        "category": category,
        "category_en": known.en if known else "",
        "prompt": "\n".join(contexts),
        "examples": [str(e) for e in examples] if isinstance(examples, list) else [],
        # JSON text: a nested process does not fit one Arrow column type with flat ones.
        "reference": "" if reference is None else json.dumps(reference, ensure_ascii=False),
        "answer_only": reference is not None and "process" not in reference,
    }


def _reference(value: object, where: str) -> dict[str, Any] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise DatasetError(f"{where}: reference is not JSON ({exc})") from None
    if not isinstance(value, dict) or not _strings(value.get("answer")):
        raise DatasetError(f"{where}: reference has no 'answer' list of strings")
    process = value.get("process")
    if "process" in value and not (
        isinstance(process, list) and all(isinstance(s, str) or _strings(s) for s in process)
    ):
        raise DatasetError(f"{where}: reference 'process' is not a list of strings or lists")
    return {k: value[k] for k in ("answer", "process") if k in value}


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def reference_of(doc: Mapping[str, Any]) -> Reference | None:
    """What scoring compares a reply with; None for an unscored item. No simulator replays
    LogicGame's items, so only answers and processes are compared."""
    if not doc["reference"]:
        return None
    ref = json.loads(doc["reference"])
    return Reference(
        sub=None,
        state=None,
        answer=tuple(ref["answer"]),
        process=tuple(ref.get("process", ())),
        answer_only=bool(doc["answer_only"]),
        optimal=None,
    )
