"""``thinkbench analyze``: post-hoc think-efficiency reports from logs of many runs.

Pipeline (one module each): ``readers`` (lm-eval, EvalScope, plain JSONL -> ``Sample``) ->
``select`` (limit, seeded sample, length filter) -> ``score`` (the per-sample records of
``efficiency``, with the rule or judge locator) -> ``aggregate`` (per subset and overall, with
bootstrap intervals) -> ``report`` (md, csv, json, per-sample JSONL) and ``plots`` (PNG).
``api.analyze`` runs it all; ``cli`` is the command line over it.
"""
