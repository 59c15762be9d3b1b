"""Settings declared once: a dataclass field says where it can be set and how it reads.

A setting is a field of a frozen dataclass (``settings.Settings``, ``analyze.api.AnalyzeOptions``,
``judge.settings.JudgeSettings``) made with :func:`setting`: its default, its help text (the
``--help`` line and the field's documentation at once), the ``thinkbench analyze`` flag, the
lm-eval ``--metadata`` key, and how each reads from text. The CLI's options are generated
from the fields (:func:`add_arguments`, :func:`from_args`) and ``--metadata`` is read through
them (:func:`from_metadata`), so a new setting is added in one place and a default cannot
differ between the CLI, the harness and the Python API.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_SPEC = "thinkbench"


@dataclass(frozen=True)
class Option:
    """Where one setting is reachable and how it reads from text.

    ``flags``: the CLI option strings (a bare name is a positional); none: not on the CLI.
    ``negate``: a ``--no-...`` flag that turns a true default off. ``parse``: CLI text to a
    value (argparse's ``type``); ``text``: a value to CLI text, for a default that argparse
    shows and then parses like a typed one. ``keys``: the ``--metadata`` keys; ``read`` takes
    the whole metadata (a setting spread over several keys), ``convert`` the one key's value.
    ``record``: the value as ``summary.json`` records it.
    """

    help: str
    flags: tuple[str, ...] = ()
    group: str | None = None
    choices: Sequence[str] | None = None
    parse: Callable[[str], Any] = str
    text: Callable[[Any], str] | None = None
    metavar: str | None = None
    nargs: str | None = None
    negate: bool = False
    keys: tuple[str, ...] = ()
    convert: Callable[[Any], Any] = str
    read: Callable[[Mapping[str, Any]], Any] | None = None
    record: Callable[[Any], Any] | None = None

    @property
    def positional(self) -> bool:
        return bool(self.flags) and not self.flags[0].startswith("-")


def setting(
    default: Any = dataclasses.MISSING, *, factory: Any = dataclasses.MISSING, **spec: Any
) -> Any:
    """A dataclass field with its :class:`Option` (``default`` or ``factory`` as for
    ``dataclasses.field``; a required field has neither)."""
    return dataclasses.field(
        default=default, default_factory=factory, metadata={_SPEC: Option(**spec)}
    )


def option(f: dataclasses.Field) -> Option | None:
    """The :class:`Option` of a field made with :func:`setting` (None for a plain field)."""
    return f.metadata.get(_SPEC)


_OPTIONS: dict[type, tuple[tuple[dataclasses.Field, Option], ...]] = {}


def options(cls: type) -> tuple[tuple[dataclasses.Field, Option], ...]:
    """The fields of dataclass ``cls`` that are settings, in declaration order (kept: every
    settings object checks its choices when it is made, once per sample in scoring)."""
    found = _OPTIONS.get(cls)
    if found is None:
        found = tuple((f, s) for f in dataclasses.fields(cls) if (s := option(f)) is not None)
        _OPTIONS[cls] = found
    return found


def default_of(f: dataclasses.Field) -> Any:
    """The field's default (its factory called); None for a required field."""
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def check_choices(obj: Any) -> None:
    """Raise ValueError for a setting of ``obj`` outside its choices (a Python caller's typo
    fails as the CLI's would, before any work)."""
    for f, spec in options(type(obj)):
        value = getattr(obj, f.name)
        if spec.choices is not None and isinstance(value, str) and value not in spec.choices:
            raise ValueError(f"{f.name} must be one of {tuple(spec.choices)}, not {value!r}")


def add_arguments(
    parser: argparse.ArgumentParser,
    cls: type,
    groups: Mapping[str, Any],
    nested: Mapping[str, tuple[type, str]] | None = None,
) -> None:
    """Add an argument for every setting of ``cls`` with flags, under its ``group`` (a key of
    ``groups``, an argument group) or the parser itself, the parser's first and then group by
    group in the order of ``groups`` (so ``--help`` and its usage line read in that order).

    ``nested`` maps a field to the settings class whose flags stand for it, with the prefix of
    their destinations (``{"judge": (JudgeSettings, "judge_")}``: the judge's ``seed`` is not
    the analysis's).
    """
    order = {None: 0} | {name: i + 1 for i, name in enumerate(groups)}
    flat = sorted(_flat(cls, "", nested or {}), key=lambda item: order[item[1].group])
    for f, spec, prefix in flat:
        _add(groups[spec.group] if spec.group is not None else parser, f, spec, prefix, spec.help)


def add_shared(parser: Any, cls: type, names: Sequence[str], **helps: str) -> None:
    """Add to ``parser`` (a parser or argument group) the flags of the settings ``names`` of
    ``cls`` exactly as :func:`add_arguments` adds them (flag, destination, default, type,
    choices), in that order: another command that takes the same option declares it here, once.
    ``helps`` gives a setting its own help text where the command reads it differently
    (``thinkbench compare --gold`` also takes the dataset's solutions)."""
    by_name = {f.name: (f, spec) for f, spec in options(cls)}
    for name in names:
        f, spec = by_name[name]
        _add(parser, f, spec, "", helps.get(name, spec.help))


def _add(where: Any, f: dataclasses.Field, spec: Option, prefix: str, help: str) -> None:
    """Add one setting's argument to ``where`` (a parser or argument group)."""
    if spec.positional:
        where.add_argument(*spec.flags, nargs=spec.nargs, metavar=spec.metavar, help=help)
        return
    dest = prefix + f.name
    if spec.negate:
        where.add_argument(*spec.flags, dest=dest, action="store_false", help=help)
        return
    default = default_of(f)
    if spec.text is not None and default is not None:
        default = spec.text(default)  # shown by --help, then parsed like any value
    # argparse's own metavar, from the flag: the field name may differ from it
    metavar = spec.metavar or (None if spec.choices else _flag_name(spec.flags).upper())
    where.add_argument(
        *spec.flags,
        dest=dest,
        default=default,
        type=spec.parse,
        choices=spec.choices,
        metavar=metavar,
        help=help,
    )


def _flat(
    cls: type, prefix: str, nested: Mapping[str, tuple[type, str]]
) -> list[tuple[dataclasses.Field, Option, str]]:
    """The settings with flags of ``cls``, each nested class's in its field's place."""
    out = []
    for f, spec in options(cls):
        if f.name in nested:
            inner, inner_prefix = nested[f.name]
            out += _flat(inner, prefix + inner_prefix, {})
        elif spec.flags:
            out.append((f, spec, prefix))
    return out


def from_args(cls: type, args: argparse.Namespace, prefix: str = "") -> dict[str, Any]:
    """The values of ``cls``'s CLI settings in ``args`` (as :func:`add_arguments` named them)."""
    return {
        f.name: getattr(args, f.name if spec.positional else prefix + f.name)
        for f, spec in options(cls)
        if spec.flags
    }


def from_metadata(cls: type, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The values of ``cls``'s metadata settings that ``metadata`` sets."""
    values: dict[str, Any] = {}
    for f, spec in options(cls):
        if spec.read is not None:
            values[f.name] = spec.read(metadata)
        elif spec.keys and spec.keys[0] in metadata:
            values[f.name] = spec.convert(metadata[spec.keys[0]])
    return values


def recorded(obj: Any, cls: type) -> dict[str, Any]:
    """The CLI settings of ``cls`` (``obj``'s class or a base) as a report records them, in
    declaration order."""
    return {
        f.name: (spec.record or _same)(getattr(obj, f.name))
        for f, spec in options(cls)
        if spec.flags and not spec.positional
    }


def _same(value: Any) -> Any:
    return value


def _flag_name(flags: Sequence[str]) -> str:
    long = next((s for s in flags if s.startswith("--")), flags[0])
    return long.lstrip("-").replace("-", "_")
