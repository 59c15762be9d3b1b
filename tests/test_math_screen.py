"""The grader's screen (``math/screen.py``): what it reads, what it refuses, and that a pair it
settles as different is never equivalent to math-verify (benchmarks/grading_screen.py checks
the same on every pair of the real traces and on random expressions)."""

from __future__ import annotations

import json
import random
import time
from decimal import Decimal

import pytest

from lm_eval_thinkbench.math import screen
from lm_eval_thinkbench.math import verify as verify_module
from lm_eval_thinkbench.math.grader import Grader, Verdict
from lm_eval_thinkbench.math.rewrite import prepare_candidate, rewrite_answer
from lm_eval_thinkbench.math.screen import (
    answer_values,
    matrix_values,
    surely_different,
    surely_equal,
)

SQRT3 = Decimal(3).sqrt()
X = screen.POINT["x"]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("5", [5]),
        ("-3", [-3]),
        ("12.", [12]),
        ("$5$.", None),  # a dollar sign: math-verify reads it with its plain wrapper too
        (r"\dfrac{1}{4}", [0.25]),
        (r"2\sqrt{3}", [2 * SQRT3]),
        (r"\sqrt[3]{8}", [2]),
        ("2^{10}", [1024]),
        ("-2^2", [-4]),
        ("2^{-1}", [0.5]),
        (r"\left(\frac{1}{2}, 3\right)", [0.5, 3]),
        ("1,-2", [1, -2]),
        (r"\{1, -2\}", [1, -2]),
        (r"3 \pm \sqrt{3}", [3 + SQRT3, 3 - SQRT3]),
        ("2x", [2 * X]),
        ("x^2 - 1", [X * X - 1]),
        # brace-less shorthand and a final degree mark, read as math-verify reads them
        (r"\frac43", [Decimal(4) / 3]),
        (r"\frac 59", [Decimal(5) / 9]),
        (r"\frac{270}7", [Decimal(270) / 7]),
        (r"11\sqrt2", [11 * Decimal(2).sqrt()]),
        (r"145^\circ", [145]),
        (r"\frac{1}{2}^{\circ}", [0.5]),
    ],
)
def test_reads(text: str, values: list | None) -> None:
    read = answer_values(text)
    if values is None:
        assert read is None
    else:
        assert read is not None and len(read) == len(values)
        assert all(
            abs(a - Decimal(b)) < Decimal("1e-20") for a, b in zip(read, values, strict=True)
        )


@pytest.mark.parametrize(
    "text",
    [
        "2(3)",  # latex2sympy: 5 (a mixed number)
        "(2)(3)",  # 5 too
        "1 2",  # 3
        r"1\frac{4}{5}",  # 9/5
        r"1\,000",  # 0
        "2^3^2",  # (2^3)^2
        "2^23",  # 2^2 * 3?
        "1,000",  # a thousand
        "(1,000)",
        "5m",  # a unit: 5
        "2c",
        "x c",
        "e",  # Euler's number
        "i",
        "xy",  # letters side by side: a word, a unit, a function?
        "f(x)",
        r"[\sqrt{79}, \pi)",  # an interval that does not rise: the empty set
        "(5, 3)",
        "[1, 2, 3)",
        "(x, y)",  # intervals of letters may be empty too
        r"\frac435",  # 4/35 to math-verify
        r"\sqrt23",  # sqrt(2) * 3
        r"\sqrt[3]8",  # nothing
        r"5\%",
        "30°",  # nothing, as a gold
        r"30 ^ \circ",
        r"x^\circ",
        r"(30^\circ)",
        r"5, 90^\circ",
        r"\{22, \pi\}^\circ",  # nothing, as a gold
        r"5^{5^{5^{5^5}}}",  # an exponent above 1,000
        "10^{50}",  # beyond 10^40
        r"\sqrt{-1}",
        "(-8)^{1/3}",
        "0^0",
        r"\frac{1}{0}",
        "--1",
        "1" * 300,
    ],
)
def test_refuses_what_math_verify_may_read_otherwise(text: str) -> None:
    assert answer_values(text) is None


