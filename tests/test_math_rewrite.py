"""Rewrites before math-verify: plain-text constants and functions, ordinals, words after a
number. Each rule with the forms it must rewrite and the look-alikes it must leave alone."""

from __future__ import annotations

import json
import time

import pytest
from support.data import SHARED_DATA

from lm_eval_thinkbench.locate.rule import find_statements
from lm_eval_thinkbench.math.rewrite import Rewrite, prepare_candidate, rewrite_answer
from lm_eval_thinkbench.math.verify import braces_balanced

REWRITES = [
    # pi: a whole word, or the letter
    ("8pi", r"8\pi", "pi"),
    ("20000/pi", r"20000/\pi", "pi"),
    ("(3,pi/2)", r"(3,\pi/2)", "pi"),
    ("3 pi", r"3 \pi", "pi"),
    ("pi^2/8", r"\pi^2/8", "pi"),
    ("2π", r"2\pi", "pi"),
    ("πr^2", r"\pi r^2", "pi"),  # never the control word \pir
    # radicals
    ("sqrt(2)", r"\sqrt{2}", "radical"),
    ("sqrt 2", r"\sqrt{2}", "radical"),
    ("sqrt2", r"\sqrt{2}", "radical"),
    ("sqrt{2}", r"\sqrt{2}", "radical"),
    ("2sqrt(x+1)", r"2\sqrt{x+1}", "radical"),
    ("sqrt(sqrt(16))", r"\sqrt{\sqrt{16}}", "radical"),
    ("√53", r"\sqrt{53}", "radical"),
    ("√(53)", r"\sqrt{53}", "radical"),
    ("√3/2", r"\sqrt{3}/2", "radical"),
    ("2√3", r"2\sqrt{3}", "radical"),
    ("√x", r"\sqrt{x}", "radical"),
    # a radicand in square brackets (base Qwen2.5-32B on MATH-500 idx 8: "3√[13] units")
    ("3√[13]", r"3\sqrt{13}", "radical"),
    ("sqrt[2x]", r"\sqrt{2x}", "radical"),
    ("∛2", r"\sqrt[3]{2}", "radical"),
    ("cbrt(8)", r"\sqrt[3]{8}", "radical"),
    ("∜(x)", r"\sqrt[4]{x}", "radical"),
    (r"\sqrt(x+1)", r"\sqrt{x+1}", "radical"),
    # functions followed by a parenthesis
    ("sin(x)", r"\sin(x)", "function"),
    ("arcsin(1)", r"\arcsin(1)", "function"),
    ("ln(2)", r"\ln(2)", "function"),
    ("exp(2)", r"\exp(2)", "function"),
    # symbols
    ("x²+1", "x^{2}+1", "symbol"),
    ("10⁻³", "10^{-3}", "symbol"),
    ("(2,∞)", r"(2,\infty)", "symbol"),
    ("∞x", r"\infty x", "symbol"),
    ("2·3", r"2\cdot3", "symbol"),
    # ordinals that agree with their number
    (r"12^{\mathrm{th}}", "12", "ordinal"),
    (r"12^{\text{th}}", "12", "ordinal"),
    (r"12^\text{th}", "12", "ordinal"),
    (r"12^{\rm th}", "12", "ordinal"),
    (r"12\text{th}", "12", "ordinal"),
    ("12^{th}", "12", "ordinal"),
    ("12th", "12", "ordinal"),
    ("3^{rd}", "3", "ordinal"),
    ("21st", "21", "ordinal"),
    ("2nd", "2", "ordinal"),
    ("11th", "11", "ordinal"),
    ("113th", "113", "ordinal"),
    (r"12^{\text{th}}\text{ grade}", r"12\text{ grade}", "ordinal"),
]

UNCHANGED = [
    "pipe",
    "api",
    "pig",
    r"\pi",
    r"8\pi",
    r"\text{pi}",
    r"\text{pi is irrational}",
    r"\mathrm{pie}",
    r"\sqrt{2}",
    r"2\sqrt3",
    r"\sqrt[3]{2}",
    "sqrt",
    "sqrtx",
    "sqrt()",
    "sqrt(2",
    r"\sin(x)",
    "sinx",
    "cosine(x)",
    "e",
    "e^2",
    "2e",
    "e^{i\\pi}",
    "xe^x",
    "2th",
    "1nd",
    "12rd",
    "11st",
    "12th + x",
    "12^{\\mathrm{th}",  # unbalanced: stays unbalanced, refused by the checker
    "5",
    "(1,2]",
    "[0,1)",
    r"\{1,2\}",
    "x=5",
    "",
]


