"""Final-answer extraction: which string is taken from a response, and by which rule."""

from __future__ import annotations

import json
import time

import pytest
from support.data import SHARED_DATA

from lm_eval_thinkbench.math.extract import (
    Extraction,
    all_boxed,
    extract_final_answer,
    last_boxed,
    strip_answer,
)

EXTRACTIONS = [
    # boxed, including nesting, several boxes, brace-less and \fbox
    (r"so $\boxed{\frac{a}{b}}$.", r"\frac{a}{b}", "boxed"),
    (r"\boxed{\frac{\sqrt{3}}{2}}", r"\frac{\sqrt{3}}{2}", "boxed"),
    (r"first \boxed{1}, then on reflection \boxed{2}", "2", "boxed"),
    (r"The answer is \boxed 5", "5", "boxed"),
    (r"$\boxed 12$.", "12", "boxed"),
    (r"\fbox{7}", "7", "boxed"),
    (r"\boxed {  x = 3 }", "x = 3", "boxed"),
    (r"\boxed{\{1,2\}}", r"\{1,2\}", "boxed"),
    (
        r"\boxed{\begin{pmatrix} 1 \\ 2 \end{pmatrix}}",
        r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}",
        "boxed",
    ),
    (r"\boxed{$5$}.", "5", "boxed"),
    # an unterminated box is skipped: an earlier closed box, or the next rule, wins
    (r"\boxed{4} and then \boxed{5", "4", "boxed"),
    (r"so the answer is 9. \boxed{", "9", "answer_phrase"),
    (r"\boxed{5 and \boxed{6} ok", "6", "boxed"),
    # an empty box (the instruction echoed back) is not an answer
    (r"Return your final response within \boxed{}. We get $x=3$", "x=3", "last_math"),
    # phrases
    (
        "The final answer is $\\frac{1}{2}$. I hope it is correct.",
        r"\frac{1}{2}",
        "final_answer_phrase",
    ),
    ("Final Answer: The final answer is $5$. I hope it is correct.", "5", "final_answer_phrase"),
    ("final answer: 3.5", "3.5", "final_answer_phrase"),
    ("The answer is 42.", "42", "answer_phrase"),
    ("The answer is 42. Let me double check that.", "42", "answer_phrase"),
    ("Answer: x = 3", "x = 3", "answer_phrase"),
    # an answer phrase before a sentence: the value the sentence states (base Qwen2.5-32B on
    # MATH-500: "Answer: The smallest possible value of c is π.")
    ("Answer: The smallest possible value of c is π.", "π", "answer_phrase"),
    ("Answer: The value of a + b is 4.", "4", "answer_phrase"),
    ("The answer is Evelyn.", "Evelyn", "answer_phrase"),
    (
        "Answer: 196 has 9 positive whole-number divisors.",
        "196 has 9 positive whole-number divisors",
        "answer_phrase",
    ),
    ("**Answer:** 7", "7", "answer_phrase"),
    (r"The answer is \(\frac{1}{2}\), done", r"\frac{1}{2}", "answer_phrase"),
    ("the answer is 4\nbut wait, the answer is 5.", "5", "answer_phrase"),
    ("the final answer is 4\nAnswer: 6", "4", "final_answer_phrase"),
    # a conclusion in words: the value after its last "is"/"="/"equals", outside math
    ("So the number of apples is 5.", "5", "conclusion"),
    (
        "Therefore, the remainder when $(n + 2)(n + 4)$ is divided by 7 is 3.\nThis shows it.",
        "3",
        "conclusion",
    ),
    (r"Thus, the total is \(42\).", "42", "conclusion"),
    (r"Hence $x$ equals $\frac{1}{2}$.", r"\frac{1}{2}", "conclusion"),
    ("We get 3. So the sum equals 12! Nice", "12", "conclusion"),
    ("Hence x = 4", "4", "conclusion"),
    ("In conclusion, the mean is 7.5.", "7.5", "conclusion"),
    ("**Therefore**, the sum is 10.", "10", "conclusion"),
    ("So the area is 12. We check: $12 = 3 \\cdot 4$", "12", "conclusion"),
    # a conclusion of one step is no answer when the working goes on to a further step
    # (real: gemma-2-27b-it on MATH-500 concludes f^{-1}(0) = 0, then starts on f^{-1}(6));
    # a heading of the conclusion itself is no further step
    ("* Therefore, *f(0) = 0*.\n\n**3. Calculate f(6)**\n\n* Since 6 > 3, ...", None, "none"),
    ("Thus r = 7.\n4. **Finding the area:** half of it", None, "none"),
    (
        "Therefore, the remainder is 3.\n\n5. **Conclusion:**\n   The remainder is 3.",
        "3",
        "conclusion",
    ),
    # a conclusion with no verb to read after states the one number its words hold (real:
    # Qwen2.5-Math-7B on MATH-500), and nothing where they hold two or none
    (
        "Therefore, it will take 4 cylindrical beakers of water to fill the spherical tank.",
        "4",
        "conclusion",
    ),
    ("So, for n from 1 to 10, we count them all.", None, "none"),
    ("Thus we need 2x beakers and f(3) more.", None, "none"),
    # ... and where it states nothing, the next rule decides
    ("So, we have:\n$$x=3$$", "x=3", "last_math"),
    ("Thus, $x = 3.5$ holds.", "x = 3.5", "last_math"),
    ("and so x is 4", None, "none"),  # "so" mid-sentence opens no conclusion
    ("The answer is 5. So x is 3.", "5", "answer_phrase"),
    (r"So x is 3. \boxed{4}", "4", "boxed"),
    # a value in bold after "=" or ":" when nothing is boxed (real: gemma-2-27b-it on AMC and
    # Minerva, "m + n = 25 + 169 = **194**"), before the last math span; a bold heading, a bold
    # word or a step that the working goes on from gives none
    ("m + n = 25 + 169 = **194**", "194", "bold"),
    ("Then $z = 0.033$, so\n\nv/c = z = **0.033**", "0.033", "bold"),
    ("The value is: **$\\frac{1}{2}$**.", "\\frac{1}{2}", "bold"),
    ("* *f(0)* = **0**.\n\n**3. Calculate f(6)**\n\n* Since 6 > 3", None, "none"),
    ("the winner is: **Evelyn**", None, "none"),
    ("x = 2**3", None, "none"),
    ("3. **Calculate:** λ = c / v = 2.78 m ≈ **2.78 m**", "2.78 m", "bold"),
    # the last math span
    ("we get $x$ and then $y=2$ so", "y=2", "last_math"),
    (r"hence \[ \frac{3}{4} \] holds", r"\frac{3}{4}", "last_math"),
    (r"it costs \$5 and $x = 2$", "x = 2", "last_math"),
    # nothing
    ("no answer here", None, "none"),
    ("", None, "none"),
]


