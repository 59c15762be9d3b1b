"""An LLM judge behind any OpenAI-compatible endpoint: prompts, a crash-safe cache, a client.

* :mod:`.prompts`: what the judge is asked and how its replies are read (pure functions);
* :mod:`.cache`: one file per completed call, written atomically, keyed by the full request;
* :mod:`.client`: the async client (bounded concurrency, retries with backoff, never raises)
  and :class:`.client.JudgeRunner`, which drives it from synchronous code.

Nothing here knows about samples or metrics; ``locate.judge`` and ``analyze`` adapt it.
"""
