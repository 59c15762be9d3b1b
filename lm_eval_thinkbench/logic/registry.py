"""Subclasses by name, in the style of reasoning-gym: a family module registers its subclasses
when it is imported, and everything else looks them up here."""

from __future__ import annotations

from lm_eval_thinkbench.logic.base import FROZEN_SETS, KINDS, SET_VERSIONS, TaskType

_REGISTRY: dict[str, TaskType] = {}


def register(cls: type[TaskType]) -> type[TaskType]:
    """Class decorator: register one instance under ``family/name``.

    Refuses a set version that does not exist, and a new subclass under a frozen version (the
    default, 1, or a copied ``version = 2``), which would silently change a published set."""
    sub = cls()
    if sub.kind not in KINDS:
        raise ValueError(f"{cls.__name__}: kind {sub.kind!r} is not one of {KINDS}")
    if sub.version not in SET_VERSIONS:
        raise ValueError(f"{sub.key}: set version {sub.version!r} is not one of {SET_VERSIONS}")
    frozen = FROZEN_SETS.get(sub.version)
    if frozen is not None and sub.key not in frozen:
        raise ValueError(
            f"{sub.key}: set version {sub.version} is frozen (base.FROZEN_SETS); a new subclass "
            f"declares the version it joins, e.g. `version = {max(FROZEN_SETS) + 1}` (added to "
            "base.SET_VERSIONS)"
        )
    if sub.key in _REGISTRY:
        raise ValueError(f"subclass {sub.key} registered twice")
    _REGISTRY[sub.key] = sub
    return cls


def get(family: str, name: str) -> TaskType:
    try:
        return _REGISTRY[f"{family}/{name}"]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise KeyError(f"unknown logic subclass {family}/{name}; known: {known}") from None


def subclasses(kind: str | None = None, set_version: int | None = None) -> list[TaskType]:
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
