"""Generation and scoring throughput of the logic suite on one core (the goal: 1,000 items/s).

An item is generated with its two worked examples and rendered in both languages (two
documents); a document is scored from a simulated reply (split, block parsing, answer and step
metrics, simulator replay). Fresh seeds, so no cache is warm; the caches that persist across
items (per-goal search tables) fill as they would in a long run. Prints figures, asserts
nothing.

    python benchmarks/logic_throughput.py [--items 3000] [--seed 777]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from lm_eval_thinkbench.logic import registry
from lm_eval_thinkbench.logic.base import LANGS, LEVELS
from lm_eval_thinkbench.logic.filters import score_logic_response
from lm_eval_thinkbench.logic.items import make_item, to_doc
from lm_eval_thinkbench.simulate.logic import respond_logic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=3000, help="items (each in two languages)")
    parser.add_argument("--seed", type=int, default=777)
    args = parser.parse_args()

    subs = registry.subclasses()
    keys = [
        (subs[i % len(subs)], LEVELS[(i // len(subs)) % len(LEVELS)], i) for i in range(args.items)
    ]
    per_sub: dict[str, float] = defaultdict(float)
    docs = []
    t0 = time.perf_counter()
    for sub, level, index in keys:
        t = time.perf_counter()
        item = make_item(sub.family, sub.name, level, index, args.seed)
        docs += [to_doc(item, lang) for lang in LANGS]
        per_sub[sub.key] += time.perf_counter() - t
    generation = time.perf_counter() - t0

    replies = [respond_logic(doc, 0).inline() for doc in docs]  # not timed: the "model"
    t0 = time.perf_counter()
    for doc, reply in zip(docs, replies, strict=True):
        score_logic_response(doc, reply, "think")
    scoring = time.perf_counter() - t0

    n, d = len(keys), len(docs)
    print(f"items              {n} ({d} documents, {len(subs)} subclasses x {len(LEVELS)} levels)")
    print(f"generation         {n / generation:8.0f} items/s   {d / generation:8.0f} documents/s")
    print(f"scoring            {d / scoring:8.0f} documents/s")
    print(f"generate + score   {n / (generation + scoring):8.0f} items/s   "
          f"{d / (generation + scoring):8.0f} documents/s  (one core)")  # fmt: skip
    print("slowest generators (ms per item, both languages):")
    share = len(subs) / n
    for key, seconds in sorted(per_sub.items(), key=lambda kv: -kv[1])[:5]:
        print(f"  {key:<22} {seconds * share * 1000:6.2f}")


if __name__ == "__main__":
    main()
