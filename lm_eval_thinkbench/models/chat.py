"""``thinkbench-chat``: an OpenAI-compatible chat model that keeps what lm-eval's drops.

lm-eval's ``local-chat-completions`` returns only ``message.content``. For reasoning models the
interesting part is elsewhere: servers with a reasoning parser (vLLM, SGLang, DeepSeek) send the
chain of thought in ``reasoning_content`` or ``reasoning``, the token counts in ``usage``, and
whether the budget ran out in ``finish_reason``. This model returns all of it per request as a
:class:`~lm_eval_thinkbench.response.ModelResponse` envelope, which ``--log_samples`` stores.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import Any

import openai
from lm_eval.api.instance import Instance
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from lm_eval.models.api_models import JsonChatStr
from lm_eval.models.utils import normalize_gen_kwargs
from tqdm import tqdm

from lm_eval_thinkbench.models.repeats import repeat_indices
from lm_eval_thinkbench.response import MalformedCompletionError, ModelResponse, parse_completion

eval_logger = logging.getLogger(__name__)

#: OpenAI's chat API rejects more stop strings than this.
MAX_STOP_STRINGS = 4
#: Error texts go into every sample log line; a server's HTML error page should not.
MAX_ERROR_CHARS = 2000
#: Fingerprint of our prompt rendering (the chat messages as JSON), for lm-eval's request cache.
CHAT_TOKENIZER_NAME = "openai-chat-messages-json"
_TOKEN_LIMIT_PARAMS = ("max_tokens", "max_completion_tokens")
#: Always passed by ``simple_evaluate``; meaningless for a remote chat API.
_HARNESS_ARGS = frozenset({"batch_size", "max_batch_size", "device"})
#: Seconds beyond ``timeout × (max_retries + 1)`` a request may take in all. The SDK's timeout
#: applies to each read, so a server that drips bytes slowly would otherwise hold a request
#: (and the run) for as long as it likes.
DEADLINE_GRACE = 1.0


def warn_ignored_args(model_name: str, kwargs: dict[str, Any]) -> None:
    """Warn about model args a plugin model does not use (names only: a value may be secret)."""
    unknown = sorted(k for k, v in kwargs.items() if k not in _HARNESS_ARGS and v is not None)
    if unknown:
        eval_logger.warning("%s ignores model args: %s", model_name, ", ".join(unknown))


def render_chat(chat_history: list[dict[str, Any]]) -> JsonChatStr:
    """Render a chat history the way lm-eval's API chat models do (JSON in ``JsonChatStr``).

    Sharing lm-eval's rendering keeps prompt hashes in the sample logs identical to those of
    ``local-chat-completions`` runs, which is what ``thinkbench-replay`` matches on.
    """
    return JsonChatStr(json.dumps(chat_history, ensure_ascii=False))


def context_to_messages(context: object) -> list[dict[str, Any]]:
    """The chat messages for a request context.

    With ``--apply_chat_template`` the context is a ``JsonChatStr`` (or, from other producers, a
    plain string holding the same JSON list of messages); without it, plain prompt text, which
    becomes a single user message.
    """
    if isinstance(context, JsonChatStr):
        return json.loads(context.prompt)
    if not isinstance(context, str):
        raise TypeError(f"expected a str or JsonChatStr context, got {type(context).__name__}")
    if context.lstrip().startswith("["):
        try:
            parsed = json.loads(context)
        except ValueError:
            parsed = None
        if (
            isinstance(parsed, list)
            and parsed
            and all(isinstance(m, dict) and "role" in m for m in parsed)
        ):
            return parsed
    return [{"role": "user", "content": context}]


@register_model("thinkbench-chat")
class ThinkbenchChat(LM):
    """OpenAI-compatible chat completions, returning a ``ModelResponse`` envelope per request.

    Model args (``--model_args``): ``model`` (served model name), ``base_url``
    (``http://host:port/v1``; lm-eval style ``.../v1/chat/completions`` is accepted),
    ``api_key`` (default ``$OPENAI_API_KEY``, else ``"EMPTY"``; prefer the environment, since
    lm-eval logs model args verbatim), ``num_concurrent`` (parallel requests, default 8),
    ``max_retries`` (default 3; the SDK retries 429, 5xx, timeouts and dropped connections with
    backoff), ``timeout`` (seconds per attempt, default 600; a request takes at most
    ``timeout × (max_retries + 1)`` seconds in all, however slowly a server drips its reply),
    ``seed`` (default: not sent),
    ``max_gen_toks`` (used when a task sets no limit, default 4096) and ``token_limit_param``
    (``max_tokens`` or, for APIs that want it, ``max_completion_tokens``).

    This model never cuts the reasoning: lm-eval's ``think_end_token`` is not supported, because
    the plugin splits reasoning from the answer itself and must see both.

    A request that still fails after the SDK's retries does not stop the run: it yields an
    envelope with empty content, ``finish_reason="error"`` and the error text (API key removed).
    Such envelopes are not written to lm-eval's response cache, so a rerun retries them.
    """

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        num_concurrent: int | str = 8,
        max_retries: int | str = 3,
        timeout: float | str = 600,
        seed: int | str | None = None,
        max_gen_toks: int | str = 4096,
        token_limit_param: str = "max_tokens",
        **kwargs: Any,
    ) -> None:
        super().__init__()
        if not model:
            raise ValueError("thinkbench-chat needs model=<served model name>")
        base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        if not base_url:
            raise ValueError("thinkbench-chat needs base_url=http://host:port/v1")
        if token_limit_param not in _TOKEN_LIMIT_PARAMS:
            raise ValueError(f"token_limit_param must be one of {_TOKEN_LIMIT_PARAMS}")
        warn_ignored_args("thinkbench-chat", kwargs)

        self.model = str(model)
        self.base_url = _api_root(str(base_url))
        self.num_concurrent = int(num_concurrent)
        self.max_retries = int(max_retries)
        self.timeout = float(timeout)
        self.seed = None if seed is None else int(seed)
        self.max_gen_toks = int(max_gen_toks)
        self.token_limit_param = token_limit_param
        if self.num_concurrent < 1 or self.max_retries < 0 or self.timeout <= 0:
            raise ValueError("need num_concurrent >= 1, max_retries >= 0 and timeout > 0")
        self._api_key = str(api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY")
        self._warned_stop = False

    @property
    def tokenizer_name(self) -> str:
        """Fingerprints lm-eval's request cache: the server applies the real chat template."""
        return CHAT_TOKENIZER_NAME

    def apply_chat_template(
        self, chat_history: list[dict[str, Any]], add_generation_prompt: bool = True
    ) -> JsonChatStr:
        """Keep the messages as JSON; the server applies the model's template.

        ``add_generation_prompt=False`` (an assistant prefill) cannot be expressed in the plain
        chat API, so, as in lm-eval's chat models, the flag is accepted and has no effect.
        """
        return render_chat(chat_history)

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float, bool]]:
        raise NotImplementedError(
            "thinkbench-chat only generates text (chat APIs return no prompt logprobs); "
            "use a generate_until task or a local model for loglikelihood tasks"
        )

    def loglikelihood_rolling(self, requests: list[Instance]) -> list[float]:
        raise NotImplementedError(
            "thinkbench-chat only generates text (chat APIs return no prompt logprobs); "
            "use a generate_until task or a local model for perplexity tasks"
        )

    def generate_until(self, requests: list[Instance], disable_tqdm: bool = False) -> list[str]:
        """One envelope per request, in request order, fetched ``num_concurrent`` at a time."""
        params = [
            self._request_params(request.args[0], request.args[1], repeat)
            for request, repeat in zip(requests, repeat_indices(requests), strict=True)
        ]

        bar = tqdm(total=len(requests), desc="thinkbench-chat", disable=disable_tqdm)
        try:
            responses = asyncio.run(self._complete_all(params, bar))
        finally:
            bar.close()
        results = [response.to_wire() for response in responses]
        failures = 0
        for index, (request, response) in enumerate(zip(requests, responses, strict=True)):
            if response.error is None:
                self.cache_hook.add_partial("generate_until", request.args, results[index])
            else:
                failures += 1
                eval_logger.warning("request %d failed: %s", index, response.error)
        if failures:
            eval_logger.warning(
                "%d of %d requests failed after retries; they are logged as error envelopes "
                "(finish_reason='error')",
                failures,
                len(requests),
            )
        return results

    async def _complete_all(self, params: list[dict[str, Any]], bar: tqdm) -> list[ModelResponse]:
        """Every request, ``num_concurrent`` at a time, on one client for the batch."""
        slots = asyncio.Semaphore(self.num_concurrent)
        async with openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key=self._api_key,
            timeout=self.timeout,
            max_retries=self.max_retries,
        ) as client:

            async def one(p: dict[str, Any]) -> ModelResponse:
                async with slots:
                    response = await self._complete(client, p)
                bar.update(1)
                return response

            return list(await asyncio.gather(*(one(p) for p in params)))

    def _request_params(
        self, context: object, gen_kwargs: dict[str, Any], repeat: int
    ) -> dict[str, Any]:
        """Map lm-eval's gen_kwargs onto chat-completions parameters."""
        kwargs = dict(normalize_gen_kwargs(gen_kwargs or {}, self.max_gen_toks))
        params: dict[str, Any] = {
            "model": self.model,
            "messages": context_to_messages(context),
            self.token_limit_param: kwargs.pop("max_gen_toks"),
        }
        do_sample = kwargs.pop("do_sample")
        temperature = kwargs.pop("temperature", None)
        if not do_sample:
            temperature = 0.0
        if temperature is not None:  # sampling with no temperature given: server default
            params["temperature"] = float(temperature)
        if "top_p" in kwargs:
            params["top_p"] = float(kwargs.pop("top_p"))
        seed = kwargs.pop("seed", self.seed)
        if seed is not None:
            # A fixed per-request seed would make vLLM return the same sample for every repeat.
            params["seed"] = int(seed) + repeat
        stop = [s for s in kwargs.pop("until") if isinstance(s, str) and s]
        if len(stop) > MAX_STOP_STRINGS:
            if not self._warned_stop:
                eval_logger.warning(
                    "chat APIs take at most %d stop strings; sending %r, dropping %r",
                    MAX_STOP_STRINGS,
                    stop[:MAX_STOP_STRINGS],
                    stop[MAX_STOP_STRINGS:],
                )
                self._warned_stop = True
            stop = stop[:MAX_STOP_STRINGS]
        if stop:
            params["stop"] = stop
        if kwargs:
            # Server-specific sampling options (top_k, min_p, ...) travel in the JSON body.
            params["extra_body"] = kwargs
        return params

    async def _complete(self, client: openai.AsyncOpenAI, params: dict[str, Any]) -> ModelResponse:
        """One request (the SDK retries it) within its deadline; any failure becomes an error
        envelope."""
        deadline = self.timeout * (self.max_retries + 1) + DEADLINE_GRACE
        try:
            raw = await asyncio.wait_for(
                client.chat.completions.with_raw_response.create(**params), deadline
            )
            return parse_completion(raw.text)
        except asyncio.TimeoutError:  # the builtin TimeoutError from Python 3.11 on
            error = f"TimeoutError: no complete reply within {deadline:g} s"
            return ModelResponse(content="", finish_reason="error", error=error)
        except (openai.OpenAIError, MalformedCompletionError) as exc:
            return ModelResponse(content="", finish_reason="error", error=self._describe(exc))

    def _describe(self, exc: BaseException) -> str:
        """``Class: message (cause)``, with the API key removed and the length capped."""
        text = f"{type(exc).__name__}: {exc}"
        cause = exc.__cause__
        if cause is not None:
            text += f" ({type(cause).__name__}: {cause})"
        if self._api_key not in ("", "EMPTY"):
            text = text.replace(self._api_key, "<api_key>")
        return text[:MAX_ERROR_CHARS]


def _api_root(base_url: str) -> str:
    """``http://host:port/v1`` from either that or lm-eval's ``.../v1/chat/completions``."""
    root = base_url.rstrip("/")
    return root.removesuffix("/chat/completions")
