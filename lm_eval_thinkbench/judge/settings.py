"""Who the judge is and how it is called: settings only, so that reading options does not
import the openai SDK (half a second) for runs that need no judge."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from lm_eval_thinkbench.options import setting

#: Environment variables for the judge endpoint; the OpenAI names are the fallback.
API_KEY_ENV = "THINKBENCH_JUDGE_API_KEY"
BASE_URL_ENV = "THINKBENCH_JUDGE_BASE_URL"
MODEL_ENV = "THINKBENCH_JUDGE_MODEL"


@dataclass(frozen=True)
class JudgeSettings:
    """Who the judge is and how it is called (each setting's help says what it does; the
    ``thinkbench analyze`` flags are generated from them). ``api_key`` is never printed
    (``repr=False``) and comes from the environment only (:meth:`from_env`)."""

    model: str = setting(
        flags=("--judge-model",), group="judge", help=f"served model name (or ${MODEL_ENV})"
    )
    base_url: str = setting(
        flags=("--judge-base-url",),
        group="judge",
        help=f"OpenAI-compatible endpoint, http://host:port/v1 (or ${BASE_URL_ENV})",
    )
    api_key: str = field(default="EMPTY", repr=False)
    concurrency: int = setting(
        16,
        flags=("--judge-concurrency",),
        group="judge",
        parse=int,
        help="requests in flight at once (default: %(default)s)",
    )
    timeout: float = setting(
        120.0,
        flags=("--judge-timeout",),
        group="judge",
        parse=float,
        help="seconds per attempt (default: %(default)s)",
    )
    max_retries: int = setting(
        4,
        flags=("--judge-retries",),
        group="judge",
        parse=int,
        help="retries after a rate limit, server error, timeout, dropped connection or "
        "malformed reply, with exponential backoff (default: %(default)s)",
    )
    seed: int = setting(
        0,
        flags=("--judge-seed",),
        group="judge",
        parse=int,
        help="seed sent with every request; temperature is always 0 (default: %(default)s)",
    )
    max_tokens: int | None = setting(
        None,
        flags=("--judge-max-tokens",),
        group="judge",
        parse=int,
        help="completion token limit per call (default: none)",
    )
    retry_base: float = 1.0
    retry_cap: float = 30.0

    def __post_init__(self) -> None:
        if self.concurrency < 1 or self.max_retries < 0 or self.timeout <= 0:
            raise ValueError("judge needs concurrency >= 1, max_retries >= 0 and timeout > 0")

    @classmethod
    def from_env(cls, model: str | None = None, base_url: str | None = None, **kw: Any):
        """Settings with the endpoint from arguments or the environment.

        Key: ``$THINKBENCH_JUDGE_API_KEY``, else ``$OPENAI_API_KEY``, else "EMPTY" (local
        servers). URL: ``base_url``, else ``$THINKBENCH_JUDGE_BASE_URL``, else
        ``$OPENAI_BASE_URL``. Model: ``model``, else ``$THINKBENCH_JUDGE_MODEL``.
        """
        model = model or os.environ.get(MODEL_ENV)
        base_url = base_url or os.environ.get(BASE_URL_ENV) or os.environ.get("OPENAI_BASE_URL")
        if not model:
            raise ValueError(f"the judge needs a model: --judge-model or ${MODEL_ENV}")
        if not base_url:
            raise ValueError(f"the judge needs an endpoint: --judge-base-url or ${BASE_URL_ENV}")
        key = os.environ.get(API_KEY_ENV) or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        root = base_url.rstrip("/").removesuffix("/chat/completions")
        return cls(model=model, base_url=root, api_key=key, **kw)