TRICKY = [
    "2^2x", "x^2y", "2x^2", r"\sqrt{2}x", r"x\sqrt{2}", r"2\pi x", r"\pi x", "x^y", "-x^2",
    "1/2/3", "2 x", "1.5x", ".5", "0.5", r"2\cdot\pi", "(1, 2, 3)", "[1, 2, 3]", r"\{1,2,3\}",
    "1, 2, 3", "1 \\pm 2", r"-1 \pm \sqrt{2}", "0.1 + 0.2", "10^{-3}", "2^{0.5}", "8^{1/3}",
    "4^{-1/2}", "(-2)^3", "x^{-1}", "x^0", "x - x", "2x/3", r"\frac{x}{y}", "2^{x+1}",
    r"\pi^2", r"\sqrt{2}^2", "{2}^{3}", r"5 \times 10^{3}", r"1\times10^{-5}", "-0", "007",
    "(x)", "-(x)", r"\frac{-1}{2}", "(-1)/2", "1/(-2)", r"\left[1,2\right]", "(1,2]", "-5,5",
    r"\frac43", r"\dfrac 59", r"\frac{270}7", r"\frac1{2}", r"11\sqrt2", r"\sqrt2x",
    r"\frac{\sqrt3}2", r"\frac43^2", "90^\\circ", r"-\frac{1}{2}^{\circ}",
    r"(2,\infty)", r"[-\frac{1}{2}, \infty)", r"(-\infty, 0]", r"(-\infty, \infty)", r"\infty",
    r"-\infty", r"1, \infty", r"\{-\infty, 2\}", r"\begin{pmatrix} -1/3 \\ 2/3 \end{pmatrix}",
    r"\begin{bmatrix} 1 & x \\ \sqrt{2} & -2 \end{bmatrix}", r"\begin{pmatrix}5\end{pmatrix}",
]  # fmt: skip


@pytest.mark.slow
def test_reading_is_math_verifys_on_golds_and_tricky_forms(math500_path) -> None:
    """Every answer the screen reads has the values of every sympy object math-verify parses
    from it, as a gold and as a candidate, and no rewrite changes it."""
    golds = [json.loads(line)["answer"] for line in math500_path.open(encoding="utf-8")]
    read = 0
    for text in golds + TRICKY:
        ours = answer_values(text)
        matrix = matrix_values(text)
        if matrix is not None:
            ours = matrix[1]
        if ours is None:
            continue
        read += 1
        assert rewrite_answer(text).text == text and prepare_candidate("1", text).text == text
        ours_c = [complex(v) for v in ours]
        for readings in (
            verify_module.parse_gold(text),
            verify_module.candidate_readings("1", text),
        ):
            expressions = [r for r in readings if not isinstance(r, str)]
            assert expressions, text
            for expression in expressions:
                theirs = screen.reading_values(expression)
                assert theirs is not None, (text, expression)

                def near(a: complex, b: complex) -> bool:
                    return a == b or abs(a - b) <= 1e-12 * (1 + abs(a))  # ``==``: infinities

                if matrix is not None:  # the same shape, the same entries in place
                    assert expression.shape == matrix[0], (text, expression)
                    assert all(map(near, ours_c, theirs)), (text, expression)
                    continue

                assert all(any(near(a, b) for b in theirs) for a in ours_c), (text, expression)
                assert all(any(near(b, a) for a in ours_c) for b in theirs), (text, expression)
    assert read > 300  # most MATH-500 golds are plain values


@pytest.mark.slow
def test_settled_pairs_are_never_equivalent_to_math_verify(math500_path) -> None:
    """Golds against each other, against themselves nudged, and against plain wrong values:
    every pair the screen settles is one math-verify calls not equivalent."""
    golds = [json.loads(line)["answer"] for line in math500_path.open(encoding="utf-8")]
    rng = random.Random(0)
    pairs = [(rng.choice(golds), rng.choice(golds)) for _ in range(300)]
    pairs += [(g, f"{g} + 0.00002") for g in golds[:100]] + [(g, "x") for g in golds[:100]]
    settled = 0
    for gold, candidate in pairs:
        if surely_different(gold, candidate):
            settled += 1
            assert verify_module.first_equivalent(gold, [candidate]) is None, (gold, candidate)
    assert settled > 250


