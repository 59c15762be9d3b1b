"""The judge client against a real HTTP server process on 127.0.0.1, faults included."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import pytest

from lm_eval_thinkbench.judge.cache import JudgeCache, cache_key
from lm_eval_thinkbench.judge.client import DEADLINE_GRACE, JudgeClient, JudgeRunner, parse_reply
from lm_eval_thinkbench.judge.settings import JudgeSettings
from lm_eval_thinkbench.simulate.server import FakeOpenAIServer

API_KEY = "sk-judge-Qx7SECRETVALUE"
RULES = [
    {"match": "ALWAYS_500", "status": 500, "retry_after_ms": 10},
    {"match": "ONCE_429", "status": 429, "times": 1, "retry_after_ms": 10},
    {"match": "ONCE_500", "status": 500, "times": 1, "retry_after_ms": 10},
    {"match": "ALWAYS_SLOW", "delay": 3.0},
    {"match": "ONCE_SLOW", "delay": 3.0, "times": 1},
    {"match": "ALWAYS_MALFORMED", "action": "malformed"},
    {"match": "ONCE_MALFORMED", "action": "malformed", "times": 1},
    {"match": "ALWAYS_DROP", "action": "drop"},
    {"match": "ONCE_DROP", "action": "drop", "times": 1},
    {"match": "BAD_REQUEST", "status": 400, "error": "scripted bad request"},
    {"match": "", "content": "verdict for: {last_user}"},
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    with FakeOpenAIServer(tmp_path_factory.mktemp("judge"), RULES, api_key=API_KEY) as srv:
        yield srv


def settings(server: FakeOpenAIServer, **kw) -> JudgeSettings:
    base = {
        "model": "judge",
        "base_url": server.base_url,
        "api_key": API_KEY,
        "concurrency": 4,
        "timeout": 0.5,
        "max_retries": 2,
        "retry_base": 0.01,
    }
    return JudgeSettings(**{**base, **kw})


def ask(server, prompts, cache=None, **kw):
    with JudgeRunner(JudgeClient(settings(server, **kw), cache, "test")) as runner:
        futures = [runner.submit(p) for p in prompts]
        return [f.result(timeout=60) for f in futures], runner.stats


def attempts(server: FakeOpenAIServer, prompt: str) -> int:
    return sum(1 for r in server.requests() if r["body"]["messages"][-1]["content"] == prompt)


def test_deterministic_request(server):
    (reply,), _ = ask(server, ["plain question"])
    assert reply.content == "verdict for: plain question" and reply.error is None
    (request,) = [r["body"] for r in server.requests() if "plain question" in json.dumps(r)]
    assert request["temperature"] == 0.0 and request["seed"] == 0 and request["model"] == "judge"


@pytest.mark.parametrize("fault", ["ONCE_429", "ONCE_500", "ONCE_SLOW", "ONCE_MALFORMED",
                                   "ONCE_DROP"])  # fmt: skip
def test_transient_faults_are_retried(server, fault):
    prompt = f"{fault} transient"
    (reply,), stats = ask(server, [prompt])
    assert reply.content == f"verdict for: {prompt}"
    assert attempts(server, prompt) == 2 and stats.retries == 1 and stats.failures == 0


@pytest.mark.parametrize(
    ("fault", "error", "tries"),
    [
        ("ALWAYS_500", "InternalServerError", 3),
        ("ALWAYS_SLOW", "APITimeoutError", 3),
        ("ALWAYS_MALFORMED", "MalformedCompletionError", 3),
        ("ALWAYS_DROP", "APIConnectionError", 3),
        ("BAD_REQUEST", "BadRequestError", 1),  # a client error is not retried
    ],
)
def test_persistent_faults_become_errors_not_exceptions(server, fault, error, tries):
    prompt = f"{fault} persistent"
    other = f"neighbour of {fault.lower()}"
    replies, stats = ask(server, [prompt, other])
    failed, neighbour = replies
    assert failed.content is None and failed.error.startswith(error)
    assert neighbour.content == f"verdict for: {other}"
    assert attempts(server, prompt) == tries and stats.failures == 1


def test_only_successes_are_cached_and_reused(server, tmp_path):
    cache = JudgeCache(tmp_path / "cache")
    prompts = ["cache me", "ALWAYS_500 never cached"]
    first, _ = ask(server, prompts, cache)
    assert [p.name for p in (tmp_path / "cache").rglob("*.json")] == [
        f"{cache_key(JudgeClient(settings(server), None, 'test').payload('cache me'), 'test')}.json"
    ]
    before = len(server.requests())
    second, stats = ask(server, prompts, cache)
    assert second[0].content == first[0].content and second[0].cached
    assert stats.cache_hits == 1 and stats.calls == 3  # only the failure is tried again
    assert len(server.requests()) - before == 3


def test_identical_prompts_in_flight_share_one_call(server):
    replies, stats = ask(server, ["shared prompt"] * 5)
    assert {r.content for r in replies} == {"verdict for: shared prompt"}
    assert attempts(server, "shared prompt") == 1 and stats.shared == 4


def test_cache_key_covers_model_seed_and_prompt_version(server):
    client = JudgeClient(settings(server), None, "v1")
    payload = client.payload("p")
    keys = {
        cache_key(payload, "v1"),
        cache_key(payload, "v2"),
        cache_key({**payload, "seed": 1}, "v1"),
        cache_key({**payload, "model": "other"}, "v1"),
        cache_key(client.payload("q"), "v1"),
    }
    assert len(keys) == 5


def test_unreadable_cache_entry_is_a_miss(server, tmp_path):
    cache = JudgeCache(tmp_path / "cache")
    key = cache_key(JudgeClient(settings(server), None, "test").payload("torn entry"), "test")
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text('{"content": "half')  # as if written without the atomic rename
    (reply,), stats = ask(server, ["torn entry"], cache)
    assert reply.content == "verdict for: torn entry" and stats.cache_hits == 0
    assert cache.get(key)["content"] == "verdict for: torn entry"


def test_concurrency_is_bounded(tmp_path):
    rules = [{"match": "", "delay": 0.2, "content": "ok"}]
    with FakeOpenAIServer(tmp_path, rules) as srv:
        import time

        start = time.monotonic()
        replies, _ = ask(srv, [f"bounded {i}" for i in range(8)], concurrency=2, timeout=5)
        elapsed = time.monotonic() - start
    assert all(r.content == "ok" for r in replies)
    assert 0.8 <= elapsed < 3  # 8 calls of 0.2 s, two at a time


def test_api_key_is_never_written(server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    wrong = "sk-wrong-Lk2LEAKCHECK"
    (rejected,), _ = ask(server, ["who am I"], api_key=wrong)
    assert rejected.error.startswith("AuthenticationError") and "<api_key>" in rejected.error
    assert wrong not in rejected.error
    (ok,), _ = ask(server, ["ALWAYS_500 key check"], JudgeCache(tmp_path / "c"))
    for secret in (wrong, API_KEY):
        assert secret not in (ok.error or "")
        assert secret not in caplog.text
        assert secret not in server.log_path.read_text()
        assert all(secret not in p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    assert API_KEY not in repr(settings(server))


def test_parse_reply():
    assert parse_reply('{"choices": [{"message": {"content": null}}]}') == ("", {})
    with pytest.raises(ValueError, match="not JSON"):
        parse_reply('{"choices": [')
    with pytest.raises(ValueError, match="no choices"):
        parse_reply("{}")


def test_settings_from_env(monkeypatch):
    monkeypatch.setenv("THINKBENCH_JUDGE_API_KEY", "sk-env")
    monkeypatch.setenv("THINKBENCH_JUDGE_BASE_URL", "http://127.0.0.1:9/v1/chat/completions")
    monkeypatch.setenv("THINKBENCH_JUDGE_MODEL", "m")
    s = JudgeSettings.from_env()
    assert (s.model, s.base_url, s.api_key) == ("m", "http://127.0.0.1:9/v1", "sk-env")
    monkeypatch.delenv("THINKBENCH_JUDGE_MODEL")
    with pytest.raises(ValueError, match="model"):
        JudgeSettings.from_env()


def test_cache_files_are_whole_after_the_rename(tmp_path):
    cache = JudgeCache(Path(tmp_path))
    cache.put("ab" * 32, {"content": "x"})
    assert cache.get("ab" * 32)["content"] == "x"
    assert not list(Path(tmp_path).rglob(".tmp-*"))


@pytest.mark.slow
def test_a_dripping_server_cannot_hold_an_attempt_past_its_deadline(tmp_path):
    # One byte every 50 ms: never silent for the SDK's 0.5 s read timeout, ~10 s in all.
    rules = [{"match": "", "content": "x" * 150, "drip": 0.05}]
    with FakeOpenAIServer(tmp_path, rules) as srv:
        start = time.monotonic()
        (reply,), stats = ask(srv, ["drip"], max_retries=1)
        elapsed = time.monotonic() - start
    assert reply.content is None and reply.error.startswith("TimeoutError")
    # Two deadlines, the SDK's first backoff (at most openai's INITIAL_RETRY_DELAY, 0.5 s), slack.
    assert stats.calls == 2 and elapsed < 2 * (0.5 + DEADLINE_GRACE) + 0.5 + 1.5


def test_usage_counts_that_are_not_numbers_count_zero(tmp_path):
    rules = [
        {"match": "", "content": "ok", "usage": {"prompt_tokens": "many", "completion_tokens": [1]}}
    ]
    with FakeOpenAIServer(tmp_path, rules) as srv:
        (reply,), stats = ask(srv, ["q"])
    assert reply.content == "ok" and stats.prompt_tokens == 0 and stats.completion_tokens == 0


def test_unusable_answers_are_returned_but_not_cached(tmp_path):
    rules = [
        {"match": "NULL", "content": None},
        {"match": "", "content": "no box here"},
    ]
    cache = JudgeCache(tmp_path / "cache")
    has_box = lambda text: "\\boxed" in text  # noqa: E731 - the caller's parser, in short
    with FakeOpenAIServer(tmp_path / "srv", rules) as srv:
        for _ in range(2):
            with JudgeRunner(JudgeClient(settings(srv), cache, "test")) as runner:
                null = runner.submit("NULL answer").result(timeout=60)
                unboxed = runner.submit("unboxed", usable=has_box).result(timeout=60)
                plain = runner.submit("plain").result(timeout=60)
        assert (null.content, unboxed.content) == ("", "no box here")
        assert not null.cached and not unboxed.cached and plain.cached
        assert attempts(srv, "NULL answer") == 2 and attempts(srv, "unboxed") == 2
        assert attempts(srv, "plain") == 1
