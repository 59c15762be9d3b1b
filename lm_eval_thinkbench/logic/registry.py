"""Subclasses by name, in the style of reasoning-gym: a family module registers its subclasses
when it is imported, and everything else looks them up here."""

from __future__ import annotations

from lm_eval_thinkbench.logic.base import KINDS, Subclass

_REGISTRY: dict[str, Subclass] = {}


def register(cls: type[Subclass]) -> type[Subclass]:
    """Class decorator: register one instance under ``family/name``."""
    sub = cls()
    if sub.kind not in KINDS:
        raise ValueError(f"{cls.__name__}: kind {sub.kind!r} is not one of {KINDS}")
    if sub.key in _REGISTRY:
        raise ValueError(f"subclass {sub.key} registered twice")
    _REGISTRY[sub.key] = sub
    return cls


def get(family: str, name: str) -> Subclass:
    try:
        return _REGISTRY[f"{family}/{name}"]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise KeyError(f"unknown logic subclass {family}/{name}; known: {known}") from None


def subclasses(kind: str | None = None) -> list[Subclass]:
    """Registered subclasses (of one kind), in a fixed order: by kind, family, name."""
    return sorted(
        (s for s in _REGISTRY.values() if kind in (None, s.kind)),
        key=lambda s: (KINDS.index(s.kind), s.family, s.name),
    )
