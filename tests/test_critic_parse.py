"""Reading a critic's verdict: ProcessBench indices and DeltaBench section lists."""

import time

import pytest

from lm_eval_thinkbench.critic.filters import deltabench_record, processbench_record
from lm_eval_thinkbench.critic.parse import (
    BEYOND,
    ERROR,
    NO_ERROR,
    OFFICIAL,
    TOLERANT,
    UNPARSED,
    official_sections,
    official_step_index,
    parse_sections,
    parse_step_index,
    read_sections,
    read_step_index,
)
from lm_eval_thinkbench.locate.judge import read_first_correct
from lm_eval_thinkbench.steps import Span


@pytest.mark.parametrize(
    ("answer", "index"),
    [
        ("The earliest error is in paragraph 2.\n\n\\boxed{2}", 2),
        ("All paragraphs are correct. $\\boxed{-1}$", -1),
        ("\\boxed{ 3 }", 3),
        ("\\boxed{3.}", 3),
        ("$\\boxed{\\text{paragraph } 4}$", 4),
        ("\\boxed{paragraph_5}", 5),
        ("\\boxed{−1}", -1),
        ("\\boxed{+3}", 3),
        ("first \\boxed{1}, on reflection \\boxed{0}", 0),
        ("The error is in paragraph 2.", None),
        ("\\boxed{2 or 3}", None),
        ("\\boxed{none}", None),
        ("\\boxed{}", None),
        ("", None),
    ],
)
def test_processbench_tolerant_reading_is_the_single_integer_of_the_last_box(answer, index):
    assert parse_step_index(answer).index == index
    assert read_step_index(answer, TOLERANT).index == index


@pytest.mark.parametrize(
    ("answer", "index"),
    [
        ("The earliest error is in paragraph 2.\n\n\\boxed{2}", 2),
        ("All paragraphs are correct. $\\boxed{-1}$", -1),
        ("\\boxed{ 3 }", 3),
        ("\\boxed{+3}", 3),
        ("\\boxed{３}", 3),  # int() reads any Unicode decimal digit
        ("\\boxed{1_0}", 10),  # and underscores between digits
        ("\\boxed{2} and then some text, even 7.", 2),
        ("first \\boxed{1}, on reflection \\boxed{0}", 0),
        # read differently from the tolerant reading:
        ("\\boxed{3.}", None),
        ("\\boxed{paragraph 3}", None),
        ("$\\boxed{\\text{paragraph } 4}$", None),  # the match ends at the inner brace
        ("\\boxed{\\text{3}}", None),
        ("\\boxed{−1}", None),  # a Unicode minus is no sign to int()
        ("\\boxed{3} is my answer; the format asked for \\boxed{}.", None),  # last box empty
        ("\\boxed{{3}}", None),
        ("The error is in paragraph 2.", None),
        ("\\boxed{2 or 3}", None),
        ("", None),
    ],
)
def test_processbench_official_reading(answer, index):
    """ProcessBench's run_eval.py reading; tests/test_critic_official.py replays the script."""
    assert official_step_index(answer).index == index
    assert read_step_index(answer).index == index


def test_processbench_unknown_reading_is_an_error():
    with pytest.raises(ValueError, match="official, tolerant"):
        read_step_index("\\boxed{1}", "lenient")


def test_processbench_record_reads_only_the_answer_after_the_reasoning():
    raw = "<think>\nMaybe \\boxed{1}.\n</think>\n\nThe error is in paragraph 3. \\boxed{3}"
    assert processbench_record(raw, "think") == {
        "status": "ok",
        "prediction": 3,
        "boxed": "3",
        "reading": "official",
    }
    draft_only = "<think>\nMaybe \\boxed{1}.\n</think>\n\nI am not sure."
    assert processbench_record(draft_only, "think")["status"] == UNPARSED


def test_processbench_record_says_which_reading_it_used():
    worded = "<think>\nok\n</think>\n\n$\\boxed{\\text{paragraph } 4}$"
    official = processbench_record(worded, "think")
    assert (official["status"], official["prediction"], official["reading"]) == (
        UNPARSED,
        None,
        "official",
    )
    tolerant = processbench_record(worded, "think", TOLERANT)
    assert (tolerant["prediction"], tolerant["reading"]) == (4, "tolerant")