@pytest.mark.parametrize(("text", "value", "method"), EXTRACTIONS)
def test_extract_final_answer(text: str, value: str | None, method: str) -> None:
    assert extract_final_answer(text) == Extraction(value, method)


def test_non_string_input_extracts_nothing() -> None:
    assert extract_final_answer(None) == Extraction(None, "none")  # type: ignore[arg-type]
    assert all_boxed(None) == []  # type: ignore[arg-type]


def test_all_boxed_offsets_and_order() -> None:
    text = r"a \boxed{1} b \fbox{x^{2}} c \boxed 7 d \boxed{\boxed{3}}"
    boxes = all_boxed(text)
    assert [content for _, _, content in boxes] == ["1", "x^{2}", "7", r"\boxed{3}"]
    assert all(text[start] == "\\" for start, _, _ in boxes)
    assert text[boxes[0][0] : boxes[0][1]] == r"\boxed{1}"
    assert text[boxes[1][0] : boxes[1][1]] == r"\fbox{x^{2}}"
    assert text[boxes[2][0] : boxes[2][1]] == r"\boxed 7"


def test_boxed_is_a_whole_control_word() -> None:
    assert last_boxed(r"\boxedanswer{5}") is None
    assert last_boxed(r"\boxed{5}") == "5"


def test_unbalanced_braces_never_raise() -> None:
    for text in [r"\boxed{", r"\boxed{{{", "}}}" + r"\boxed{1}", r"\boxed{a}}}{{", "{" * 50]:
        extract_final_answer(text)
    assert last_boxed("}}}" + r"\boxed{1}") == "1"
    assert last_boxed(r"\boxed{a}}}{{") == "a"


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        ("  5  ", "5"),
        ("$5$", "5"),
        ("$5$.", "5"),
        ("5.", "5"),
        ("$$x$$", "x"),
        (r"\$18.90", r"\$18.90"),
        ("3.5", "3.5"),
        ("1,2,3", "1,2,3"),
    ],
)
def test_strip_answer(s: str, expected: str) -> None:
    assert strip_answer(s) == expected


@pytest.mark.parametrize(
    "text",
    [
        r"\boxed{" * 300_000,
        "{" * 1_000_000,
        r"\boxed" * 150_000,
        "$" * 1_000_000,
        "answer is " * 100_000,
        r"\(" * 500_000,
        "." * 1_000_000,
        (r"\boxed{a}" + "}" * 5 + "{" * 5) * 50_000,
        ". So x = " * 110_000,
        "So " + "is $" * 250_000,
        "\nThus " * 140_000,
    ],
    ids=[
        "open-boxes",
        "braces",
        "bare-boxes",
        "dollars",
        "phrases",
        "parens",
        "dots",
        "mixed",
        "conclusions",
        "conclusion-math",
        "conclusion-lines",
    ],
)
def test_linear_on_megabyte_input(text: str) -> None:
    start = time.perf_counter()
    extract_final_answer(text)
    assert time.perf_counter() - start < 2.0


def test_real_non_reasoning_responses_still_extract_their_last_box() -> None:
    """Qwen2.5-Math-7B writes no thought markers; every response of its MATH-500 run that has
    a box is graded on its last box, whatever words or conclusions come after it."""
    path = SHARED_DATA / "outputs" / "skythought_qwen2.5-math-7b_math500.jsonl"
    responses = [json.loads(line)["code"][0] for line in path.read_text().splitlines()]
    boxed = [r for r in responses if last_boxed(r) is not None]
    assert len(responses) == 500 and len(boxed) >= 390
    for response in boxed:
        assert extract_final_answer(response) == Extraction(
            strip_answer(last_boxed(response)), "boxed"
        )
