"""Subclasses by name, in the style of reasoning-gym: a family module registers its subclasses
when it is imported, and everything else looks them up here."""

from __future__ import annotations

from lm_eval_thinkbench.logic.base import KINDS, SET_VERSIONS, V1_SUBCLASSES, Subclass

_REGISTRY: dict[str, Subclass] = {}


def register(cls: type[Subclass]) -> type[Subclass]:
    """Class decorator: register one instance under ``family/name``.

    Refuses a set version that does not exist, and a new subclass that forgot to declare one
    (the default, 1, would silently change the frozen version-1 set)."""
    sub = cls()
    if sub.kind not in KINDS:
        raise ValueError(f"{cls.__name__}: kind {sub.kind!r} is not one of {KINDS}")
    if sub.version not in SET_VERSIONS:
        raise ValueError(f"{sub.key}: set version {sub.version!r} is not one of {SET_VERSIONS}")
    if sub.version == 1 and sub.key not in V1_SUBCLASSES:
        raise ValueError(
            f"{sub.key}: set version 1 is frozen (base.V1_SUBCLASSES); a new subclass declares "
            f"the version it joins, e.g. `version = {SET_VERSIONS[-1]}`"
        )
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


def subclasses(kind: str | None = None, set_version: int | None = None) -> list[Subclass]:
    """Registered subclasses (of one kind; of one set version: those that joined at or before
    it), in a fixed order: by kind, family, name."""
    return sorted(
        (
            s
            for s in _REGISTRY.values()
            if kind in (None, s.kind) and (set_version is None or s.version <= set_version)
        ),
        key=lambda s: (KINDS.index(s.kind), s.family, s.name),
    )
