import random

import pytest
from support.data import r1_reasonings

from lm_eval_thinkbench.locate.rule import find_statements, locate_first_correct
from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.steps import split_separator


@pytest.fixture(scope="module")
def grader():
    with Grader(deadline=3.0) as g:
        yield g


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("So the answer is $\\frac{14}{3}$.", ["\\frac{14}{3}"]),
        ("That means the answer is 12.", ["12"]),
        ("Thus the value we are looking for is $3\\sqrt{13}$.", ["3\\sqrt{13}"]),
        ("Therefore, the required value $= 7$.", ["7"]),
        ("Hence the result is $\\boxed{x=5}$.", ["x=5"]),
        ("Final check.\nAnswer: $2.5$", ["2.5"]),
        ("**Final Answer**\n\\[\n\\boxed{\\$18.90}\n\\]", ["\\$18.90"]),
        ("So the total is $11,\\! 111,\\! 100$.", ["11,\\! 111,\\! 100"]),
        # not statements: restating, intermediate quantities, hedged guesses
        ("We are told the sum is 10 and x = 4.", []),
        ("One value I keep coming back to is $5$, but I have not justified it.", []),
        ("Maybe something like $5$ could come out, though I can't confirm it.", []),
    ],
)
def test_answer_statements(text, values):
    assert [s.value for s in find_statements(text)] == values


def test_earliest_committed_step_is_found(grader):
    reasoning = (
        "The problem asks for 1/2 + 1/4. We are told the result is a fraction.\n\n"
        "So the answer is $\\frac{1}{2}$.\n\n"  # wrong statement first
        "Wait, I forgot the quarter; adding it changes things.\n\n"
        "So the answer is $0.75$.\n\n"  # equivalent to the gold, different form
        "Let me verify: yes, the answer is $\\frac{3}{4}$."
    )
    steps = split_separator(reasoning)
    found = locate_first_correct(reasoning, steps, "\\frac{3}{4}", grader)
    assert found.step_index == 3
    assert found.char_end == steps[3].end
    assert found.quote == "the answer is $0.75$" and found.value == "0.75"
    assert found.rule == "answer"


def test_the_computation_that_produces_the_answer_is_the_commitment(grader):
    """The protocol counts the result of the computation of the asked quantity, not only a
    later "the answer is"."""
    reasoning = (
        "The problem asks for 1/2 + 1/4.\n\n"
        "Wait, I forgot the quarter. 1/2 + 1/4 = 3/4.\n\n"
        "So the answer is $0.75$."
    )
    found = locate_first_correct(reasoning, split_separator(reasoning), "\\frac{3}{4}", grader)
    assert (found.step_index, found.quote, found.rule) == (1, "1/2 + 1/4 = 3/4", "result")


def test_intermediate_equal_to_gold_is_not_a_commitment(grader):
    """A value named as something else (what is left of a cake) is not the answer when the
    model goes on to answer something different."""
    reasoning = "We have 3/4 of the cake left, that is 0.75.\n\nTherefore the answer is 2."
    found = locate_first_correct(reasoning, split_separator(reasoning), "\\frac{3}{4}", grader)
    assert found.step_index is None and found.rule is None and found.candidates >= 1


def test_no_statements_no_checks(grader):
    found = locate_first_correct("", [], "1", grader)
    assert (found.step_index, found.candidates) == (None, 0)


def test_hostile_statement_before_the_right_one_costs_at_most_the_budget(grader):
    import time

    reasoning = "So the answer is $5^{5^{5^{5^5}}}$.\n\nSo the answer is $5$."
    t = time.monotonic()
    found = locate_first_correct(reasoning, split_separator(reasoning), "5", grader)
    assert found.step_index == 1
    assert time.monotonic() - t < 2 * 3.0 + 2


def _locate_texts() -> list[str]:
    """Real R1 traces and seeded random texts built from the pieces the statement rules look
    at (keywords in every case, look-alike letters, boundaries, spacing)."""
    texts = r1_reasonings()
    pieces = ["answer", "ANSWER", "anſwer", "the", "The", "final", "Final", "so", "So", "sO",
              "thus", "Therefore", "hence", "that gives", "which  gives", "this\ngives", "WHICH",
              " is ", " = ", "$=", ":", "=", "5", "\\frac{1}{2}", "$x$", ". ", "? ", "!", "\n",
              "\n\n", "  ", " ", "\t", "(", ")", "x", "should be", "would be", ".", ",", "x_so",
              "so_", "3so", "ſo", "K", "İ"]  # fmt: skip
    rng = random.Random(0)
    texts += ["".join(rng.choices(pieces, k=rng.randint(1, 40))) for _ in range(3000)]
    return texts


def test_statement_search_finds_what_the_patterns_find():
    """find_statements looks for the key words first and tries its patterns only near them;
    the matches are those of scanning the whole text with each pattern."""
    from lm_eval_thinkbench.locate import rule

    rules = [
        (rule._PHRASE, rule._ANSWER_WORDS, rule._phrase_start),
        (rule._CONCLUSION, rule._CONCLUSION_WORDS, rule._conclusion_start),
    ]
    found = 0
    for text in _locate_texts():
        for pattern, words, earliest in rules:
            fast = [m.span("value") for m in rule._near_words(text, words, pattern, earliest)]
            assert fast == [m.span("value") for m in pattern.finditer(text)], text
            found += len(fast)
    assert found > 500