@pytest.mark.parametrize(("answer", "expected", "rule"), REWRITES)
def test_rewrites(answer: str, expected: str, rule: str) -> None:
    rewritten = rewrite_answer(answer)
    assert rewritten == Rewrite(expected, (rule,))
    assert rewrite_answer(expected).text == expected  # idempotent


@pytest.mark.parametrize("answer", UNCHANGED)
def test_look_alikes_are_left_alone(answer: str) -> None:
    assert rewrite_answer(answer) == Rewrite(answer)


def test_rules_combine_in_one_answer() -> None:
    assert rewrite_answer("√pi") == Rewrite(r"\sqrt{\pi}", ("pi", "radical"))
    assert rewrite_answer("sin(pi/6)") == Rewrite(r"\sin(\pi/6)", ("function", "pi"))
    assert rewrite_answer("(sqrt(2), pi)").text == r"(\sqrt{2}, \pi)"


@pytest.mark.parametrize(
    ("gold", "candidate", "expected"),
    [
        ("5", r"5 \text{ apples}", r"5 \text{ apples}"),  # math-verify drops \text units itself
        ("5", "5 apples", "5"),
        ("7", "7 nickels", "7"),
        ("4", "4 cylindrical beakers of water", "4"),
        ("18.90", "18.90 dollars", "18.90"),
        ("5", r"\text{5 apples}", "5"),
        (r"3\sqrt{13}", "3*sqrt(13) units", r"3*\sqrt{13}"),
        (r"12\pi", "12π inches per second", r"12\pi"),
        ("12", "12th grade", "12"),
        # the gold's own words: dropped only when they are the same words
        (r"5.4 \text{ cents}", "5.4 cents", "5.4"),
        (r"3 \text{ boxes}", "3 boxes", "3"),
        (r"5 \text{ m}", "5 metres", "5 metres"),
        (r"864 \mbox{ inches}^2", "864 square inches", "864 square inches"),
        # words that change the value, letters in the value, words too short to be words
        ("2", "2 or more", "2 or more"),
        ("5", "5 million", "5 million"),
        ("9", "3 squared", "3 squared"),
        ("2", "2 is not a solution", "2 is not a solution"),
        ("5", "x = 5 apples", "x = 5 apples"),
        ("4", "4 xy", "4 xy"),
        ("4", "4 cm", "4 cm"),  # short units are math-verify's own business
        ("x", "5 apples", "5 apples"),  # a gold with letters has words of its own
        ("5", "apples", "apples"),
    ],
)
def test_words_after_a_value(gold: str, candidate: str, expected: str) -> None:
    prepared = prepare_candidate(rewrite_answer(gold).text, candidate)
    assert prepared.text == expected
    assert ("words" in prepared.rules) is (expected != rewrite_answer(candidate).text)


@pytest.mark.parametrize(
    ("gold", "candidate", "expected"),
    [
        ("E_{1},E_{2}", "E_1, E_2", "E_{1}, E_{2}"),
        ("x_1", "x_{1}", "x_1"),
        (
            r"\frac{1}{3}E_{1}+\frac{2}{3}E_{2}",
            r"\frac{1}{3}E_1+\frac{2}{3}E_2",
            r"\frac{1}{3}E_{1}+\frac{2}{3}E_{2}",
        ),
        # no subscript in the gold, or both forms; longer subscripts; text is never rewritten
        ("5", "E_1", "E_1"),
        ("E_{1}+x_2", "E_1+x_{2}", "E_1+x_{2}"),
        ("a_{10}", "a_10", "a_10"),
        ("E_{1}", r"\text{E_1}", r"\text{E_1}"),
        (r"\text{a_1} x_{1}", "x_1", "x_{1}"),
    ],
)
def test_one_character_subscripts_are_written_as_the_gold_writes_them(
    gold: str, candidate: str, expected: str
) -> None:
    """``E_1`` and ``E_{1}`` are one symbol in LaTeX, two to latex2sympy (Minerva golds)."""
    prepared = prepare_candidate(rewrite_answer(gold).text, candidate)
    assert prepared.text == expected
    assert ("subscript" in prepared.rules) is (expected != candidate)