INF = Decimal("Infinity")


def test_reads_open_ends_and_matrices() -> None:
    assert answer_values(r"(2, \infty)") == (2, INF)
    assert answer_values(r"\left(-\infty, \frac{1}{2}\right]") == (-INF, Decimal("0.5"))
    assert answer_values(r"\infty") == (INF,)
    assert matrix_values(r"\begin{pmatrix} -1/3 \\ 2 \\ 5 \end{pmatrix}") == (
        (3, 1),
        (-Decimal(1) / 3, 2, 5),
    )
    assert matrix_values(r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}") == ((2, 2), (1, 2, 3, 4))
    assert answer_values(r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}") is None  # no list of values


@pytest.mark.parametrize(
    "text",
    [
        r"2\infty",  # arithmetic with oo: sympy's rules
        r"\infty + 1",
        r"\infty^\circ",
        r"(\infty, 2)",  # an interval that does not rise
        r"(-\infty, -\infty)",
        r"\pm\infty",
        r"(x, \infty)",
        r"\begin{vmatrix} 1 & 2 \\ 3 & 4 \end{vmatrix}",  # a determinant
        r"\begin{pmatrix} 1 & 2 \\ 3 \end{pmatrix}",  # ragged
        r"\begin{pmatrix} 1 \\ 2 \\ \end{pmatrix}",  # an empty last row
        r"\begin{pmatrix} 1, 2 \end{pmatrix}",
        r"\begin{pmatrix} 1 \end{bmatrix}",
        r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}^\circ",
        r"\begin{pmatrix} 1 \end{pmatrix} + \begin{pmatrix} 2 \end{pmatrix}",
        r"2\begin{pmatrix} 1 \end{pmatrix}",
        "\\begin{pmatrix}\n1 \\\\\n2\n\\end{pmatrix}",  # lines: no gold, one reading its last entry
    ],
)
def test_refuses_other_open_ends_and_matrices(text: str) -> None:
    assert answer_values(text) is None and matrix_values(text) is None


