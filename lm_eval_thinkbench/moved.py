"""Old import paths of names that moved or were renamed, kept so that code and task YAMLs
written against them still load (``!function lm_eval_thinkbench.critic.harness.f``).

An old module keeps a module-level ``__getattr__`` (PEP 562) made by :func:`forward`: a name it
no longer defines is looked up in the module(s) that now hold it, under its new name where it
was renamed, and handed over with a DeprecationWarning that names the new path. The old module
imports only its new homes, never a layer above it, so an alias adds no upward import. Every
old path and where it went, aliased or not: docs/moved.md.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any


def forward(
    old: str, *homes: ModuleType, renamed: Mapping[str, str] | None = None
) -> Callable[[str], Any]:
    """The ``__getattr__`` of module ``old``: a public name is looked up in ``homes`` in order,
    as ``renamed[name]`` where it was renamed (a home may be ``old`` itself, for names renamed in
    place); anything else is an AttributeError, as for any module."""
    new_names = dict(renamed or {})

    def __getattr__(name: str) -> Any:
        new = new_names.get(name, name)
        if not name.startswith("_"):
            for home in homes:
                if new in vars(home):
                    warnings.warn(
                        f"{old}.{name} is now {home.__name__}.{new}; the old name will go",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    return vars(home)[new]
        raise AttributeError(f"module {old!r} has no attribute {name!r}")

    return __getattr__
