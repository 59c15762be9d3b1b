"""Which repeat of its document each request is.

With ``repeats: n`` lm-eval lists the same ``Instance`` object n times in a row
(``evaluator.py``: ``[req] * req.repeats``), so the k-th occurrence of an instance in one
``generate_until`` call is repeat k. Models use it to vary seeds and to find logged repeats.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from lm_eval.api.instance import Instance


def repeat_indices(requests: Sequence[Instance]) -> list[int]:
    """The repeat number of every request, in order."""
    seen: Counter[int] = Counter()
    out = []
    for request in requests:
        out.append(seen[id(request)])
        seen[id(request)] += 1
    return out
