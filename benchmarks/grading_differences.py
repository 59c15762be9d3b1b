"""Where our grading differs from plain math-verify: real predictions and the verdict table.

For each real prediction file in shared/ (Sky-T1 27B and Qwen2.5-Math-7B on MATH-500) the final
answer of every response is extracted as the project extracts it (``extract_final_answer`` on
the answer part; a Sky-T1 thought that never closes is graded on the last ``\\boxed{}`` of its
text, the lenient policy) and graded twice on the same extracted text: by the project's grader
(``math/rewrite.py``, then math-verify in a worker) and by plain math-verify,
``verify(parse("$" + gold + "$"), parse("$" + answer + "$"))``. The gold comes from
``math500/test.jsonl`` by ``idx`` (the files' ``gt`` is corrupted for a few problems).

Prints, per file: the accuracy of both and of the file's logged ``score`` (the Qwen2.5-Math
grader's verdict, which also reads the last number of an unboxed response), how the answers
were extracted, and EVERY document where our verdict differs from math-verify's, with the gold,
the extracted answer, both verdicts and the rewrite rules that fired (the reason). Then the same
for the verdict table of ``tests/test_math_grader.py``, with the expected verdict. It asserts
nothing; the differences are adjudicated in the README.

    python benchmarks/grading_differences.py
"""

from __future__ import annotations

import argparse
import ast
import json
import logging
import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.harness.data import read_jsonl
from lm_eval_thinkbench.locate.rule import find_statements
from lm_eval_thinkbench.math.extract import Extraction, extract_final_answer, last_boxed
from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.math.rewrite import prepare_candidate, rewrite_answer

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
    ours = theirs = logged = total = 0
    methods: Counter[str] = Counter()
    differences = []
    for row in predictions(path):
        gold = golds[row["idx"]]
        extraction = final_answer(_listed(row["code"])[0], reasons)
        methods[extraction.method] += 1
        our = extraction.value is not None and grader.equivalent(gold, extraction.value).equivalent
        their = math_verify_verdict(gold, extraction.value)
        ours, theirs, total = ours + our, theirs + their, total + 1
        logged += bool(_listed(row["score"])[0])
        if our != their:
            differences.append((row["idx"], gold, extraction.value, our, their))
    print(f"\n== {path.name}: {total} responses")
    print(f"accuracy: ours {ours} ({ours / total:.1%}), math-verify {theirs} "
          f"({theirs / total:.1%}), logged score {logged} ({logged / total:.1%})")  # fmt: skip
    print("extracted by: " + ", ".join(f"{m} {n}" for m, n in methods.most_common()))
    print(f"verdicts that differ from math-verify: {len(differences)}")
    for idx, gold, answer, our, their in differences:
        print(f"  idx {idx}: gold {_show(gold, 40)} answer {_show(answer)} ours {our} "
              f"math-verify {their} [{reason(gold, answer)}]")  # fmt: skip


def grade_statements(paths: list[Path], golds: list[str], grader: Grader) -> None:
    """Every distinct answer statement of every response (what the first-correct locator
    grades: boxes, "the answer is X", "So ... is X"), ours against math-verify."""
    pairs = {
        (path.name, row["idx"], statement.value)
        for path in paths
        for row in predictions(path)
        for statement in find_statements(_listed(row["code"])[0])
    }
    differences = []
    ours = theirs = 0
    for name, idx, value in sorted(pairs):
        gold = golds[idx]
        our = grader.equivalent(gold, value).equivalent
        their = math_verify_verdict(gold, value)
        ours, theirs = ours + our, theirs + their
        if our != their:
            differences.append((name, idx, gold, value, our, their))
    print(f"\n== answer statements in the responses: {len(pairs)} distinct per document")
    print(f"equivalent to the gold: ours {ours}, math-verify {theirs}")
    print(f"verdicts that differ from math-verify: {len(differences)}")
    for name, idx, gold, value, our, their in differences:
        print(f"  {name[:24]} idx {idx}: gold {_show(gold, 30)} statement {_show(value)} "
              f"ours {our} math-verify {their} [{reason(gold, value)}]")  # fmt: skip


def grade_table(grader: Grader) -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from test_math_grader import PAIRS

    differences = []
    ours_right = theirs_right = 0
    for gold, candidate, expected in PAIRS:
        our = grader.equivalent(gold, candidate).equivalent
        their = math_verify_verdict(gold, candidate)
        ours_right += our is expected
        theirs_right += their is expected
        if our != their:
            differences.append((gold, candidate, expected, our, their))
    print(f"\n== verdict table (tests/test_math_grader.py): {len(PAIRS)} pairs")
    print(f"right: ours {ours_right}, math-verify {theirs_right}")
    print(f"verdicts that differ from math-verify: {len(differences)}")
    for gold, candidate, expected, our, their in differences:
        print(f"  gold {_show(gold, 40)} answer {_show(candidate)} expected {expected} "
              f"ours {our} math-verify {their} [{reason(gold, candidate)}]")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    golds = [doc["answer"] for doc in read_jsonl(DATA / "math500" / "test.jsonl")]
    with Grader() as grader:
        for name, reasons in FILES:
            grade_file(DATA / name, reasons, golds, grader)
        grade_statements([DATA / name for name, _ in FILES], golds, grader)
        grade_table(grader)


if __name__ == "__main__":
    main()
