import pytest

from lm_eval_thinkbench.response import ModelResponse, from_wire
from lm_eval_thinkbench.trace import split_trace


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
