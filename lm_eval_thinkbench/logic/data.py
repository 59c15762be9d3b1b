"""The logic items of one leaf task, generated on load.

``custom_dataset`` in a task YAML calls :func:`load_logic` with the task's metadata (from
``--metadata`` and ``--model_args``) and its ``dataset_kwargs``: the leaf's cell, ``lang`` with
``kind`` and ``level`` (a by-level leaf) or ``subclass`` (``family/name``, a by-subclass leaf:
all levels). Metadata keys:

* ``logic_seed``: the set's seed; default: the frozen set. Not ``seed``: lm-eval merges
  ``--model_args`` into the metadata, and many models take a ``seed`` argument (vLLM,
  thinkbench-chat, thinkbench-sim), which would silently switch the set.
* ``logic_items``: items per subclass and level (default 10).
* ``set_version``: which subclasses the set holds, by name or number (``v1``/``1``: the
  original 15, as published; default: the newest, ``base.LOGIC_SET_VERSION``). Give it in
  ``--metadata`` (a leaf YAML names it in ``dataset_kwargs`` only if it pins a version: lm-eval
  passes both as keyword arguments, so one key in both is a TypeError).

The reasoning markers (``markers``) are read by the shared settings, as for MATH-500.
"""

from __future__ import annotations

import logging
from typing import Any

import datasets

from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.logic.base import KINDS, LEVELS
from lm_eval_thinkbench.logic.sets import (
    FROZEN_SEED,
    ITEMS_PER_CELL,
    generate_docs,
    parse_set_version,
)

log = logging.getLogger(__name__)


def load_logic(
    lang: str,
    kind: str | None = None,
    level: int | None = None,
    subclass: str | None = None,
    **metadata: Any,
) -> datasets.DatasetDict:
    settings.configure(metadata)
    seed = int(metadata.get("logic_seed", FROZEN_SEED))
    per_cell = int(metadata.get("logic_items", ITEMS_PER_CELL))
    version = parse_set_version(metadata.get("set_version"))
    if seed != FROZEN_SEED:
        log.info("thinkbench logic: fresh set, seed %d (frozen set is seed %d)", seed, FROZEN_SEED)
    kinds = KINDS if kind is None else [kind]
    levels = LEVELS if level is None else [int(level)]
    keys = None if subclass is None else [subclass]
    docs = list(generate_docs(seed, [lang], kinds, levels, per_cell, version, keys))
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})
