import pytest

from lm_eval_thinkbench.response import ModelResponse, from_wire
from lm_eval_thinkbench.trace import custom_markers, detect_markers, mark_length_stop, split_trace


def test_think_tags_split_at_last_end_marker():
    t = split_trace("<think>\nI think </think> is a tag.\n</think>\n\nThe answer is \\boxed{4}.")
    assert t.reasoning == "I think </think> is a tag."
    assert t.answer == "The answer is \\boxed{4}."
    assert not t.truncated and t.source == "markers"


def test_template_opened_tag_missing_from_response():
    # DeepSeek-R1's chat template puts "<think>\n" in the prompt: the response starts mid-thought.
    t = split_trace("Let me add.\n\n2+2=4.\n</think>\n\\boxed{4}")
    assert t.reasoning == "Let me add.\n\n2+2=4."
    assert t.answer == "\\boxed{4}"


def test_no_end_marker_is_truncated_and_all_reasoning():
    t = split_trace("<think>\nStill thinking about \\boxed{3")
    assert t.truncated
    assert t.answer == ""
    assert t.reasoning == "Still thinking about \\boxed{3"


@pytest.mark.parametrize(
    ("markers", "text", "reasoning", "answer"),
    [
        ("kimi", "◁think▷hmm◁/think▷ \\boxed{1}", "hmm", "\\boxed{1}"),
        (
            "gpt-oss",
            "<|channel|>analysis<|message|>We need 1.<|end|><|start|>assistant"
            "<|channel|>final<|message|>\\boxed{1}<|return|>",
            "We need 1.",
            "\\boxed{1}",
        ),
        ("gpt-oss", "analysisWe need 1.assistantfinal\\boxed{1}", "We need 1.", "\\boxed{1}"),
        ("none", "Just \\boxed{1}", "", "Just \\boxed{1}"),
    ],
)
def test_other_model_families(markers, text, reasoning, answer):
    t = split_trace(text, markers)
    assert (t.reasoning, t.answer, t.truncated) == (reasoning, answer, False)


def test_separate_reasoning_field_wins():
    wire = ModelResponse(content="\\boxed{2}", reasoning="1+1=2", finish_reason="stop").to_wire()
    t = split_trace(wire)
    assert (t.reasoning, t.answer, t.truncated, t.source) == ("1+1=2", "\\boxed{2}", False, "field")


def test_separate_field_cut_by_length_is_truncated():
    wire = ModelResponse(content="", reasoning="long...", finish_reason="length").to_wire()
    assert split_trace(wire).truncated


def test_empty_reasoning_field_falls_back_to_inline_markers():
    wire = ModelResponse(content="<think>a</think>b", reasoning="").to_wire()
    t = split_trace(wire)
    assert (t.reasoning, t.answer, t.source) == ("a", "b", "markers")


@pytest.mark.parametrize(
    "raw", [None, "", b"\xff\xfe<think>x</think>y", 12, '{"thinkbench_response": 1,']
)
def test_broken_input_never_raises(raw):
    t = split_trace(raw)
    assert isinstance(t.reasoning, str) and isinstance(t.answer, str)


def test_null_content_from_a_server_is_empty_text():
    assert from_wire(None).content == ""
    assert from_wire('{"thinkbench_response": 1, "content": null}').content == ""


def test_unknown_marker_set_names_the_known_ones():
    with pytest.raises(ValueError, match="gpt-oss"):
        split_trace("x", "qwen9")


def test_one_megabyte_response_splits_quickly():
    text = "<think>" + "step. " * 200_000 + "</think>\\boxed{1}"
    t = split_trace(text)
    assert t.answer == "\\boxed{1}" and len(t.reasoning) > 1_000_000


SKY_T1 = (
    "<|begin_of_thought|>\n\nSo 2+2.\n\nIt is 4.\n\n<|end_of_thought|>\n\n"
    "<|begin_of_solution|>\n\nThe sum is \\(\\boxed{4}\\).\n\n<|end_of_solution|>"
)


def test_sky_t1_thought_and_solution_markers():
    t = split_trace(SKY_T1, "thought")
    assert t.reasoning == "So 2+2.\n\nIt is 4."
    assert t.answer == "The sum is \\(\\boxed{4}\\)."
    assert not t.truncated and t.markers == "thought"


