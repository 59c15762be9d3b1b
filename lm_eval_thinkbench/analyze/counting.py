"""Which tokenizer counts each model's tokens.

Token figures are only comparable with the harness's when both count with the same vocabulary:
a Qwen3 run counted by the harness with its own tokenizer and by analyze with Qwen2.5's gives
different reasoning-token figures for the same responses. So by default each model is counted
with the tokenizer its run names (``Sample.tokenizers``: the one its thinkbench records say
counted, then its model arguments), else with the offline Qwen2.5 default. A tokenizer named by
the logs is loaded only from local files (a folder, or the Hugging Face cache), since a report
must not depend on the network; one that cannot be loaded falls back to the default with one
warning per model. A tokenizer the user names (``--tokenizer``) counts every model and must
load. Every report names the tokenizer that counted (``SampleRecord.tokenizer``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from lm_eval_thinkbench.analyze.samples import Sample
from lm_eval_thinkbench.tokens import DEFAULT_TOKENIZER, QwenTiktokenCounter, get_counter

log = logging.getLogger(__name__)
#: Files of which one shows a tokenizer in the Hugging Face cache.
_TOKENIZER_FILES = ("tokenizer_config.json", "tokenizer.json")


def tokenizers_for(samples: Sequence[Sample], explicit: str | None) -> dict[str, str | None]:
    """Per model, the counter spec for ``tokens.get_counter`` (None: the offline default).

    Raises a ``ValueError`` naming ``explicit`` when it does not load.
    """
    models: dict[str, dict[str, None]] = {}
    for s in samples:
        models.setdefault(s.model, {}).update(dict.fromkeys(s.tokenizers))
    if explicit:
        get_counter(explicit)
        return dict.fromkeys(models, explicit)
    return {model: _first_loadable(model, list(names)) for model, names in models.items()}


def _first_loadable(model: str, names: list[str]) -> str | None:
    failed = []
    for name in names:
        if name.strip().lower() == DEFAULT_TOKENIZER:
            return None
        if not _local(name):
            failed.append(f"{name!r} is not available offline")
            continue
        try:
            get_counter(name)
        except ValueError as exc:
            failed.append(str(exc))
            continue
        return name
    if failed:
        log.warning(
            "%s: %s; counting with %s instead", model, "; ".join(failed), QwenTiktokenCounter.name
        )
    return None


def _local(name: str) -> bool:
    """Whether a tokenizer loads without the network: a folder, or in the Hugging Face cache."""
    if Path(name).expanduser().is_dir():
        return True
    from huggingface_hub import try_to_load_from_cache

    for filename in _TOKENIZER_FILES:
        try:
            found = try_to_load_from_cache(name, filename)
        except ValueError:  # not a repository name at all ("gpt-4o-mini" is one, "a b" is not)
            return False
        if isinstance(found, str):
            return True
    return False