def test_non_strings_come_back_unchanged() -> None:
    assert rewrite_answer(None) == Rewrite(None)  # type: ignore[arg-type]
    assert prepare_candidate("5", 5) == Rewrite(5)  # type: ignore[arg-type]
    assert prepare_candidate(None, "5 apples") == Rewrite("5 apples")  # type: ignore[arg-type]


def _real_statements() -> list[tuple[str, str]]:
    golds = [
        json.loads(line)["answer"]
        for line in (SHARED_DATA / "math500" / "test.jsonl").read_text().splitlines()
    ]
    pairs = []
    for name in (
        "traces/skythought_sky-t1-27b_math500.jsonl",
        "outputs/skythought_qwen2.5-math-7b_math500.jsonl",
    ):
        for line in (SHARED_DATA / name).read_text().splitlines():
            row = json.loads(line)
            pairs += [(golds[row["idx"]], s.value) for s in find_statements(row["code"][0])]
    return pairs


def test_idempotent_and_balanced_on_real_answers() -> None:
    """Every answer statement of the real Sky-T1 and Qwen2.5-Math responses: rewriting twice
    changes nothing, braces stay as balanced as they were, and no MATH-500 gold is changed."""
    pairs = _real_statements()
    assert len(pairs) > 5000
    fired = 0
    for gold, value in pairs:
        gold = rewrite_answer(gold)
        assert gold.rules == ()
        once = prepare_candidate(gold.text, value)
        assert prepare_candidate(gold.text, once.text).text == once.text
        assert braces_balanced(once.text) is braces_balanced(value)
        fired += bool(once.rules)
    assert fired > 100  # the rules do fire on real model text


@pytest.mark.parametrize(
    "text",
    [
        "sqrt(" * 200_000,
        "√" * 1_000_000,
        ")(" * 500_000,
        "pi" * 500_000,
        "{" * 1_000_000,
        "}" * 1_000_000,
        r"\text{" * 150_000,
        "12th" + " apples" * 150_000,
        "12^{\\mathrm{th}" * 70_000,
        "1 " + "a " * 500_000,
        "sin(" * 250_000 + ")" * 250_000,
        "²" * 1_000_000,
    ],
    ids=[
        "radicals",
        "radical-signs",
        "parens",
        "pis",
        "open-braces",
        "close-braces",
        "text",
        "ordinal-words",
        "ordinals",
        "words",
        "functions",
        "superscripts",
    ],
)
@pytest.mark.slow
def test_hostile_input_is_linear_and_never_raises(text: str) -> None:
    """Four times the input takes about four times as long (a quadratic rewrite: sixteen),
    whatever the machine's speed: a bound in seconds, set on one machine, failed on one twice
    as slow and busy (3.2 s for a megabyte of radical signs against 3 s)."""
    _assert_linear("5", text)


def _assert_linear(gold: str, text: str) -> None:
    """``prepare_candidate(gold, text)`` returns a string and takes less than eight times as
    long as on a quarter of ``text`` (plus half a second of slack)."""

    def seconds(value: str) -> float:
        start = time.perf_counter()
        rewritten = prepare_candidate(gold, value)
        assert isinstance(rewritten.text, str)
        return time.perf_counter() - start

    quarter = min(seconds(text[: len(text) // 4]) for _ in range(2))
    assert seconds(text) < 8 * quarter + 0.5


@pytest.mark.parametrize("text", ["_1" * 500_000, "_{" * 300_000, "_{1}" * 250_000])
@pytest.mark.slow
def test_subscripts_are_linear_and_never_raise(text: str) -> None:
    """The ``subscript`` rule on a megabyte of subscripts, against a gold that has one: four
    times the input takes about four times as long."""
    _assert_linear("E_{1}", text)