@pytest.mark.parametrize(
    ("text", "family"),
    [
        (SKY_T1, "thought"),
        ("<|begin_of_thought|>\n\nStill going", "thought"),
        ("Let me add.\n</think>\n4", "think"),
        ("◁think▷hmm◁/think▷ 1", "kimi"),
        ("analysisWe need 1.assistantfinal1", "gpt-oss"),
        ("<|channel|>analysis<|message|>We need", "gpt-oss"),
        ("analysis of the problem shows \\boxed{1}", "none"),
        ("Plain solution: \\boxed{1}", "none"),
    ],
)
def test_auto_detects_the_family_of_one_response(text, family):
    t = split_trace(text)  # the default is auto
    assert t.markers == family


def test_a_response_with_no_markers_is_a_complete_answer():
    t = split_trace("We add: 2+2 = 4.\n\n\\boxed{4}")
    assert (t.reasoning, t.truncated, t.source, t.markers) == ("", False, "none", "none")
    assert t.answer == t.thought == "We add: 2+2 = 4.\n\n\\boxed{4}"


def test_a_plain_answer_cut_by_the_length_limit_is_truncated():
    cut = ModelResponse(content="We add: 2+2", finish_reason="length")
    assert split_trace(cut).truncated


def test_run_detection_reads_unmarked_cut_thoughts_as_truncated():
    # An R1-style template opens <think> in the prompt: finished responses show only
    # </think>, a response cut at the limit shows no marker at all.
    run = ["a\n</think>\n\\boxed{1}", "b\n</think>\n\\boxed{2}", "still thinking about 3"]
    family = detect_markers(run)
    assert family.name == "think"
    assert [split_trace(r, family).truncated for r in run] == [False, False, True]
    assert split_trace(run[2]).truncated is False  # alone, it reads as a plain answer


def test_run_of_plain_answers_detects_none():
    assert detect_markers(["\\boxed{1}", "so 2", ""]).name == "none"
    assert detect_markers([]).name == "none"


def test_run_detection_takes_the_majority_family():
    run = [SKY_T1, SKY_T1, "x</think>y"]
    assert detect_markers(run).name == "thought"


def test_custom_markers_are_literal():
    mine = custom_markers("[[reason]]", "[[/reason]]")
    t = split_trace("[[reason]]a.b*[[/reason]] \\boxed{1}", mine)
    assert (t.reasoning, t.answer, t.markers) == ("a.b*", "\\boxed{1}", "custom")
    assert split_trace("[[reason]] no end", mine).truncated
    with pytest.raises(ValueError, match="empty"):
        custom_markers(None, "")


def test_lone_surrogates_become_replacement_characters():
    assert from_wire("a\ud800b").content == "a\ufffdb"
    assert from_wire('{"thinkbench_response": 1, "content": "x\\ud800"}').content == "x\ufffd"
    assert from_wire("\ud83d\ude00").content == "\U0001f600"  # a split pair is joined
    split_trace("<think>\udc80</think>\\boxed{1}").answer.encode("utf-8")


def test_deeply_nested_envelope_is_plain_text_not_a_crash():
    raw = '{"thinkbench_response": 1, "content": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert from_wire(raw).content == raw


def test_one_stray_marker_does_not_make_a_plain_run_reasoning():
    run = ["\\boxed{1}"] * 99 + ["I write </think> for fun. \\boxed{2}"]
    assert detect_markers(run).name == "none"
    assert detect_markers(run[:10] + run[-1:]).name == "think"  # 1 in 11 is past 5%


def test_mark_length_stop_only_without_a_finish_reason():
    count = len  # one "token" per character
    assert mark_length_stop(ModelResponse("x" * 95), 100, count).finish_reason == "length"
    assert mark_length_stop(ModelResponse("x" * 94), 100, count).finish_reason is None
    told = ModelResponse("x" * 100, finish_reason="stop")
    assert mark_length_stop(told, 100, count).finish_reason == "stop"
    assert mark_length_stop(ModelResponse("x" * 100), None, count).finish_reason is None
