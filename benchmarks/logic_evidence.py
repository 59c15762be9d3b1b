"""Evidence per logic subclass and level: the rules an item applies, the reference's step count,
the reference solver's score, and two naive baselines' scores.

For every registered subclass and level, over the frozen set's items (the first ``--items`` of
each cell, 10 = the whole frozen set), every figure computed by the scorer the tasks use:

* **rules**: how many rules the item's statement applies, read off its state: the distinct
  operation kinds (``ops``), conditions (``conds``, ``constraints``, ``guesses``), recipes
  (``methods``), defined operators (``defs``), scored letters (``points``), buttons, calls
  (``calls``), or the
  rules a subclass counts itself (``rules``: a number, a list, or a table plus its wrap and floor
  flags); "fixed" when the game's rules are the same at every level (planning puzzles, boards);
* **steps**: the reference's number of steps (planning: the optimal plan length, unique by
  construction);
* **reference**: AP-Acc of the reference itself sent back in the required block (1.00 by
  construction; anything else is a bug);
* **echo example**: the reply copies the prompt's first worked example's block (a model that
  echoes its input): A-Acc, P-Acc and AP-Acc;
* **random legal** (planning): as many random legal moves as the optimal plan has, with their
  states: A-Acc, the share whose replay is valid (reaches the goal), and the mean number of
  legal moves per step. Legality is the simulator's: the ordered-fill puzzles (``latin/*``,
  ``placement/*``, ``selfref/choice``) admit every value that breaks no stated rule, so the walk
  is a real baseline there except where every step is forced (one legal move per step: the walk
  is the solution); Sudoku admits any empty cell but only its solution digit, so the walk
  knows the answer. The table marks both as an oracle; the echo column is their naive
  baseline.

Writes the Markdown table (``--out``, default ``docs/logic_evidence.md``) and prints it.

    python benchmarks/logic_evidence.py [--items 10] [--out docs/logic_evidence.md]
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.base import LEVELS, PlanningTaskType, TaskType
from lm_eval_thinkbench.logic.items import make_item
from lm_eval_thinkbench.logic.prompts import output_json
from lm_eval_thinkbench.logic.score import Reference, score_output
from lm_eval_thinkbench.logic.seeds import derive_rng
from lm_eval_thinkbench.logic.sets import FROZEN_SEED

COMMAND = "python benchmarks/logic_evidence.py"
_COUNTED = ("conds", "constraints", "guesses", "methods", "defs", "points", "buttons", "calls")


def rule_count(state: Mapping[str, Any]) -> int | None:
    """The rules one item applies, read off its state (None: the game's fixed rules)."""
    if "ops" in state:
        return len({op[0] for op in state["ops"]})
    rules = state.get("rules")
    if isinstance(rules, bool):
        return None
    if isinstance(rules, int):
        return rules
    if isinstance(rules, list):
        return len(rules)
    if isinstance(rules, dict):
        return len(rules) + (state.get("cap") is not None) + bool(state.get("floor"))
    for key in _COUNTED:
        if isinstance(state.get(key), list | dict):
            return len(state[key])
    return None


def _block(answer: Sequence[str], process: Sequence[str], answer_only: bool) -> str:
    return f"```json\n{output_json(answer, None if answer_only else process)}\n```"


def random_legal(
    sub: PlanningTaskType, state: Mapping[str, Any], moves: int, rng: random.Random
) -> tuple[list[str], list[str], float]:
    """A random walk of up to ``moves`` legal moves (fewer where none is legal): the moves,
    their states, and the mean number of legal moves there were to choose from."""
    node = sub.start(state)
    answer: list[str] = []
    process: list[str] = []
    choices: list[int] = []
    for _ in range(moves):
        legal = list(sub.successors(state, node))
        if not legal:
            break
        choices.append(len(legal))
        move, node = rng.choice(legal)
        answer.append(move)
        process.append(sub.show(state, node))
    return answer, process, fmean(choices) if choices else 0.0


def cell(sub: TaskType, level: int, items: int) -> dict[str, Any]:
    """The figures of one subclass and level."""
    rows: list[dict[str, Any]] = []
    answer_only = sub.answer_only(level)
    for index in range(items):
        item = make_item(sub.family, sub.name, level, index, FROZEN_SEED)
        p, example = item.puzzle, item.examples[0]
        ref = Reference(sub, p.state, p.answer, p.process, answer_only, p.optimal)
        perfect = score_output(ref, _block(p.answer, p.process, answer_only))
        echo = score_output(ref, _block(example.answer, example.process, answer_only))
        row = {
            "rules": rule_count(p.state),
            "steps": p.optimal if p.optimal is not None else len(p.process),
            "reference": float(perfect["answer_step_correct"]),
            "echo_a": float(echo["answer_correct"]),
            "echo_p": echo["step_similarity"],
            "echo_ap": float(echo["answer_step_correct"]),
        }
        if isinstance(sub, PlanningTaskType) and p.optimal is not None:
            rng = derive_rng("evidence", sub.key, level, index)
            moves, states, branching = random_legal(sub, p.state, p.optimal, rng)
            walk = score_output(ref, _block(moves, states, answer_only))
            row |= {
                "walk_a": float(walk["answer_correct"]),
                "walk_valid": walk["valid_process"],
                "walk_branching": branching,
            }
        rows.append(row)
    out: dict[str, float | None] = {
        k: fmean(float(r[k]) for r in rows) for k in rows[0] if k != "rules"
    }
    counts = [r["rules"] for r in rows if r["rules"] is not None]
    out["rules"] = fmean(counts) if len(counts) == len(rows) else None
    return out


def table(items: int) -> str:
    """The Markdown page."""
    lines = [
        "# Logic evidence per subclass and level",
        "",
        f"Generated by `{COMMAND} --items {items}` (the first {items} items of each cell of "
        "the frozen set, English; both languages share one reference); do not edit by hand. "
        "Columns: see the script's docstring. A-Acc / P-Acc / AP-Acc as in the tasks; "
        "*valid*: the replay reaches the goal. The random walk moves by the simulator's "
        "legality (in the ordered-fill puzzles: every value that breaks no stated rule); where "
        "it has one legal move per step it is an oracle, and echoing the example is the naive "
        "baseline.",
        "",
        "| subclass | level | rules | steps | reference AP | echo example A / P / AP | "
        "random legal A / valid / legal moves per step |",
        "|---|---|---|---|---|---|---|",
    ]
    for sub in registry.subclasses():
        for level in LEVELS:
            c = cell(sub, level, items)
            rules = "fixed" if c["rules"] is None else f"{c['rules']:.1f}"
            walk = "-"
            if "walk_a" in c:
                walk = f"{c['walk_a']:.2f} / {c['walk_valid']:.2f} / {c['walk_branching']:.1f}"
                if c["walk_branching"] == 1.0:
                    walk += " (oracle: only the solution's move is legal)"
            lines.append(
                f"| `{sub.key}` | {level} | {rules} | {c['steps']:.1f} | {c['reference']:.2f} | "
                f"{c['echo_a']:.2f} / {c['echo_p']:.2f} / {c['echo_ap']:.2f} | {walk} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10, help="items per subclass and level")
    parser.add_argument("--out", type=Path, default=Path("docs/logic_evidence.md"))
    args = parser.parse_args()
    page = table(args.items)
    args.out.write_text(page, encoding="utf-8")
    print(page, end="")
    print(json.dumps({"written": str(args.out)}))


if __name__ == "__main__":
    main()
