"""What the judge is asked. Changing a template changes answers, so it bumps PROMPT_VERSION,
which is part of every cache key (old answers are then not reused).

Both prompts keep the judge's task narrow and its output machine-readable:

* ``FIRST_CORRECT``: ProcessBench's layout (the problem, then the reasoning as
  ``<paragraph_i>`` blocks indexed from 0, the index in ``\\boxed{}``, -1 for none), with the
  reference answer given, as in EvalScope's ThinkBench, and the question turned around: the
  earliest paragraph where the reasoning *commits* to an answer equivalent to the reference.
  The wording is shorter than EvalScope's, so the same trace costs fewer prompt tokens.
* ``SPLIT``: copy the reasoning verbatim, cut into ``<step>`` blocks. Only whitespace may change;
  ``steps.align_steps`` rejects any other edit.
"""

from __future__ import annotations

PROMPT_VERSION = "1"

FIRST_CORRECT = """\
Below are a math problem, its correct answer, and a solution split into paragraphs, enclosed \
in tags and indexed from 0.

[Math Problem]

{problem}

[Correct Answer]

{answer}

[Solution]

{paragraphs}

Find the earliest paragraph in which the solution first arrives at the correct answer: it \
states or concludes a final value equivalent to the correct answer. A value that only appears \
in the problem, an option list or an intermediate quantity does not count. If no paragraph \
arrives at it, the index is -1.

Put the index (an integer) in \\boxed{{}}."""

SPLIT = """\
Split the reasoning below into steps. A step is one distinct move: reading the problem, a \
derivation, a case, a computation, a check, a change of approach.

Copy the reasoning exactly, with every character in order; do not fix, shorten or add \
anything. Put each step between <step> and </step>, and write nothing else.

[Problem]

{problem}

[Reasoning]

{reasoning}"""
