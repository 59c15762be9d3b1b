"""Small machines driven by an input string (execution): a counter and a finite automaton.

A step is the machine's value (counter) or state (automaton) after reading one input letter.
"""

from __future__ import annotations

import random
from typing import Any

from lm_eval_thinkbench.logic.base import OPS_PER_LEVEL, ExecutionTaskType, State, op_sequence
from lm_eval_thinkbench.logic.registry import register

_COUNTER_RANGES = {"add": (1, 9), "sub": (1, 6), "mul": (2, 3), "set": (0, 9)}
_COUNTER_CAP = {
    "en": "After every letter's rule: if the value is greater than {0}, subtract {0}.",
    "zh": "每执行完一个字母的规则后：如果数值大于 {0}，就减去 {0}。",
}
_COUNTER_HEAD = {
    "en": "A counter starts at {v}. Each input letter changes it:\n{rules}\nInput: {inp}\n"
    "Write every value as a plain integer.",
    "zh": "一个计数器的初始值是 {v}。每个输入字母这样改变它：\n{rules}\n输入：{inp}\n"
    "每个数值都写成普通整数。",
}
_COUNTER_TEXT = {
    "add": {"en": "{0}: add {1}", "zh": "{0}：加 {1}"},
    "sub": {"en": "{0}: subtract {1}", "zh": "{0}：减 {1}"},
    "mul": {"en": "{0}: multiply by {1}", "zh": "{0}：乘以 {1}"},
    "set": {"en": "{0}: set the value to {1}", "zh": "{0}：把数值设为 {1}"},
}
_COUNTER_FLOOR = {
    "en": "Then, if the value is negative, it becomes 0.",
    "zh": "然后，如果数值为负，就变为 0。",
}


@register
class Counter(ExecutionTaskType):
    """Each input letter has its own update rule; levels 2 and 3 add a wrap and a floor rule."""

    family, name = "machines", "counter"
    EVENTS = ("a", "b", "c", "d")

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        events = op_sequence(rng, level, self.EVENTS)
        rules = {}
        for e in sorted(set(events)):
            kind = rng.choice(sorted(_COUNTER_RANGES))
            rules[e] = [kind, rng.randint(*_COUNTER_RANGES[kind])]
        return {
            "start": rng.randint(0, 9),
            "rules": rules,
            "cap": rng.choice((20, 30, 50)) if level >= 2 else None,
            "floor": level >= 3,
            "input": events,
        }

    def run(self, state: State) -> list[str]:
        value, out = state["start"], []
        for e in state["input"]:
            kind, k = state["rules"][e]
            value = {"add": value + k, "sub": value - k, "mul": value * k, "set": k}[kind]
            if state["cap"] is not None and value > state["cap"]:
                value -= state["cap"]
            if state["floor"] and value < 0:
                value = 0
            out.append(str(value))
        return out

    def describe(self, state: State, lang: str) -> str:
        lines = [
            f"- {_COUNTER_TEXT[r[0]][lang].format(e, r[1])}"
            for e, r in sorted(state["rules"].items())
        ]
        if state["cap"] is not None:
            lines.append(f"- {_COUNTER_CAP[lang].format(state['cap'])}")
        if state["floor"]:
            lines.append(f"- {_COUNTER_FLOOR[lang]}")
        return _COUNTER_HEAD[lang].format(
            v=state["start"], rules="\n".join(lines), inp=" ".join(state["input"])
        )


_AUTOMATON_HEAD = {
    "en": "A machine has states {states} and starts in S0. Transitions:\n{table}\n"
    "Input: {inp}\nWrite every state like S1.",
    "zh": "一个状态机有状态 {states}，初始状态是 S0。转移规则：\n{table}\n输入：{inp}\n"
    "每个状态都写成 S1 这样的形式。",
}
_AUTOMATON_ROW = {
    "en": "- in S{0}: a -> S{1}, b -> S{2}",
    "zh": "- 在 S{0}：读到 a 转到 S{1}，读到 b 转到 S{2}",
}


@register
class Automaton(ExecutionTaskType):
    """A deterministic finite automaton over {a, b}; more states at higher levels."""

    family, name = "machines", "automaton"
    STATES = (2, 2, 3, 4)

    def make(self, rng: random.Random, level: int) -> dict[str, Any]:
        k = self.STATES[level]
        table = [[rng.randrange(k), rng.randrange(k)] for _ in range(k)]
        return {"table": table, "input": [rng.choice("ab") for _ in range(OPS_PER_LEVEL[level])]}

    def run(self, state: State) -> list[str]:
        s, out = 0, []
        for x in state["input"]:
            s = state["table"][s][0 if x == "a" else 1]
            out.append(f"S{s}")
        return out

    def describe(self, state: State, lang: str) -> str:
        table = state["table"]
        return _AUTOMATON_HEAD[lang].format(
            states=("、" if lang == "zh" else ", ").join(f"S{i}" for i in range(len(table))),
            table="\n".join(_AUTOMATON_ROW[lang].format(i, a, b) for i, (a, b) in enumerate(table)),
            inp=" ".join(state["input"]),
        )