OPEN_ENDS_AND_MATRICES = [
    (r"(2,\infty)", "3.25", True),
    (r"(2,\infty)", r"\infty", True),
    (r"(-\infty, 0]", r"(-\infty, 180)", True),
    (r"(-\infty, 0]", r"(0, \infty)", True),
    (r"\infty", "5", True),
    (r"(2,\infty)", r"(2, \infty)", False),  # the same ends: math-verify decides
    (r"(2,\infty)", r"[2, \infty)", False),
    (r"\begin{pmatrix} -1/3 \\ 2/3 \end{pmatrix}", "2", True),
    (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", "(1, 2)", True),  # a column is no tuple
    (r"\begin{pmatrix} 5 \end{pmatrix}", "5", True),
    ("5", r"\begin{pmatrix} 5 \end{pmatrix}", True),
    (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", r"\begin{pmatrix} 1 & 2 \end{pmatrix}", True),
    (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", r"\begin{pmatrix} 1 \\ 3 \end{pmatrix}", True),
    (r"\begin{pmatrix} -1/3 \\ 2/3 \end{pmatrix}",
     r"\begin{bmatrix} -\frac13 \\ \frac{2}{3} \end{bmatrix}", False),
    (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}",
     r"\begin{pmatrix} 1.000001 \\ 2 \end{pmatrix}", False),
    (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", "f(x)", False),  # not read: math-verify decides
]  # fmt: skip


@pytest.mark.parametrize(("gold", "candidate", "settled"), OPEN_ENDS_AND_MATRICES)
def test_settles_open_ends_and_matrices(gold: str, candidate: str, settled: bool) -> None:
    assert surely_different(gold, candidate) is settled


@pytest.mark.slow
def test_settled_open_ends_and_matrices_are_not_equivalent_to_math_verify() -> None:
    for gold, candidate, settled in OPEN_ENDS_AND_MATRICES:
        if settled:
            assert verify_module.first_equivalent(gold, [candidate]) is None, (gold, candidate)


def test_equal_and_close_values_are_left_to_math_verify() -> None:
    assert not surely_different(r"\frac{1}{3}", "0.333333")  # math-verify rounds to 6 places
    assert not surely_different("0.5", "0.500001")
    assert not surely_different(r"2\sqrt{3}", r"\sqrt{12}")
    assert not surely_different("1,-2", "-2, 1")
    assert surely_different("0.5", "0.50002")
    assert surely_different("1,-2", "1")  # a set against a scalar
    assert surely_different("5", "x")  # a variable is no constant


@pytest.mark.parametrize(
    "text",
    [
        r"5^{5^{5^{5^5}}}",
        "(" * 150 + "1" + ")" * 150,
        r"\sqrt{" * 60 + "2" + "}" * 60,
        "1+" * 99 + "1",
        "9" * 10**6,
        "x" * 10**6,
    ],
)
def test_hostile_forms_cost_microseconds(text: str) -> None:
    """The screen gives up on these at once (about 0.5 ms here; a blow-up would take seconds).
    The best of five calls is timed, so that a pause of a busy machine cannot fail it."""

    def seconds() -> float:
        start = time.perf_counter()
        surely_different(text, "7")
        return time.perf_counter() - start

    assert min(seconds() for _ in range(5)) < 0.005


def test_grader_settles_screened_pairs_without_a_worker() -> None:
    with Grader(deadline=2.0) as g:
        assert g.equivalent(r"11\sqrt{5} + 11", "11") == Verdict(False, "fast")
        assert g.equivalent(r"\frac{14}{3}", "x") == Verdict(False, "fast")
        match = g.first_equivalent("(-1, 6)", ["(-5, 5)", "-2", "6", "2x"])
        assert (match.index, match.checked) == (None, 0)
        assert "pool" not in g._resources  # no worker was ever started


EQUAL_NUMBERS = [
    (r"\frac43", "4/3"),
    (r"\frac{16}{27}", "16/27"),
    ("0.5", r"\frac{1}{2}"),
    (r"\frac14", r"\frac{1}{4}"),
    (r"-\dfrac{3}{6}", "-0.5"),
    ("2", "2.0"),
    (r"\frac 59", "5 / 9"),
    ("12", "12."),
]


@pytest.mark.parametrize(("gold", "candidate"), EQUAL_NUMBERS)
def test_the_same_plain_number_is_settled_equal_as_math_verify_says(gold, candidate) -> None:
    assert surely_equal(gold, candidate)
    assert verify_module.first_equivalent(gold, [candidate]) == 0


@pytest.mark.parametrize(
    ("gold", "candidate"),
    [
        ("7", "007"),  # a leading zero: not read
        (r"\frac{1}{3}", "0.333333"),  # close, not equal: math-verify decides
        ("4/3", "4/3 + 0"),
        (r"\frac435", "435"),  # a run of digits latex2sympy splits its own way
        ("1/0", "1/0"),
        ("1,000", "1000"),
        (r"2\sqrt{2}", r"\sqrt{8}"),
        ("5", r"5^\circ"),
        ("x", "x"),
    ],
)
def test_only_plain_numbers_are_settled_equal(gold, candidate) -> None:
    assert not surely_equal(gold, candidate)


def test_grader_settles_the_same_plain_number_without_a_worker() -> None:
    with Grader(deadline=2.0) as g:
        assert g.equivalent(r"\frac43", "4/3") == Verdict(True, "fast")
        match = g.first_equivalent(r"\frac{16}{27}", ["0.6", "16/27", r"\sqrt{2}"])
        assert (match.index, match.checked) == (1, 0)
        assert "pool" not in g._resources


def test_reading_values_at_the_point() -> None:
    """A reading's values with letters at ``POINT`` (a set's elements, an interval's ends);
    None for a letter the point does not give."""
    from sympy import FiniteSet, Interval, Matrix, Symbol

    x = Symbol("x")
    assert screen.reading_values(FiniteSet(1, 2)) == [1, 2]
    assert screen.reading_values(Interval(0, 2 * x)) == [0, pytest.approx(2 * float(X))]
    assert screen.reading_values(Symbol("Q")) is None
    assert screen.reading_values(Matrix([[1, 2], [3, x]])) == [1, 2, 3, pytest.approx(float(X))]
