"""Who the judge is and how it is called: settings only, so that reading options does not
import the openai SDK (half a second) for runs that need no judge."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

#: Environment variables for the judge endpoint; the OpenAI names are the fallback.
API_KEY_ENV = "THINKBENCH_JUDGE_API_KEY"
BASE_URL_ENV = "THINKBENCH_JUDGE_BASE_URL"
MODEL_ENV = "THINKBENCH_JUDGE_MODEL"


@dataclass(frozen=True)
class JudgeSettings:
    """Who the judge is and how it is called. ``api_key`` is never printed (``repr=False``)."""

    model: str
    base_url: str
    api_key: str = field(default="EMPTY", repr=False)
    concurrency: int = 16
    timeout: float = 120.0
    max_retries: int = 4
    seed: int = 0
    max_tokens: int | None = None
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