def test_processbench_record_of_a_truncated_critique_is_not_a_verdict():
    record = processbench_record("<think>\nSo far \\boxed{2} looks likely", "think")
    assert record == {
        "status": "truncated",
        "prediction": None,
        "boxed": None,
        "reading": "official",
    }


def test_processbench_record_without_reasoning_markers():
    assert processbench_record("\\boxed{-1}", "none")["prediction"] == -1


@pytest.mark.parametrize("markers", ["auto", "none"])
def test_a_critic_that_writes_no_reasoning_is_read_on_its_whole_reply(markers):
    """GPT-4o-style replies: no thought markers, the verdict straight away (``auto`` is the
    default marker setting)."""
    reply = "Paragraph 0 is correct.\nParagraph 1 is incorrect.\n\n\\boxed{1}"
    record = processbench_record(reply, markers)
    assert (record["status"], record["prediction"]) == ("ok", 1)
    verdict = deltabench_record("Conclusion: yes\nError Section Number: 4\nExplanation: x", markers)
    assert (verdict["status"], verdict["sections"]) == (ERROR, [4])


@pytest.mark.parametrize(
    ("answer", "status", "sections", "listed", "fmt"),
    [
        ("Conclusion: no error", NO_ERROR, (), (), "template"),
        ("**Conclusion:** No error.", NO_ERROR, (), (), "template"),
        (
            "Conclusion: yes\nError Section Number: 4\nExplanation: bad bound.\n"
            "Error Section Number: 2\nExplanation: wrong sign.",
            ERROR,
            (2, 4),
            (4, 2),
            "template",
        ),
        # duplicates count once; several numbers in one entry
        (
            "Conclusion: yes\nError Section Number: 3\nExplanation: a\n"
            "Error Section Number: 3\nExplanation: again",
            ERROR,
            (3,),
            (3, 3),
            "template",
        ),
        (
            "Conclusion: yes\nError Section Number: [3, 5]\nExplanation: x",
            ERROR,
            (3, 5),
            (3, 5),
            "template",
        ),
        (
            "Conclusion: yes\nError Section Number: sections 3 and 7",
            ERROR,
            (3, 7),
            (3, 7),
            "template",
        ),
        # a number after other words is not a section number
        (
            "Conclusion: yes\nError Section Number: 6 (see step 12)\nExplanation: x",
            ERROR,
            (6,),
            (6,),
            "template",
        ),
        (
            "### Conclusion: yes\n**Error Section Number:** 9\n**Explanation:** x",
            ERROR,
            (9,),
            (9,),
            "template",
        ),
        # "no error" wins over stray numbers, as in the reference script
        ("Conclusion: no error\nError Section Number: 4", NO_ERROR, (), (), "template"),
        # an error conclusion without numbers flags nothing
        ("Conclusion: yes", ERROR, (), (), "template"),
        # entries without a conclusion line still count
        ("Error Section Number: 2\nExplanation: x", ERROR, (2,), (2,), "template"),
        ("Conclusion: the solution is correct", NO_ERROR, (), (), "template"),
        ("Conclusion: there are errors\nError Section Number: 5", ERROR, (5,), (5,), "template"),
        # free-form replies
        (
            "Section 2 is fine. I believe the mistake is in section 4 and section 6.",
            ERROR,
            (4, 6),
            (4, 6),
            "free_form",
        ),
        ("The errors are in sections 3, 5 and 8.", ERROR, (3, 5, 8), (3, 5, 8), "free_form"),
        ("After checking every step, all sections are correct.", NO_ERROR, (), (), "free_form"),
        ("There are no errors in section 3.", NO_ERROR, (), (), "free_form"),
        ("I am not able to judge this solution.", UNPARSED, (), (), None),
        ("", UNPARSED, (), (), None),
    ],
)
def test_deltabench_verdicts(answer, status, sections, listed, fmt):
    verdict = parse_sections(answer)
    assert (verdict.status, verdict.sections, verdict.listed, verdict.format) == (
        status,
        sections,
        listed,
        fmt,
    )


def test_deltabench_conclusion_is_the_one_before_the_first_entry():
    answer = (
        "Conclusion: no error\n\nOn reflection:\nConclusion: yes\nError Section Number: 2\n"
        "Explanation: x\n\nConclusion: no error"
    )
    assert parse_sections(answer).sections == (2,)


