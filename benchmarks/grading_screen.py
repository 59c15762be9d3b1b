"""The grader's in-parent screen (``math/screen.py``) against math-verify: no verdict changes.

Pairs: every (gold, value) the harness grades on the real responses (Sky-T1 27B and
Qwen2.5-Math-7B on MATH-500, through the thinkbench filter with a grader that records each
check and answers "no match", so the locator offers every candidate it has), every answer
statement ``locate.rule.find_statements`` finds in them and in the R1 traces, 3,000 random pairs
of MATH-500 golds, and random expressions of the screen's grammar (``--random``), each against
a random other and against itself nudged by 1e-6 and 1e-4.

Three checks, each printing every failure (there should be none):

1. reading: for every answer the screen reads, its values equal those of every sympy object
   math-verify parses from it, as a gold (``verify.parse_gold``) and as a candidate
   (``verify.candidate_readings``), letters at the screen's point (a matrix: the same shape and
   the same entries in place; an open end ``\\infty``: sympy's ``oo``); and no rewrite
   changes it;
2. verdicts: every pair the screen settles as different is not equivalent to math-verify
   (``verify.first_equivalent``, as a worker runs it), and every pair it settles as the same
   plain number (``screen.surely_equal``) is, on those pairs and on random plain numbers
   written in each form, so the grader's verdicts are the same with and without the screen
   (the pairs it does not settle take the same path as before);
3. bounds: the screen's time on hostile forms (towers, deep nesting, long strings).

Prints how many pairs the screen settles and the math-verify time they no longer cost. Each
math-verify call is cut at 5 s (counted). It asserts nothing; ``tests/test_math_screen.py``
runs the same checks on a sample.

    python benchmarks/grading_screen.py [--random 3000] [--seed 0]
"""

from __future__ import annotations

import argparse
import ast
import json
import logging
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("TQDM_DISABLE", "1")

from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.locate.rule import find_statements
from lm_eval_thinkbench.math import screen, verify
from lm_eval_thinkbench.math.grader import FirstMatch, Grader, Verdict
from lm_eval_thinkbench.math.rewrite import prepare_candidate, rewrite_answer
from lm_eval_thinkbench.math500.data import read_math500
from lm_eval_thinkbench.math500.filters import ThinkEfficiencyFilter

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("THINKBENCH_DATA", REPO.parent / "shared" / "data"))
PREDICTIONS = (
    "traces/skythought_sky-t1-27b_math500.jsonl",
    "outputs/skythought_qwen2.5-math-7b_math500.jsonl",
)
R1_TRACES = ("traces/r1_openrouter_math_train.json", "traces/r1_8b_ollama_math_train.json")
#: How close a sympy value must be to the screen's: math-verify keeps decimals at 15 digits.
_READING_TOLERANCE = 1e-12


class _Recording(Grader):
    """A grader that records every check and matches nothing, so a locator offers all of its
    candidates."""

    def __init__(self) -> None:
        super().__init__()
        self.pairs: set[tuple[str, str]] = set()

    def equivalent(self, gold: str, candidate: str) -> Verdict:
        self.pairs.add((gold, candidate))
        return Verdict(False, "checked")

    def first_equivalent(self, gold: str, candidates: Any, budget: float | None = None):
        self.pairs.update((gold, c) for c in candidates if isinstance(c, str))
        return FirstMatch(None, 0, 0)


class _RecordingFilter(ThinkEfficiencyFilter):
    def __init__(self, grader: _Recording) -> None:
        super().__init__()
        self.recording = grader

    def prepare(self) -> None:
        super().prepare()
        self.grader = self.recording


def _listed(value: Any) -> list[Any]:
    return ast.literal_eval(value) if isinstance(value, str) else list(value)


