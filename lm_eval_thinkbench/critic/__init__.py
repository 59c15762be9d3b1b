"""Error detection in chains of thought: critic tasks, PRM scoring and section analysis.

Can a model (a *critic*) or a process reward model find where a chain of thought goes wrong?

* ProcessBench: return the index of the earliest wrong step of a short solution, or -1.
* DeltaBench: list every erroneous section of a long chain of thought, or say "no error".
* PRM evaluation: turn per-step / per-section scores into the same predictions, post hoc.
* Section analysis: split any reasoning trace into DeltaBench-style sections and count the ones
  that only restate or re-check an answer already reached.

The pure core (``parse``, ``scoring``, ``prm``, ``sections``, ``prompts``) knows nothing about
lm-eval; ``data`` and ``harness`` adapt it to the harness, ``prm_cli`` to a shell.
"""
