"""thinkbench-chat against a real HTTP server process speaking the OpenAI chat API."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from lm_eval.api.instance import Instance
from lm_eval.api.registry import get_model

from lm_eval_thinkbench.models import chat
from lm_eval_thinkbench.models.chat import ThinkbenchChat
from lm_eval_thinkbench.response import ModelResponse, from_wire
from lm_eval_thinkbench.simulate.server import FakeOpenAIServer

API_KEY = "sk-test-Zq81xVERYSECRET"
CUSTOM_USAGE = {
    "prompt_tokens": 7,
    "completion_tokens": 11,
    "total_tokens": 18,
    "completion_tokens_details": {"reasoning_tokens": 5},
    "vendor_extra": {"cached": 3},
}
RULES = [
    {
        "match": "CUSTOM_USAGE",
        "content": "partial",
        "finish_reason": "length",
        "usage": CUSTOM_USAGE,
    },
    {"match": "EMPTY_OBJECT", "body": "{}"},
    {"match": "DELAYED", "delay": 0.3},
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    with FakeOpenAIServer(tmp_path_factory.mktemp("fake_openai"), RULES, api_key=API_KEY) as srv:
        yield srv


def make_model(server: FakeOpenAIServer, **overrides: Any) -> ThinkbenchChat:
    args: dict[str, Any] = {
        "model": "fake-model",
        "base_url": server.base_url,
        "api_key": API_KEY,
        "num_concurrent": 4,
        "max_retries": 1,
        "timeout": 5,
    }
    return ThinkbenchChat(**{**args, **overrides})


def request(context: object, **gen_kwargs: Any) -> Instance:
    gen = {"until": [], "max_gen_toks": 64, **gen_kwargs}
    return Instance(request_type="generate_until", doc={}, arguments=(context, gen), idx=0)


def generate(model: ThinkbenchChat, *contexts: object) -> list[ModelResponse]:
    return [from_wire(r) for r in model.generate_until([request(c) for c in contexts])]


def attempts(server: FakeOpenAIServer, text: str) -> list[dict[str, Any]]:
    """Requests the server received whose last message is ``text``."""
    return [r for r in server.requests() if r["body"]["messages"][-1]["content"] == text]


def test_registered_after_builtins() -> None:
    assert get_model("thinkbench-chat") is ThinkbenchChat
    assert get_model("dummy").__name__ == "DummyLM"


def test_reasoning_usage_and_finish_reason_kept(server: FakeOpenAIServer) -> None:
    plain, custom = generate(make_model(server), "What is 2+2?", "CUSTOM_USAGE please")
    assert plain.content == "ECHO: What is 2+2?"
    assert plain.reasoning == "Reasoning about: What is 2+2?"
    assert plain.finish_reason == "stop"
    assert plain.error is None
    assert plain.usage["completion_tokens_details"] == {"reasoning_tokens": 5}
    assert custom == ModelResponse(
        content="partial", reasoning=custom.reasoning, finish_reason="length", usage=CUSTOM_USAGE
    )


def test_reasoning_field_variants(server: FakeOpenAIServer) -> None:
    alt, none = generate(make_model(server), "REASONING_FIELD:reasoning x", "NO_REASONING y")
    assert alt.reasoning == "Reasoning about: REASONING_FIELD:reasoning x"
    assert none.reasoning is None
    assert none.content == "ECHO: NO_REASONING y"


def test_null_content_becomes_empty(server: FakeOpenAIServer) -> None:
    (resp,) = generate(make_model(server), "FAULT:NULL_CONTENT")
    assert resp.content == ""
    assert resp.reasoning == "Reasoning about: FAULT:NULL_CONTENT"
    assert resp.error is None


def test_429_is_retried(server: FakeOpenAIServer) -> None:
    (resp,) = generate(make_model(server), "FAULT:429_ONCE retry me")
    assert resp.content == "ECHO: FAULT:429_ONCE retry me"
    assert len(attempts(server, "FAULT:429_ONCE retry me")) == 2


def test_persistent_500_is_recorded_and_isolated(server: FakeOpenAIServer) -> None:
    model = make_model(server, max_retries=2)
    first, failed, last = generate(model, "before 500", "FAULT:500 always", "after 500")
    assert first.content == "ECHO: before 500"
    assert last.content == "ECHO: after 500"
    assert failed.content == ""
    assert failed.finish_reason == "error"
    assert failed.error.startswith("InternalServerError:")
    assert "500" in failed.error
    assert len(attempts(server, "FAULT:500 always")) == 3  # the first try and two retries


def test_client_error_is_not_retried(server: FakeOpenAIServer) -> None:
    (resp,) = generate(make_model(server, max_retries=3), "FAULT:400 nope")
    assert resp.finish_reason == "error"
    assert resp.error.startswith("BadRequestError:")
    assert len(attempts(server, "FAULT:400 nope")) == 1


def test_slow_reply_times_out_within_bound(server: FakeOpenAIServer) -> None:
    model = make_model(server, timeout=0.5, max_retries=0)
    start = time.monotonic()
    (resp,) = generate(model, "FAULT:SLOW")
    assert time.monotonic() - start < 3
    assert resp.finish_reason == "error"
    assert resp.error.startswith("APITimeoutError:")


@pytest.mark.parametrize(
    ("prompt", "error"),
    [
        ("FAULT:MALFORMED", "MalformedCompletionError: body is not JSON"),
        ("EMPTY_OBJECT", "MalformedCompletionError: no choices[0].message in the body: '{}'"),
        ("FAULT:DROP", "APIConnectionError:"),
    ],
)
def test_broken_responses_become_error_envelopes(
    server: FakeOpenAIServer, prompt: str, error: str
) -> None:
    neighbour = f"neighbour of {error}"
    resp, ok = generate(make_model(server), prompt, neighbour)
    assert resp.content == ""
    assert resp.finish_reason == "error"
    assert resp.error.startswith(error)
    assert ok.content == f"ECHO: {neighbour}"


def test_order_preserved_under_concurrency(server: FakeOpenAIServer) -> None:
    # Even-numbered prompts are answered 0.3 s late, so completion order differs from request
    # order; 8 requests at a time finish in well under the 1.8 s a serial client would need.
    prompts = [f"order {i} DELAYED" if i % 2 == 0 else f"order {i}" for i in range(12)]
    model = make_model(server, num_concurrent=8)
    start = time.monotonic()
    responses = generate(model, *prompts)
    assert time.monotonic() - start < 1.5
    assert [r.content for r in responses] == [f"ECHO: {p}" for p in prompts]


def test_gen_kwargs_mapping(server: FakeOpenAIServer) -> None:
    model = make_model(server, seed=100)
    greedy = request(
        "mapping greedy",
        until=["\n\n", "", "Q:", "A:", "B:", "C:"],
        max_gen_toks=123,
        do_sample=False,
        temperature=0.7,
        top_p=0.9,
        top_k=20,
    )
    sampled = request("mapping sampled", until=[], do_sample=True, temperature=0.6, seed=5)
    # lm-eval passes a request once per repeat, as the same object.
    model.generate_until([greedy, sampled, sampled])

    (body,) = (r["body"] for r in attempts(server, "mapping greedy"))
    assert body["max_tokens"] == 123
    assert body["temperature"] == 0.0
    assert body["top_p"] == 0.9
    assert body["top_k"] == 20
    assert body["seed"] == 100
    assert body["stop"] == ["\n\n", "Q:", "A:", "B:"]
    assert "do_sample" not in body and "until" not in body and "max_gen_toks" not in body
    bodies = [r["body"] for r in attempts(server, "mapping sampled")]
    assert sorted(b["seed"] for b in bodies) == [5, 6]  # repeats must not share a seed
    assert all(b["temperature"] == 0.6 and "stop" not in b for b in bodies)
    assert all(b["max_tokens"] == 64 for b in bodies)


def test_default_token_limit_and_completion_tokens_param(server: FakeOpenAIServer) -> None:
    model = make_model(server, token_limit_param="max_completion_tokens", max_gen_toks=77)
    bare = Instance(request_type="generate_until", doc={}, arguments=("limits", {}), idx=0)
    model.generate_until([bare])
    (body,) = (r["body"] for r in attempts(server, "limits"))
    assert body["max_completion_tokens"] == 77
    assert "max_tokens" not in body
    assert body["temperature"] == 0.0  # no do_sample: greedy


def test_chat_template_and_plain_contexts(server: FakeOpenAIServer) -> None:
    model = make_model(server)
    history = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "chat ctx"}]
    templated = model.apply_chat_template(history)
    generate(model, templated, json.dumps(history[1:]), "plain ctx")
    # Both contexts mention "chat ctx" and are sent concurrently: compare without order.
    sent = sorted((a["body"]["messages"] for a in attempts(server, "chat ctx")), key=len)
    assert sent == [history[1:], history]
    assert attempts(server, "plain ctx")[0]["body"]["messages"] == [
        {"role": "user", "content": "plain ctx"}
    ]
    assert model.tokenizer_name == chat.CHAT_TOKENIZER_NAME


def test_lm_eval_style_base_url_is_accepted(server: FakeOpenAIServer) -> None:
    model = make_model(server, base_url=server.base_url + "/chat/completions/")
    assert model.base_url == server.base_url
    assert generate(model, "suffix")[0].content == "ECHO: suffix"


def test_successes_are_cached_and_errors_are_not(server: FakeOpenAIServer) -> None:
    cached: list[tuple[str, tuple, str]] = []

    class Hook:
        def add_partial(self, attr: str, req: tuple, res: str) -> None:
            cached.append((attr, req, res))

    model = make_model(server)
    model.set_cache_hook(Hook())  # type: ignore[arg-type]
    reqs = [request("cache me"), request("FAULT:400 do not cache")]
    out = model.generate_until(reqs)
    assert cached == [("generate_until", reqs[0].args, out[0])]


def test_api_key_never_leaks(
    tmp_path: Path, server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong_key = "sk-wrong-Pp03LEAKCHECK"
    # The fake server echoes a rejected key in its 401 body, as careless servers do.
    model = make_model(server, api_key=wrong_key, max_retries=2)
    (rejected,) = model.generate_until([request("who am I")])
    good = make_model(server).generate_until([request("FAULT:500 key check"), request("ok")])
    assert from_wire(rejected).error.startswith("AuthenticationError:")
    assert "<api_key>" in from_wire(rejected).error
    assert len([r for r in server.requests() if not r["authorized"]]) == 1  # 401: no retry
    for secret in (wrong_key, API_KEY):
        assert secret not in rejected
        assert all(secret not in text for text in good)
        assert secret not in caplog.text
        assert secret not in server.log_path.read_text()


def test_loglikelihood_is_not_supported(server: FakeOpenAIServer) -> None:
    model = make_model(server)
    with pytest.raises(NotImplementedError, match="only generates text"):
        model.loglikelihood([])
    with pytest.raises(NotImplementedError, match="only generates text"):
        model.loglikelihood_rolling([])


def test_bad_model_args() -> None:
    with pytest.raises(ValueError, match="model="):
        ThinkbenchChat(base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="token_limit_param"):
        ThinkbenchChat(model="m", base_url="http://127.0.0.1:9/v1", token_limit_param="n")


@pytest.mark.slow
def test_a_dripping_server_cannot_hold_a_request_past_its_deadline(tmp_path: Path) -> None:
    # One byte every 20 ms: never silent for a 0.5 s read timeout, yet ~8 s for the body.
    rules = [{"match": "", "content": "x" * 300, "drip": 0.02}]
    with FakeOpenAIServer(tmp_path, rules) as srv:
        model = make_model(srv, api_key="EMPTY", timeout=0.5, max_retries=1)
        start = time.monotonic()
        (dripped,) = generate(model, "slowly please")
        elapsed = time.monotonic() - start
    assert dripped.finish_reason == "error" and dripped.error.startswith("TimeoutError")
    assert elapsed < 0.5 * 2 + chat.DEADLINE_GRACE + 1.5
