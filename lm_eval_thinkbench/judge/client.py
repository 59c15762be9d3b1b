"""The async judge client: bounded concurrency, retries with backoff, a disk cache, no raising.

A judge run makes hundreds of long calls, so the client must be frugal and sturdy:

* one ``openai.AsyncOpenAI`` client for the whole run (building one per call costs EvalScope
  about 20 ms of CPU each), at most ``concurrency`` calls in flight (a call keeps its slot
  while the SDK waits out a backoff);
* deterministic requests: temperature 0 and a fixed seed, so a cached answer is the answer;
* retries: the openai SDK's own (exponential backoff with jitter, honouring ``retry-after``) on
  rate limits (429), server errors (5xx, 408, 409), timeouts and dropped connections; other
  client errors (400, 401, 404) are not retried. What the SDK does not retry, a 200 whose body
  is malformed, is retried here, within the same ``max_retries`` budget;
* a cache hit costs no call, identical prompts in flight share one call, and only completed
  calls whose answer is usable are stored (:mod:`.cache`): an empty answer, or one the caller's
  ``usable`` check rejects (no box), is returned but asked again on the next run; a call that
  still fails becomes a :class:`JudgeReply` with ``error`` set, never an exception, so one bad
  sample cannot sink a run;
* each attempt has a deadline for the whole response (``timeout`` plus a second), so a server
  that drips bytes slowly cannot hold a call far beyond it (the SDK's timeout applies to each
  read): :class:`_AttemptTransport` reads the body under it, and a late body is a timeout the
  SDK retries like any other;
* the API key is read from the environment and scrubbed from every error text.

:class:`JudgeRunner` runs the client on an event loop in a background thread, so synchronous
code submits prompts and collects ``concurrent.futures.Future`` objects while it keeps working.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx2
import openai

from lm_eval_thinkbench.judge.cache import JudgeCache, cache_key
from lm_eval_thinkbench.judge.settings import JudgeSettings
from lm_eval_thinkbench.response import MalformedCompletionError, parse_completion

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Error texts go into every per-sample record; a server's HTML error page should not.
MAX_ERROR_CHARS = 500
#: An attempt's whole reply must arrive within ``timeout`` plus this; a silent server is
#: stopped by the SDK's own (per-read) timeout first, a dripping one by this deadline.
DEADLINE_GRACE = 1.0


@dataclass(frozen=True)
class JudgeReply:
    """One judge answer: ``content`` on success, ``error`` (key scrubbed) on failure."""

    content: str | None
    error: str | None = None
    cached: bool = False


@dataclass
class JudgeStats:
    """What a run cost. ``calls`` counts HTTP attempts, retries included."""

    calls: int = 0
    completed: int = 0
    cache_hits: int = 0
    shared: int = 0
    failures: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class JudgeClient:
    """Chat calls to the judge; use inside one event loop (see :class:`JudgeRunner`)."""

    def __init__(
        self, settings: JudgeSettings, cache: JudgeCache | None, prompt_version: str
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.prompt_version = prompt_version
        self.stats = JudgeStats()
        self._client: openai.AsyncOpenAI | None = None
        self._slots: asyncio.Semaphore | None = None
        self._inflight: dict[str, asyncio.Future[JudgeReply]] = {}
        self._rng = random.Random(settings.seed)
        self._cache_warned = False

    def payload(self, prompt: str) -> dict[str, Any]:
        """The request body: one user message, temperature 0, the fixed seed."""
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0.0,
            "seed": self.settings.seed,
        }
        if self.settings.max_tokens is not None:
            body["max_tokens"] = self.settings.max_tokens
        return body

    async def complete(self, prompt: str, usable: Usable | None = None) -> JudgeReply:
        """The judge's reply to ``prompt``: from the cache, a shared call, or a new one.

        ``usable`` says whether an answer can be read (the caller's parser); one that cannot is
        returned but neither cached nor taken from the cache, so a rerun asks again.
        """
        usable = usable or _non_empty
        payload = self.payload(prompt)
        key = cache_key(payload, self.prompt_version)
        if self.cache is not None:
            entry = self.cache.get(key)
            content = entry.get("content") if entry is not None else None
            if isinstance(content, str) and usable(content):
                self.stats.cache_hits += 1
                return JudgeReply(content, cached=True)
        pending = self._inflight.get(key)
        if pending is not None:
            self.stats.shared += 1
            return await asyncio.shield(pending)
        future: asyncio.Future[JudgeReply] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            reply = await self._call(payload, key, usable)
        except asyncio.CancelledError:
            future.cancel()
            raise
        finally:
            del self._inflight[key]
        future.set_result(reply)
        return reply

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def _call(self, payload: dict[str, Any], key: str, usable: Usable) -> JudgeReply:
        """One logical call: the SDK's attempts, then (a malformed body) ours, in one budget of
        ``max_retries + 1`` attempts; the first success is returned, and cached if usable."""
        attempts = _Attempts()
        _ATTEMPTS.set(attempts)  # this task's context: the transport counts into it
        budget = self.settings.max_retries + 1
        try:
            while True:
                try:
                    client = self._openai().with_options(max_retries=budget - attempts.made - 1)
                    async with self._semaphore():
                        raw = await client.chat.completions.with_raw_response.create(**payload)
                    content, usage = parse_reply(raw.text)
                except MalformedCompletionError as exc:
                    error = self._describe(exc)
                    if attempts.made >= budget:
                        break
                    await asyncio.sleep(self._backoff(attempts.made - 1))
                    continue
                except openai.APITimeoutError as exc:
                    error = self._describe(exc)
                    if attempts.late:
                        deadline = self.settings.timeout + DEADLINE_GRACE
                        error = f"TimeoutError: no complete reply within {deadline:g} s"
                    break
                except openai.OpenAIError as exc:
                    error = self._describe(exc)
                    break
                self.stats.completed += 1
                self.stats.prompt_tokens += _tokens(usage.get("prompt_tokens"))
                self.stats.completion_tokens += _tokens(usage.get("completion_tokens"))
                if usable(content):
                    self._store(key, payload["model"], content, usage)
                return JudgeReply(content)
            self.stats.failures += 1
            return JudgeReply(None, error=error)
        finally:
            self.stats.calls += attempts.made
            self.stats.retries += max(0, attempts.made - 1)

    def _store(self, key: str, model: str, content: str, usage: dict[str, Any]) -> None:
        """Cache a completed call. A cache that cannot be written costs the resume guarantee,
        not the run: the answer is still used, and the failure is logged once."""
        if self.cache is None:
            return
        entry = {
            "model": model,
            "prompt_version": self.prompt_version,
            "content": content,
            "usage": usage,
        }
        try:
            self.cache.put(key, entry)
        except OSError as exc:
            if not self._cache_warned:
                log.warning("judge cache %s is not writable (%s); going on", self.cache.root, exc)
                self._cache_warned = True

    def _semaphore(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.settings.concurrency)
        return self._slots

    def _openai(self) -> openai.AsyncOpenAI:
        """One SDK client for the run, retrying as the settings say, its attempts deadlined."""
        if self._client is None:
            deadline = self.settings.timeout + DEADLINE_GRACE
            self._client = openai.AsyncOpenAI(
                base_url=self.settings.base_url,
                api_key=self.settings.api_key,
                timeout=self.settings.timeout,
                max_retries=self.settings.max_retries,
                http_client=openai.DefaultAsyncHttpxClient(transport=_AttemptTransport(deadline)),
            )
        return self._client

    def _backoff(self, attempt: int) -> float:
        """Seconds before retrying a malformed body: ``retry_base * 2**attempt`` with full
        jitter, capped at ``retry_cap`` (the SDK paces its own retries)."""
        ceiling = min(self.settings.retry_cap, self.settings.retry_base * 2**attempt)
        return self._rng.uniform(ceiling / 2, ceiling)

    def _describe(self, exc: BaseException) -> str:
        """``Class: message``, with the API key removed and the length capped."""
        text = f"{type(exc).__name__}: {exc}"
        key = self.settings.api_key
        if key and key != "EMPTY":
            text = text.replace(key, "<api_key>")
        return text[:MAX_ERROR_CHARS]


#: Whether a judge answer can be read; unusable answers are not cached.
Usable = Callable[[str], bool]


def _non_empty(content: str) -> bool:
    return bool(content.strip())


def _tokens(value: object) -> int:
    """A usage count as the server sent it; anything but a non-negative number counts 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        return 0
    return int(value) if value < 2**53 else 0


def parse_reply(body: str) -> tuple[str, dict[str, Any]]:
    """(content, usage) of a chat.completion body; a null content is the empty answer.

    Raises:
        MalformedCompletionError: not JSON, no ``choices[0].message``, or non-text content.
    """
    reply = parse_completion(body)
    return reply.content, reply.usage


@dataclass
class _Attempts:
    """HTTP attempts of one logical call so far, and whether the last ran past its deadline."""

    made: int = 0
    late: bool = False


#: The logical call the current task is making (each submitted prompt runs in its own task).
_ATTEMPTS: contextvars.ContextVar[_Attempts] = contextvars.ContextVar("judge_attempts")


class _AttemptTransport(httpx2.AsyncHTTPTransport):
    """The SDK's transport, counting each attempt and reading its whole body within
    ``deadline`` seconds. A late body raises the same timeout a silent server does, so the SDK
    retries it (the SDK's own timeout applies to each read, which a dripping server never
    trips)."""

    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        attempts = _ATTEMPTS.get(None)
        if attempts is not None:
            attempts.made += 1
            attempts.late = False
        try:
            return await asyncio.wait_for(self._read(request), self.deadline)
        except asyncio.TimeoutError:  # the builtin TimeoutError from Python 3.11 on
            if attempts is not None:
                attempts.late = True
            late = "no complete reply within the deadline"
            raise httpx2.ReadTimeout(late, request=request) from None

    async def _read(self, request: httpx2.Request) -> httpx2.Response:
        response = await super().handle_async_request(request)
        try:
            await response.aread()
        except BaseException:  # cut short (the deadline's cancellation included): let it go
            await response.aclose()
            raise
        return response


class JudgeRunner:
    """A :class:`JudgeClient` on its own event loop thread, for synchronous callers.

    ``submit`` returns a ``concurrent.futures.Future`` of a :class:`JudgeReply`; ``close``
    waits for nothing: pending calls are cancelled (their results were never cached, so the
    next run makes them).
    """

    def __init__(self, client: JudgeClient) -> None:
        self.client = client
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="thinkbench-judge", daemon=True
        )
        self._thread.start()

    @property
    def stats(self) -> JudgeStats:
        return self.client.stats

    def submit(self, prompt: str, usable: Usable | None = None) -> Future[JudgeReply]:
        return self.run(self.client.complete(prompt, usable))

    def run(self, coroutine: Coroutine[Any, Any, T]) -> Future[T]:
        """Run ``coroutine`` on the client's loop (it may await ``self.client`` directly, and
        chain several calls); the future of its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def close(self) -> None:
        if self._loop.is_closed():
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()

    async def _shutdown(self) -> None:
        current = asyncio.current_task()
        tasks = [t for t in asyncio.all_tasks() if t is not current]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.client.close()

    def __enter__(self) -> JudgeRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