def real_pairs(golds: list[str], docs: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """Every pair the harness grades on the real predictions, and every answer statement."""
    recording = _Recording()
    settings.configure({})
    for name in PREDICTIONS:
        rows = [json.loads(line) for line in (DATA / name).open(encoding="utf-8") if line.strip()]
        responses = [_listed(row["code"])[0] for row in rows]
        _RecordingFilter(recording).apply([[r] for r in responses], [docs[r["idx"]] for r in rows])
        for row, response in zip(rows, responses, strict=True):
            recording.pairs.update((golds[row["idx"]], s.value) for s in find_statements(response))
    for name in R1_TRACES:
        for trace in json.loads((DATA / name).read_text(encoding="utf-8")):
            statements = find_statements(trace["message_thinking"])
            recording.pairs.update((trace["gtruth_answer"], s.value) for s in statements)
    return recording.pairs


# ----------------------------------------------------------------- random grammar expressions

_LETTERS = "abnpqrxyz"


def random_expression(rng: random.Random, depth: int = 3) -> str:
    """A random expression in (and around) the screen's grammar, spaced at random."""
    space = rng.choice(("", "", " "))
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(
            (
                str(rng.randint(0, 99)),
                str(rng.randint(0, 9999)),
                f"{rng.randint(0, 99)}.{rng.randint(0, 999)}",
                "\\pi",
                rng.choice(_LETTERS),
                f"{rng.randint(1, 9)}{rng.choice(_LETTERS)}",
            )
        )
    a, b = random_expression(rng, depth - 1), random_expression(rng, depth - 1)
    return rng.choice(
        (
            f"{a}{space}+{space}{b}",
            f"{a}{space}-{space}{b}",
            f"{a}{space}\\cdot{space}{b}",
            f"{a}{space}\\times {b}",
            f"{a}*{b}",
            f"{a}/{b}",
            f"\\frac{{{a}}}{{{b}}}",
            f"\\dfrac{{{a}}}{{{b}}}",
            f"\\sqrt{{{a}}}",
            f"\\sqrt[{rng.randint(2, 4)}]{{{a}}}",
            f"({a})",
            f"\\left({a}\\right)",
            f"-{a}",
            f"{a}^{{{rng.randint(-3, 4)}}}",
            f"{a}^{rng.randint(0, 9)}",
            f"{rng.randint(1, 9)}\\sqrt{{{a}}}",
            f"{rng.randint(1, 9)}\\sqrt{rng.randint(0, 99)}",  # brace-less shorthand
            f"\\frac{rng.randint(0, 999)}",
            f"\\frac{{{a}}}{rng.randint(0, 99)}",
            f"{rng.randint(1, 9)}\\pi",
            f"{a}{b}",  # juxtaposition: mostly refused, and what is read must read right
            f"{a} {b}",
            f"{a}, {b}",
            f"({a}, {b})",
            f"[{a},{b})",
            f"\\{{{a}, {b}\\}}",
            f"{a} \\pm {b}",
            f"{rng.randint(1, 9)}({a})",
            f"{rng.randint(1, 9)}\\frac{{{a}}}{{{b}}}",
            # open ends and matrices (read whole only: inside arithmetic they are refused)
            f"({a}, \\infty)",
            f"[{a},{space}\\infty)",
            f"(-\\infty, {a}]",
            "(-\\infty, \\infty)",
            "\\infty",
            f"{a}, \\infty",
            f"\\begin{{pmatrix}} {a} \\\\ {b} \\end{{pmatrix}}",
            f"\\begin{{pmatrix}}{a} & {b}\\end{{pmatrix}}",
            f"\\begin{{bmatrix}} {a} & {b} \\\\ {b} & {a} \\end{{bmatrix}}",
            f"\\begin{{pmatrix}} {a} \\\\ {b} \\\\ \\end{{pmatrix}}",
        )
    )


# -------------------------------------------------------------------------------- checks


class _Overrun(Exception):
    pass


def _alarm(*_: object) -> None:
    raise _Overrun


def _same_values(ours: tuple[Any, ...], theirs: list[complex]) -> bool:
    def near(a: complex, b: complex) -> bool:
        return a == b or abs(a - b) <= _READING_TOLERANCE * (1 + abs(a))  # ``==``: infinities

    ours_c = [complex(v) for v in ours]
    return all(any(near(a, b) for b in theirs) for a in ours_c) and all(
        any(near(b, a) for a in ours_c) for b in theirs
    )


def reading_failures(texts: set[str]) -> tuple[int, list[str]]:
    """Check 1 on every text the screen reads: (how many it reads, the failures)."""
    read = 0
    failures = []
    for text in sorted(texts):
        ours = screen.answer_values(text)
        matrix = screen.matrix_values(text)
        if matrix is not None:
            ours = matrix[1]
        if ours is None:
            continue
        read += 1
        if rewrite_answer(text).text != text or prepare_candidate("1", text).text != text:
            failures.append(f"rewritten: {text!r}")
            continue
        try:
            signal.alarm(5)
            roles = {
                "gold": verify.parse_gold(text),
                "candidate": verify.candidate_readings("1", text),
            }
            signal.alarm(0)
        except _Overrun:
            failures.append(f"parse over 5 s: {text!r}")
            continue
        for role, readings in roles.items():
            expressions = [r for r in readings if not isinstance(r, str)]
            if not expressions:
                failures.append(f"{role}: math-verify reads no expression in {text!r}")
            for expression in expressions:
                theirs = screen.reading_values(expression)
                if matrix is not None:  # the same shape, and the same entries in place
                    shape = getattr(expression, "shape", None)
                    if (
                        shape != matrix[0]
                        or theirs is None
                        or not all(map(_same_values, [(a,) for a in ours], [[b] for b in theirs]))
                    ):
                        failures.append(f"{role}: {text!r} read as {matrix}, math-verify "
                                        f"{expression!s:.60} of shape {shape}")  # fmt: skip
                    continue
                if theirs is None or not _same_values(ours, theirs):
                    failures.append(
                        f"{role}: {text!r} read {[str(v)[:12] for v in ours]}, "
                        f"math-verify {expression!s:.60} = {theirs}"
                    )
    return read, failures


def verdict_failures(
    pairs: set[tuple[str, str]], settles_equal: bool = False
) -> tuple[int, float, int, list[str]]:
    """Check 2: (pairs settled, math-verify seconds they took, calls cut at 5 s, failures), of
    the pairs settled as different (or, ``settles_equal``, as the same number)."""
    settles = screen.surely_equal if settles_equal else screen.surely_different
    settled, seconds, cut, failures = 0, 0.0, 0, []
    for gold, candidate in sorted(pairs):
        if not settles(gold, candidate):
            continue
        settled += 1
        start = time.perf_counter()
        try:
            signal.alarm(5)
            equal = verify.first_equivalent(gold, [candidate]) == 0
            signal.alarm(0)
        except _Overrun:
            cut += 1
            continue
        seconds += time.perf_counter() - start
        if equal != settles_equal:
            failures.append(
                f"settled as {'equal' if settles_equal else 'different'}, math-verify "
                f"{'not ' if settles_equal else ''}equal: {gold!r} vs {candidate!r}"
            )
    return settled, seconds, cut, failures


def plain_number_forms(rng: random.Random, n: int) -> Iterator[tuple[str, str]]:
    """Random plain numbers, each against itself written in another form (a fraction with and
    without braces, ``a/b``, a decimal when it ends, scaled, signed) and against a neighbour."""
    for _ in range(n):
        top, bottom = rng.randint(0, 999), rng.choice([1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 16, 25])
        scale = rng.randint(2, 9)
        sign = rng.choice(["", "-"])
        forms = [f"{sign}\\frac{{{top}}}{{{bottom}}}", f"{sign}{top}/{bottom}",
                 f"{sign}\\dfrac{{{top * scale}}}{{{bottom * scale}}}",
                 f"{sign}{top * scale} / {bottom * scale}"]  # fmt: skip
        if top < 10 and bottom < 10:
            forms.append(f"{sign}\\frac{top}{bottom}")
        if bottom in (1, 2, 4, 5, 8, 10, 16, 25):
            forms.append(f"{sign}{top / bottom}")
        if bottom == 1:
            forms.append(f"{sign}{top}")
        for form in forms:
            yield rng.choice(forms), form
            yield form, f"{sign}{top + 1}/{bottom}"


HOSTILE = (
    "5^{5^{5^{5^5}}}",
    "9^{9^{9^{9}}}",
    "2^{1000}",
    "(" * 150 + "1" + ")" * 150,
    "{" * 150 + "1" + "}" * 150,
    "\\sqrt{" * 60 + "2" + "}" * 60,
    "1+" * 99 + "1",
    "9" * 199,
    "1" * 10**6,
    "\\frac{1}{" * 30 + "3" + "}" * 30,
)


def bounds() -> list[str]:
    """Check 3: the screen's time on each hostile form."""
    lines = []
    for text in HOSTILE:
        start = time.perf_counter()
        values = screen.surely_different(text, "7")
        lines.append(f"  {text[:40]!r:44} {len(text):>8} chars: {values!s:5} "
                     f"{(time.perf_counter() - start) * 1e6:8.0f} us")  # fmt: skip
    return lines


def _show(title: str, failures: list[str]) -> None:
    print(f"{title}: {len(failures)} failures")
    for failure in failures:
        print("  " + failure)


def random_pairs(rng: random.Random, n: int) -> Iterator[tuple[str, str]]:
    texts = [random_expression(rng) for _ in range(n)]
    for text in texts:
        yield text, rng.choice(texts)
        yield text, f"{text} + 0.000001"
        yield text, f"{text} + 0.0001"
        yield text, f"{text}^\\circ"  # a final degree mark
        if "\\end" in text:  # a matrix with its last entry nudged
            yield text, text.replace("\\end", " + 0.000001 \\end", 1)
            yield text, text.replace("\\end", " + 0.0001 \\end", 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=3000, help="random grammar expressions")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    verify.install_numeric_witness()
    signal.signal(signal.SIGALRM, _alarm)

    docs = read_math500(DATA / "math500" / "test.jsonl")
    golds = [doc["answer"] for doc in docs]
    rng = random.Random(args.seed)
    pairs = real_pairs(golds, docs)
    real = len(pairs)
    pairs |= {(rng.choice(golds), rng.choice(golds)) for _ in range(3000)}
    generated = set(random_pairs(rng, args.random))
    print(f"pairs: {real:,} from the real responses and traces, {len(pairs) - real:,} of golds, "
          f"{len(generated):,} of random expressions")  # fmt: skip

    start = time.perf_counter()
    for gold, candidate in pairs | generated:
        screen.surely_different(gold, candidate)
    elapsed = time.perf_counter() - start
    print(f"screen: {elapsed * 1e6 / len(pairs | generated):.0f} us per pair")

    texts = {text for pair in pairs | generated for text in pair}
    read, failures = reading_failures(texts)
    print(f"\n1. reading: {read:,} of {len(texts):,} distinct answers read by the screen")
    _show("   same values as math-verify's", failures)

    for title, group in (("real and gold", pairs), ("random", generated)):
        settled, seconds, cut, failures = verdict_failures(group)
        print(f"\n2. verdicts, {title} pairs: {settled:,} of {len(group):,} settled as different "
              f"(math-verify on them: {seconds:.1f} s, {cut} cut at 5 s)")  # fmt: skip
        _show("   equivalent to math-verify", failures)
    numbers = set(plain_number_forms(rng, args.random))
    for title, group in (("real and gold", pairs), ("random plain numbers", numbers)):
        settled, seconds, cut, failures = verdict_failures(group, settles_equal=True)
        print(f"\n2. verdicts, {title} pairs: {settled:,} of {len(group):,} settled as equal "
              f"(math-verify on them: {seconds:.1f} s, {cut} cut at 5 s)")  # fmt: skip
        _show("   not equivalent to math-verify", failures)

    print("\n3. bounds (screen against '7'):")
    print("\n".join(bounds()))


if __name__ == "__main__":
    main()
