"""The ``thinkbench`` command under its old path.

Console scripts installed before ``lm_eval_thinkbench.thinkbench`` existed call ``main`` here, as
does ``python -m lm_eval_thinkbench.analyze.cli``; the ``analyze`` subcommand itself is
``analyze.subcommand``.
"""

import sys

from lm_eval_thinkbench.thinkbench import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
