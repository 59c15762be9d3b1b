"""Find the required JSON block in the text after the reasoning, and classify what was found.

Every response gets exactly one status:

* ``if_error`` (instruction-following): there is no answer part (a truncated response), no
  fenced JSON block, or the block holds something other than a JSON object (a bare list or
  string ignores the requested structure);
* ``format_error`` (format conversion): the block is an attempt at the object but is not valid
  JSON, lacks ``answer`` (or ``process`` on an item that asks for it), ``answer`` is not a
  list of strings, or ``process`` is not a list whose steps are strings or lists of strings
  (LogicGame's password-cracking references list the candidates left after each clue);
* ``ok``.

Tolerated wrappings: the *last* fenced block whose info string starts with ``json``
(``json``, ``JSON``, ``jsonc``, ...) or that has no info string but holds ``{`` or ``[`` (a
leading ``json`` line inside it is dropped); backtick or tilde fences of any length; indented
fences; a fence left unterminated at the end of the reply; a closing fence glued to the last
line (``}```"``); a JSON block quoted inside an outer block (nested fences). Nothing is repaired
inside the JSON itself: trailing commas or single quotes are format errors. Never raises, and
costs linear time on hostile input (huge text, deep nesting, huge numbers).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from lm_eval_thinkbench.logic.base import Step

OK, IF_ERROR, FORMAT_ERROR = "ok", "if_error", "format_error"
#: The status of a reply to an item without a reference (LogicGame's whole sets): not parsed.
UNSCORED = "unscored"

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^`\n]*?)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Parsed:
    status: str
    error: str | None = None
    answer: list[str] | None = None
    process: list[Step] | None = None


def fenced_blocks(text: str) -> Iterator[tuple[str, str, str]]:
    """``(fence, info string, content)`` of every fenced block, in order.

    A fence closes the open block when it uses the same character, is at least as long and has
    no info string; a ``json`` fence met inside another block opens a nested block (the outer
    one is then dropped); a block still open at the end runs to the end of the text.
    """
    open_fence, open_info, start = "", "", -1
    for m in _FENCE.finditer(text):
        fence, info = m.group(1), m.group(2).strip().lower()
        if start < 0:
            open_fence, open_info, start = fence, info, m.end()
        elif fence[0] == open_fence[0] and len(fence) >= len(open_fence) and not info:
            yield open_fence, open_info, text[start : m.start()]
            start = -1
        elif info.startswith("json"):
            open_fence, open_info, start = fence, info, m.end()
    if start >= 0:
        yield open_fence, open_info, text[start:]


def last_json_block(text: str) -> str | None:
    """The content of the last fenced block that holds JSON, or None."""
    found = None
    for fence, info, content in fenced_blocks(text):
        body = content.split(fence[0] * 3, 1)[0].strip()
        if not info and body[:4].lower() == "json" and body[4:5] in ("\n", "\r"):
            body = body[4:].strip()
        if info.startswith("json") or (not info and body[:1] in ("{", "[")):
            found = body
    return found


def parse_output(text: str | None, answer_only: bool) -> Parsed:
    """Classify the answer part of one response (None when it has none) and extract its lists."""
    if text is None:
        return Parsed(IF_ERROR, "no answer part (the response is truncated)")
    block = last_json_block(text)
    if block is None:
        return Parsed(IF_ERROR, "no fenced json block")
    try:
        value = json.loads(block)
    except (ValueError, RecursionError) as exc:
        return Parsed(FORMAT_ERROR, f"not valid JSON: {str(exc)[:120]}")
    if not isinstance(value, dict):
        return Parsed(IF_ERROR, f"the block holds a JSON {type(value).__name__}, not an object")
    for key in ("answer",) if answer_only else ("answer", "process"):
        if key not in value:
            return Parsed(FORMAT_ERROR, f"missing key {key!r}")
    answer = value["answer"]
    if not _strings(answer):
        return Parsed(FORMAT_ERROR, "'answer' is not a list of strings")
    if answer_only:
        return Parsed(OK, None, answer, None)
    process = value["process"]
    if not isinstance(process, list) or not all(isinstance(s, str) or _strings(s) for s in process):
        return Parsed(FORMAT_ERROR, "'process' is not a list of strings (or of lists of strings)")
    return Parsed(OK, None, answer, process)


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)
