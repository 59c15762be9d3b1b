"""Where our grading differs from math-verify: real predictions and the verdict table.

For each real prediction file in shared/ (Sky-T1 27B and Qwen2.5-Math-7B on MATH-500) the final
answer of every response is extracted as the project extracts it (``extract_final_answer`` on
the answer part; a Sky-T1 thought that never closes is graded on the last ``\\boxed{}`` of its
text, the lenient policy) and graded three times on the same extracted text: by the project's
grader (``verify.candidate_readings``: ``math/rewrite.py`` and both wrappers, in a worker), by
plain math-verify, ``verify(parse("$" + gold + "$"), parse("$" + answer + "$"))``, and by
math-verify as the grader called it before reading beyond it (the answer wrapped as
``\\boxed{..}``: ``verify.parse_gold``/``parse_candidate``). The gold comes from
``math500/test.jsonl`` by ``idx`` (the files' ``gt`` is corrupted for a few problems).

Prints, per file: the accuracy of all three and of the file's logged ``score`` (the
Qwen2.5-Math grader's verdict, which also reads the last number of an unboxed response), how
the answers were extracted, and EVERY document where our verdict differs from either
math-verify's, with the gold, the extracted answer, the verdicts (ours / ``$`` / ``\\boxed``)
and the reason: the rewrite rules that fired, or ``-`` where none did (then the two wrappers
disagree and ours keeps the match of either). The same for every distinct answer statement of
the responses (what the first-correct locator grades) and for the verdict table the tests use
(``benchmarks/data/grader_verdicts.jsonl``), with the expected verdict. It asserts nothing; the
differences are adjudicated in ``docs/benchmarks.md``.

    python benchmarks/grading_differences.py
"""

from __future__ import annotations

import argparse
import ast
import json
import logging
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.locate.rule import find_statements
from lm_eval_thinkbench.math import verify
from lm_eval_thinkbench.math.extract import Extraction, extract_final_answer, last_boxed
from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.math.rewrite import prepare_candidate, rewrite_answer
from lm_eval_thinkbench.math500.data import read_math500

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("THINKBENCH_DATA", REPO.parent / "shared" / "data"))
#: (file, whether its model reasons): Sky-T1 writes ``<|begin_of_thought|> .. <|end_of_thought|>``
#: then its answer in ``<|begin_of_solution|> .. <|end_of_solution|>``, and a response without
#: the end marker is a thought cut at the length limit (304 of 500; most lack the start marker
#: too); Qwen2.5-Math-7B writes no markers and its whole response is the answer.
FILES = (
    ("traces/skythought_sky-t1-27b_math500.jsonl", True),
    ("outputs/skythought_qwen2.5-math-7b_math500.jsonl", False),
)
END_OF_THOUGHT = "<|end_of_thought|>"
SOLUTION_MARKERS = ("<|begin_of_solution|>", "<|end_of_solution|>")


def math_verify_verdict(gold: str, answer: str | None) -> bool:
    """Plain math-verify, both answers wrapped in ``$`` as its README shows; errors are False."""
    from math_verify import parse, verify

    if not answer:
        return False
    try:
        return bool(verify(parse(f"${gold}$"), parse(f"${answer}$")))
    except Exception:  # a crash inside math-verify counts as "not equivalent", as in ours
        return False


def boxed_verdict(gold: str, answer: str | None) -> bool:
    """math-verify as the grader called it before reading beyond it: the answer as
    ``\\boxed{..}``, the gold as ``$..$``, no rewrites."""
    from math_verify import verify as math_verify

    if not answer:
        return False
    try:
        parsed = verify.parse_candidate(answer)
        return bool(parsed) and bool(math_verify(verify.parse_gold(gold), parsed))
    except Exception:  # a crash inside math-verify counts as "not equivalent", as in ours
        return False


def verdicts(grader: Grader, gold: str, answer: str | None) -> tuple[bool, bool, bool]:
    """(ours, plain math-verify, math-verify with the box wrapper) on the same answer."""
    our = answer is not None and grader.equivalent(gold, answer).equivalent
    return our, math_verify_verdict(gold, answer), boxed_verdict(gold, answer)


def _verdicts(our: bool, dollar: bool, boxed: bool) -> str:
    return "/".join("TF"[not v] for v in (our, dollar, boxed))


def final_answer(response: str, reasons: bool) -> Extraction:
    """The graded answer of a response: for a reasoning model, the answer part after the
    thought, or the last box of a thought that never closed (the lenient policy); for a model
    that does not reason, the whole response."""
    if not reasons:
        return extract_final_answer(response)
    if END_OF_THOUGHT in response:
        answer = response.rsplit(END_OF_THOUGHT, 1)[1]
        for marker in SOLUTION_MARKERS:
            answer = answer.replace(marker, "")
        return extract_final_answer(answer)
    boxed = last_boxed(response)
    return Extraction(boxed, "boxed") if boxed is not None else Extraction(None, "none")


