"""Which samples are analysed: ``--limit`` and a seeded ``--sample`` per subset.

``limit`` keeps the first N responses of each (model, subset) in file order, like lm-eval's
``--limit``: quick, but biased towards whatever comes first in a file. ``sample`` draws N
*problems* per subset at random, seeded, from the sorted problem ids, so the draw does not
depend on file order and every model is compared on the same problems (all repeats of a drawn
problem are kept). The length filter (``--max-tokens``) needs token counts, so it runs during
scoring (``score.py``) and is counted there.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

from lm_eval_thinkbench.analyze.samples import Sample


def select(
    samples: Sequence[Sample], limit: int | None = None, sample: int | None = None, seed: int = 0
) -> list[Sample]:
    """The samples kept, in their original order."""
    if limit is not None and sample is not None:
        raise ValueError("use --limit or --sample, not both")
    for name, value in (("limit", limit), ("sample", sample)):
        if value is not None and value < 1:
            raise ValueError(f"--{name} must be at least 1, got {value}")
    if limit is not None:
        seen: defaultdict[tuple[str, str], int] = defaultdict(int)
        kept = []
        for s in samples:
            seen[s.model, s.subset] += 1
            if seen[s.model, s.subset] <= limit:
                kept.append(s)
        return kept
    if sample is not None:
        ids: defaultdict[str, set[str]] = defaultdict(set)
        for s in samples:
            ids[s.subset].add(s.sample_id)
        chosen = {
            subset: set(_draw(sorted(pool), sample, f"{seed}|{subset}"))
            for subset, pool in ids.items()
        }
        return [s for s in samples if s.sample_id in chosen[s.subset]]
    return list(samples)


def _draw(pool: list[str], n: int, seed: str) -> list[str]:
    return pool if n >= len(pool) else random.Random(seed).sample(pool, n)