def test_deltabench_record_ignores_drafts_in_the_reasoning_and_keeps_truncations_apart():
    raw = "<think>\nConclusion: yes\nError Section Number: 9\n</think>\n\nConclusion: no error"
    assert deltabench_record(raw, "think")["status"] == NO_ERROR
    cut = deltabench_record("<think>\nConclusion: yes\nError Section Number: 9", "think")
    assert cut == {
        "status": "truncated",
        "format": None,
        "sections": [],
        "listed": [],
        "reading": "official",
    }


@pytest.mark.parametrize(
    ("answer", "status", "sections", "listed", "fmt"),
    [
        ("Conclusion: no error", NO_ERROR, (), (), "template"),
        (
            "Conclusion: yes\nError Section Number: 4\nExplanation: bad bound.\n"
            "Error Section Number: 2\nExplanation: wrong sign.",
            ERROR,
            (2, 4),
            (4, 2),
            "template",
        ),
        (
            "**Conclusion:** Yes\n**Error Section Number:** 9\n**Explanation:** x",
            ERROR,
            (9,),
            (9,),
            "template",
        ),
        # the first number of each entry only
        (
            "Conclusion: yes\nError Section Number: [3, 5]\nExplanation: x",
            ERROR,
            (3,),
            (3,),
            "template",
        ),
        ("Conclusion: yes\nError Section Number: sections 3 and 7", ERROR, (3,), (3,), "template"),
        ("Conclusion: yes\nError Section Number: 6 (see step 12)", ERROR, (6,), (6,), "template"),
        # ... before the entry's Explanation:, else anywhere up to the next entry
        (
            "Conclusion: yes\nError Section Number: see below\nExplanation: 4",
            ERROR,
            (-1,),
            (-1,),
            "template",
        ),
        ("Conclusion: yes\nError Section Number: see section 4", ERROR, (4,), (4,), "template"),
        # an entry without a number is a flag on section -1 (a false positive)
        (
            "Conclusion: yes\nError Section Number: 2\nExplanation: x\n"
            "Error Section Number: [section number]\nExplanation: [explanation]",
            ERROR,
            (-1, 2),
            (2, -1),
            "template",
        ),
        ("Conclusion: yes\nError Section Number: ٣\nExplanation: x", ERROR, (3,), (3,), "template"),
        ("Conclusion: yes\nError Section Number: 007", ERROR, (7,), (7,), "template"),
        # "yes" anywhere in the conclusion, and only there
        ("Conclusion: the eyes have it\nError Section Number: 2", ERROR, (2,), (2,), "template"),
        ("Conclusion: there are errors\nError Section Number: 5", NO_ERROR, (), (), "template"),
        ("Conclusion: no error\nError Section Number: 4", NO_ERROR, (), (), "template"),
        (
            "Conclusion: no error\nOn reflection:\nConclusion: yes\nError Section Number: 2",
            ERROR,
            (2,),
            (2,),
            "template",
        ),
        # labels are exact: a plural label is no entry, a lower-case one no conclusion
        ("Conclusion: yes\nError Section Numbers: 3, 5", ERROR, (), (), "template"),
        ("conclusion: no error\nerror section number: 3", UNPARSED, (), (), None),
        ("Yes, section 4 is wrong.", ERROR, (), (), "free_form"),
        ("Error Section Number: 2\nExplanation: x", UNPARSED, (), (), "template"),
        ("I believe the mistake is in section 4.", UNPARSED, (), (), None),
        ("", UNPARSED, (), (), None),
    ],
)
def test_deltabench_official_reading(answer, status, sections, listed, fmt):
    """DeltaBench's evaluation.py reading; tests/test_critic_deltabench_reference.py replays
    the script itself."""
    for verdict in (official_sections(answer), read_sections(answer)):
        assert (verdict.status, verdict.sections, verdict.listed, verdict.format) == (
            status,
            sections,
            listed,
            fmt,
        )


def test_deltabench_record_says_which_reading_it_used():
    reply = "Conclusion: yes\nError Section Number: 3, 5\nExplanation: x"
    official = deltabench_record(reply, "none")
    assert (official["sections"], official["reading"]) == ([3], "official")
    tolerant = deltabench_record(reply, "none", TOLERANT)
    assert (tolerant["sections"], tolerant["reading"]) == ([3, 5], "tolerant")
    with pytest.raises(ValueError, match="official, tolerant"):
        read_sections(reply, "lenient")


