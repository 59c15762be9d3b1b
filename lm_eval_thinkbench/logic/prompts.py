"""The prompt of an item, in its language: two worked examples, the problem, the output format.

The model is asked to reason step by step and to end with one fenced ``json`` block holding
``{"answer": [...], "process": [...]}`` (``answer`` only at level 0). The worked examples use
exactly that format, so the notation of answers and steps is shown as well as described.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from lm_eval_thinkbench.logic.base import Puzzle, TaskType

INTRO = {
    ("execution", "en"): "Apply the rules exactly as stated. Two solved examples of the same kind "
    "come first.",
    ("execution", "zh"): "请严格按照题目给出的规则执行。下面先给出两个同类题目的解答示例。",
    ("planning", "en"): "Plan moves that follow the rules exactly. Two solved examples of the same "
    "kind come first.",
    ("planning", "zh"): "请在遵守规则的前提下规划每一步。下面先给出两个同类题目的解答示例。",
}
EXAMPLE = {"en": "Example {k}", "zh": "示例 {k}"}
SOLUTION = {"en": "Solution:", "zh": "解答："}
PROBLEM = {"en": "Now your problem", "zh": "现在请解答你的题目"}
STEP = {
    ("execution", "en"): "Step {i}: {s}",
    ("execution", "zh"): "第 {i} 步：{s}",
    ("planning", "en"): "Move {i}: {m}, giving {s}",
    ("planning", "zh"): "第 {i} 步：{m}，得到 {s}",
}
ANSWER_IS = {
    ("execution", "en"): "the final result",
    ("execution", "zh"): "最终结果",
    ("planning", "en"): "your moves, in order",
    ("planning", "zh"): "你的每一步操作，按顺序排列",
}
PROCESS_IS = {
    ("execution", "en"): "the result after each operation",
    ("execution", "zh"): "每个操作之后的结果",
    ("planning", "en"): "the state after each move",
    ("planning", "zh"): "每一步之后的状态",
}
INSTRUCTION = {
    "en": "Reason step by step. Then end your reply with one fenced json block, like the "
    'examples:\n```json\n{shape}\n```\n"answer" is a list of strings: {answer}.{process}',
    "zh": "请逐步推理，然后像示例那样，在回答的最后给出一个 json 代码块：\n```json\n{shape}\n```\n"
    '"answer" 是字符串列表：{answer}。{process}',
}
PROCESS_LINE = {
    "en": ' "process" is a list of strings: {process}, in order.',
    "zh": '"process" 是字符串列表：按顺序列出{process}。',
}


def output_json(answer: Sequence[str], process: Sequence[str] | None) -> str:
    """The required block's content (one line, non-ASCII kept)."""
    out: dict[str, list[str]] = {"answer": list(answer)}
    if process is not None:
        out["process"] = list(process)
    return json.dumps(out, ensure_ascii=False)


def worked(sub: TaskType, puzzle: Puzzle, lang: str, answer_only: bool) -> str:
    """A worked solution: every step, then the block the model must write."""
    key = (sub.kind, lang)
    if sub.kind == "execution":
        lines = [STEP[key].format(i=i, s=s) for i, s in enumerate(puzzle.process, 1)]
    else:
        pairs = zip(puzzle.answer, puzzle.process, strict=True)
        lines = [STEP[key].format(i=i, m=m, s=s) for i, (m, s) in enumerate(pairs, 1)]
    block = output_json(puzzle.answer, None if answer_only else puzzle.process)
    return "\n".join([SOLUTION[lang], *lines, f"```json\n{block}\n```"])


def render(
    sub: TaskType, puzzle: Puzzle, examples: Sequence[Puzzle], lang: str, answer_only: bool
) -> str:
    key = (sub.kind, lang)
    parts = [INTRO[key]]
    for k, ex in enumerate(examples, 1):
        parts.append(
            f"{EXAMPLE[lang].format(k=k)}\n{sub.describe(ex.state, lang)}\n"
            f"{worked(sub, ex, lang, answer_only)}"
        )
    shape = '{"answer": [...]}' if answer_only else '{"answer": [...], "process": [...]}'
    process = "" if answer_only else PROCESS_LINE[lang].format(process=PROCESS_IS[key])
    instruction = INSTRUCTION[lang].format(shape=shape, answer=ANSWER_IS[key], process=process)
    parts.append(f"{PROBLEM[lang]}\n{sub.describe(puzzle.state, lang)}\n\n{instruction}")
    return "\n\n".join(parts)
