"""Reading yes/no settings that arrive as strings.

``--model_args`` and ``key=value`` ``--metadata`` reach the plugin as strings, JSON metadata and
Python callers as booleans; every flag of the plugin is read here, the same way.
"""

from __future__ import annotations

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


def as_bool(value: object, name: str = "flag") -> bool:
    """``value`` as a boolean; an unrecognised string is an error naming the setting."""
    if isinstance(value, bool | int):
        return bool(value)
    text = str(value).strip().lower()
    if text in _TRUE + _FALSE:
        return text in _TRUE
    raise ValueError(f"{name} must be true or false, got {value!r}")
