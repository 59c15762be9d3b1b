"""Math answers: extraction from a response, and equivalence with the gold under a deadline.

* :mod:`.extract` finds the answer string (pure string scanning, no math-verify);
* :mod:`.verify` decides equivalence in-process with math-verify, without timeouts;
* :mod:`.grader` runs :mod:`.verify` in worker processes with a hard deadline, a verdict cache
  and a fast path; use :func:`default_grader` for anything a model wrote.

Importing this package does not import math-verify or sympy.
"""

from .extract import Extraction, all_boxed, extract_final_answer, last_boxed, strip_answer
from .grader import FirstMatch, Grader, Verdict, default_grader
from .verify import normalize

__all__ = [
    "Extraction",
    "FirstMatch",
    "Grader",
    "Verdict",
    "all_boxed",
    "default_grader",
    "extract_final_answer",
    "last_boxed",
    "normalize",
    "strip_answer",
]
