"""The standard harness's own graders, loaded from the installed lm-eval task folders.

Nothing here re-implements a grader: each is the task's own ``process_results`` from
``lm_eval/tasks/<task>/utils.py``, loaded as a private module copy (so that wrapping its helpers
to record what they compared never changes a real lm-eval run in the same process).

* ``hendrycks_math500`` (``hendrycks_math/utils.py``): ``is_equiv`` of the text between the
  response's first and last ``$`` and the last ``\\boxed{}`` of the solution, after
  ``strip_string``.
* ``minerva_math500`` (``minerva_math/utils.py``): ``exact_match`` compares the normalised
  ``Final Answer: The final answer is X. I hope it is correct.`` with sympy (``parse_latex`` of
  both, ``simplify`` of the difference); ``math_verify`` is math-verify on the whole solution
  against the whole response.

minerva's module refuses to import unless ``antlr4-python3-runtime`` is 4.11 (sympy's antlr
LaTeX parser was generated for it), while math-verify, and so this project, needs 4.13. The
module is therefore executed with that one version check answered "4.11", and its
``parse_latex`` is sympy's own ``lark`` backend (sympy >= 1.13, pure Python, no antlr), which
needs no antlr at all. docs/compare.md measures how often that changes a verdict.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

ANTLR = "antlr4-python3-runtime"


def task_folder(name: str) -> Path:
    """The installed lm-eval task folder ``name`` (``hendrycks_math``, ``minerva_math``)."""
    spec = importlib.util.find_spec("lm_eval")
    if spec is None or spec.origin is None:
        raise ImportError("lm-eval is not installed")
    return Path(spec.origin).parent / "tasks" / name


def load_utils(name: str, *, antlr_check: bool = False) -> ModuleType:
    """A fresh private copy of ``lm_eval/tasks/<name>/utils.py``.

    ``antlr_check`` answers the module's import-time check of the antlr runtime's version
    with "4.11" (minerva's; nothing else in the module reads the version).
    """
    path = task_folder(name) / "utils.py"
    spec = importlib.util.spec_from_file_location(f"thinkbench_harness_{name}_utils", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    if not antlr_check:
        spec.loader.exec_module(module)
        return module
    # What the module imports is imported first, outside the patch: latex2sympy2_extended
    # picks its generated parser by the antlr version it sees at import time.
    import math_verify  # noqa: F401
    import sympy.parsing.latex  # noqa: F401

    real = importlib.metadata.version

    def version(dist: str) -> str:
        return "4.11.0" if dist == ANTLR else real(dist)

    with mock.patch("importlib.metadata.version", version):
        spec.loader.exec_module(module)
    return module


@cache
def hendrycks() -> ModuleType:
    return load_utils("hendrycks_math")


@cache
def minerva() -> ModuleType:
    """minerva's utils with sympy's lark LaTeX parser in place of the antlr one."""
    from sympy.parsing.latex import parse_latex

    module = load_utils("minerva_math", antlr_check=True)
    setattr(module, "parse_latex", partial(parse_latex, backend="lark"))  # noqa: B010
    return module


def recording(module: ModuleType, name: str, calls: list[tuple[Any, ...]]) -> Callable[[], None]:
    """Wrap ``module.name`` so that each call appends ``(*args, result)`` to ``calls``;
    returns the function that restores it."""
    original = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        calls.append((*args, result))
        return result

    setattr(module, name, wrapper)
    return lambda: setattr(module, name, original)