def reason(gold: str, answer: str | None) -> str:
    """The rewrite rules that fired on the gold and the answer (``-`` when none did)."""
    rewritten_gold = rewrite_answer(gold)
    rules = [f"gold:{rule}" for rule in rewritten_gold.rules]
    if answer is not None:
        rules += prepare_candidate(rewritten_gold.text, answer).rules
    return ", ".join(rules) or "-"


def _listed(value: Any) -> list[Any]:
    """A ``code``/``pred``/``score`` field: a list, or a list literal stored as a string."""
    return ast.literal_eval(value) if isinstance(value, str) else list(value)


def predictions(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def _show(value: str | None, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def grade_file(path: Path, reasons: bool, golds: list[str], grader: Grader) -> None:
    totals = [0, 0, 0]
    logged = count = 0
    methods: Counter[str] = Counter()
    differences = []
    for row in predictions(path):
        gold = golds[row["idx"]]
        extraction = final_answer(_listed(row["code"])[0], reasons)
        methods[extraction.method] += 1
        graded = verdicts(grader, gold, extraction.value)
        totals = [t + v for t, v in zip(totals, graded, strict=True)]
        logged += bool(_listed(row["score"])[0])
        count += 1
        if len(set(graded)) > 1:
            differences.append((f"idx {row['idx']}", gold, extraction.value, graded))
    print(f"\n== {path.name}: {count} responses")
    names = ("ours", "math-verify $..$", "math-verify \\boxed{}", "logged score")
    counts = zip(names, (*totals, logged), strict=True)
    shares = [f"{name} {n} ({n / count:.1%})" for name, n in counts]
    print("accuracy: " + ", ".join(shares))
    print("extracted by: " + ", ".join(f"{m} {n}" for m, n in methods.most_common()))
    _print_differences(differences)


def _print_differences(rows: list[tuple[str, str, str | None, tuple[bool, bool, bool]]]) -> None:
    print(f"verdicts that differ from math-verify's (ours/$/boxed): {len(rows)}")
    for where, gold, answer, graded in rows:
        print(f"  {where}: gold {_show(gold, 36)} answer {_show(answer)} {_verdicts(*graded)} "
              f"[{reason(gold, answer)}]")  # fmt: skip


def grade_statements(paths: list[Path], golds: list[str], grader: Grader) -> None:
    """Every distinct answer statement of every response (what the first-correct locator
    grades: boxes, "the answer is X", "So ... is X"), ours against math-verify."""
    pairs = {
        (path.name, row["idx"], statement.value)
        for path in paths
        for row in predictions(path)
        for statement in find_statements(_listed(row["code"])[0])
    }
    totals = [0, 0, 0]
    differences = []
    for name, idx, value in sorted(pairs):
        graded = verdicts(grader, golds[idx], value)
        totals = [t + v for t, v in zip(totals, graded, strict=True)]
        if len(set(graded)) > 1:
            differences.append((f"{name[11:22]} idx {idx}", golds[idx], value, graded))
    print(f"\n== answer statements in the responses: {len(pairs)} distinct per document")
    print("equivalent to the gold: ours {}, math-verify $..$ {}, \\boxed{{}} {}".format(*totals))
    _print_differences(differences)


def grade_table(grader: Grader) -> None:
    rows = map(json.loads, (REPO / "benchmarks" / "data" / "grader_verdicts.jsonl").open())
    pairs = [(r["gold"], r["candidate"], r["equivalent"]) for r in rows]
    right = [0, 0, 0]
    differences = []
    for gold, candidate, expected in pairs:
        graded = verdicts(grader, gold, candidate)
        right = [r + (v is expected) for r, v in zip(right, graded, strict=True)]
        if len(set(graded)) > 1:
            differences.append((f"expected {'TF'[not expected]}", gold, candidate, graded))
    print(f"\n== verdict table (benchmarks/data/grader_verdicts.jsonl): {len(pairs)} pairs")
    print("right: ours {}, math-verify $..$ {}, \\boxed{{}} {}".format(*right))
    _print_differences(differences)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    golds = [doc["answer"] for doc in read_math500(DATA / "math500" / "test.jsonl")]
    with Grader() as grader:
        for name, reasons in FILES:
            grade_file(DATA / name, reasons, golds, grader)
        grade_statements([DATA / name for name, _ in FILES], golds, grader)
        grade_table(grader)


if __name__ == "__main__":
    main()