# ----- hostile verdicts ----------------------------------------------------------------------

HUGE = "9" * 5000  # beyond Python's 4,300-digit limit for int()


def test_numbers_beyond_the_int_limit_are_read_without_converting_them():
    entry = f"Conclusion: yes\nError Section Number: {HUGE}\nExplanation: x"
    for reading in (OFFICIAL, TOLERANT):
        assert read_sections(entry, reading).sections == (BEYOND,)
        assert deltabench_record(entry, "none", reading)["sections"] == [BEYOND]
    assert parse_sections(f"The mistake is in section {HUGE}.").sections == (BEYOND,)
    assert parse_step_index(f"\\boxed{{{HUGE}}}").index == BEYOND
    assert parse_step_index(f"\\boxed{{-{HUGE}}}").index == -BEYOND
    assert parse_step_index("\\boxed{" + "0" * 5000 + "3}").index == 3
    # ProcessBench's script: int() raises, its bare except gives None
    assert official_step_index(f"\\boxed{{{HUGE}}}").index is None
    assert processbench_record(f"\\boxed{{{HUGE}}}", "none")["status"] == UNPARSED
    # The judge locator's \boxed{i}: an index outside the steps, not a crash.
    verdict = read_first_correct(f"\\boxed{{{HUGE}}}", "a\n\nb", [Span(0, 1), Span(3, 4)])
    assert "outside steps 0..1" in str(verdict)


#: A megabyte each, shaped against the readers' patterns: runs of spaces inside an entry, a box
#: and a conclusion, labels repeated 100,000 times, unclosed boxes.
MEGABYTE_REPLIES = [
    ("Conclusion: yes\nError Section Number: 1" + " " * 1_000_000 + "x", (1,), (1,)),
    ("Conclusion: yes\nError Section Number: [" + " " * 1_000_000 + "x", (-1,), ()),
    ("Conclusion:" * 100_000, (), None),
    ("Conclusion: yes\n" * 70_000 + "Error Section Number: 2", (2,), (2,)),
    ("Error Section Number:" + " " * 1_000_000 + "3", None, (3,)),
    ("section " * 125_000, None, None),
    ("There is a mistake in section 1" + " and" * 250_000, None, (1,)),
    ("no" + " " * 1_000_000 + "x", None, None),
]
MEGABYTE_BOXES = [
    ("\\boxed{" * 140_000, None, None),
    ("\\boxed{3" + " " * 1_000_000 + "x}", None, None),
    ("\\boxed{" + " " * 1_000_000 + "3}", 3, 3),
    ("\\boxed{-" + " " * 1_000_000 + "3}", None, -3),
]


@pytest.mark.parametrize(("reply", "official", "tolerant"), MEGABYTE_REPLIES)
def test_a_megabyte_deltabench_reply_is_read_in_linear_time(reply, official, tolerant):
    """Reading time is the behaviour under test: a linear reader takes well under a second on
    a megabyte, a quadratic one hours (one with ``\\s*(?:,|\\s)\\s*`` took 60 s on 40,000
    spaces, and 4x per doubling). So 2 s is no benchmark, just the line between the two."""
    for reading, want in ((OFFICIAL, official), (TOLERANT, tolerant)):
        start = time.perf_counter()
        verdict = read_sections(reply, reading)
        assert time.perf_counter() - start < 2.0, reading
        got = None if verdict.status == UNPARSED else verdict.sections
        assert got == want, reading


@pytest.mark.parametrize(("reply", "official", "tolerant"), MEGABYTE_BOXES)
def test_a_megabyte_processbench_reply_is_read_in_linear_time(reply, official, tolerant):
    """As above; ProcessBench's own box regex rescans to the end from every unclosed box."""
    for reading, want in ((OFFICIAL, official), (TOLERANT, tolerant)):
        start = time.perf_counter()
        verdict = read_step_index(reply, reading)
        assert time.perf_counter() - start < 2.0, reading
        assert verdict.index == want, reading


@pytest.mark.parametrize("raw", [None, b"\xff\xfe", 42, "{", "<think>", "\\boxed{" * 1000])
def test_broken_model_output_never_raises(raw):
    assert processbench_record(raw, "think")["prediction"] is None
    assert deltabench_record(raw, "think")["sections"] == []
