"""Answers written in plain text or with decorations, rewritten into the LaTeX math-verify reads.

math-verify parses LaTeX. A model that writes its answer as plain text loses a right answer
there: ``8pi`` is read as ``8·p·i``, ``sqrt 2`` as ``s·q·r·t·2``, ``√3/2`` and ``3²`` do not
parse at all, ``12^{\\mathrm{th}}`` becomes a power of 12, and ``7 nickels`` a product of seven
letters. Each rule here turns one such form into what a careful writer would have typed, and
only where the reading is not in doubt, so that no wrong answer becomes right:

* ``pi``: ``pi`` as a whole word (``8pi``, ``20000/pi``, ``(3,pi/2)``; not ``pipe``, ``api``
  or ``\\pi``) and ``π`` become ``\\pi``;
* ``radical``: ``sqrt(..)``, ``sqrt x``, ``sqrt2``, ``sqrt{..}``, ``√..``, ``√[..]``, ``∛..``,
  ``∜..``, ``cbrt(..)`` and ``\\sqrt(..)`` become ``\\sqrt{..}`` / ``\\sqrt[3]{..}``; a
  parenthesised or bracketed argument is taken whole (nested radicals included), a bare one is
  one number, one letter or one control word (``√3/2`` is ``\\sqrt{3}/2``);
* ``function``: ``sin(``, ``cos(``, ``tan(``, ``ln(``, ``log(``, ``exp(`` and the like,
  followed by a parenthesis, get their backslash;
* ``symbol``: ``∞``, ``·`` and superscript digits (``x²``) become ``\\infty``, ``\\cdot``,
  ``^{2}``;
* ``ordinal``: an ordinal suffix on a number (``12th``, ``3^{rd}``, ``12^{\\mathrm{th}}``,
  ``21^{\\text{st}}``) is dropped when a bare number (or a number and words) remains and the
  suffix agrees with the number (``2nd``, not ``2th``);
* ``words`` (depends on the gold): plain words after a value with no letters of its own
  (``7 nickels``, ``18.90 dollars``, ``3*sqrt(13) units``, ``\\text{5 apples}``) are dropped
  when the gold has no words at all or the same words, so a unit never replaces another one
  (``5 metres`` against a gold in ``\\text{ m}`` stays as it is). Words that change the
  value (``2 or more``, ``5 million``, ``3 squared``, ``2 is not a solution``) are never
  dropped, nor a first word shorter than three letters (``4 xy`` may be a product; ``5 cm``
  and ``\\text{..}`` units are math-verify's own normalisation);
* ``subscript`` (depends on the gold): a one-character subscript is written as the gold writes
  all of its own, braced or bare (``E_1, E_2`` against ``E_{1},E_{2}``): the two are one
  symbol in LaTeX but two different symbols to latex2sympy, so math-verify never equates
  them. Nothing changes when the gold has no such subscript or writes both forms.

Text inside ``\\text{..}``-like groups is never rewritten (``\\text{pi}`` is a word). The plain
``e`` needs no rule: math-verify already reads a lone ``e`` as Euler's number (``e^2`` equals
``7.389056``), and a rule of ours could only add readings of ``e`` as a variable. Percentages,
degrees and ``\\text{..}`` units are math-verify's own normalisations and are left to it.

Every rule is a fixed number of linear passes over a short string (answers are checked up to
:data:`.verify.MAX_ANSWER_CHARS`), keeps braces balanced (an unbalanced answer stays
unbalanced and is refused by the checker as before), never raises, and is idempotent
(rewriting a rewritten answer changes nothing). A rewritten answer is checked *beside* the
answer as written (:func:`.verify.candidate_readings`), so a rule can add a match but never
lose one; the grader's cache keys include the rewritten form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .extract import run_end

__all__ = ["Rewrite", "prepare_candidate", "rewrite_answer"]


@dataclass(frozen=True)
class Rewrite:
    """A rewritten answer and the names of the rules that changed it (in order of firing)."""

    text: str
    rules: tuple[str, ...] = ()


#: Groups whose argument is text, not math: never rewritten.
_TEXT_GROUP = r"\\(?:text[a-z]*|mbox|mathrm|mathbf|mathit|operatorname)\s*\{[^{}]*\}"
_FUNCTIONS = (
    "arcsin|arccos|arctan|sinh|cosh|tanh|sin|cos|tan|cot|sec|csc|ln|log|exp"  # longest first
)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
#: One pass for the rules that replace a token by a token.
_TOKEN_RE = re.compile(
    rf"(?P<text>{_TEXT_GROUP})"
    r"|(?P<pi>(?<![A-Za-z\\])pi(?![A-Za-z])|π)"
    rf"|(?<![A-Za-z\\])(?P<function>{_FUNCTIONS})(?=\s*\()"
    r"|(?P<infinity>∞)|(?P<dot>[·⋅])"
    r"|(?P<superscript>[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻]+)"
)
_SYMBOLS = {"∞": "\\infty", "·": "\\cdot", "⋅": "\\cdot"}

#: A radical: plain ``sqrt``/``cbrt`` (not inside a word or after a backslash), the radical
#: signs, or ``\\sqrt`` followed by a parenthesis.
_RADICAL_RE = re.compile(
    rf"(?P<text>{_TEXT_GROUP})"
    r"|(?P<plain>(?<![A-Za-z\\])(?:sqrt|cbrt)(?![A-Za-z])|[√∛∜])"
    r"|(?P<latex>\\sqrt)(?=\s*\()"
)
_RADICAL_COMMAND = {"sqrt": "\\sqrt", "√": "\\sqrt", "\\sqrt": "\\sqrt"}
_RADICAL_COMMAND.update(dict.fromkeys(("cbrt", "∛"), "\\sqrt[3]"))
_RADICAL_COMMAND["∜"] = "\\sqrt[4]"
#: The argument of a radical written without parentheses: one number, control word or letter.
_BARE_RADICAND_RE = re.compile(r"[ \t]*(\d+(?:\.\d+)?|\\[A-Za-z]+|[A-Za-z](?![A-Za-z]))")
_GAP_RE = re.compile(r"[ \t]*")
#: A radicand in square brackets after a plain radical: ``√[13]``, ``sqrt[2x]``.
_BRACKET_RADICAND_RE = re.compile(r"\[([^\[\]{}]{1,60})\](?!\s*\{)")

_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+"
#: Words: plain (``7 nickels``) or wrapped (``\\text{ apples}``); the wrapped ones hold nothing
#: but letters, spaces, hyphens, apostrophes and periods.
_TEXT_WORDS = r"\\(?:text|textrm|mbox|mathrm)\s*\{[A-Za-z\s'.\-]*\}"
_PLAIN_WORD = r"[A-Za-z][A-Za-z'\-]*"
_WORDS = rf"(?:\s*{_TEXT_WORDS}|(?:\s+|\\[,;: ]|~){_PLAIN_WORD})+"
_ORDINAL_SUFFIX = (
    r"(?:\^\s*)?(?:\{\s*(?P<a>st|nd|rd|th)\s*\}"
    r"|\{\s*\\(?:mathrm|text|textrm|mbox|textsuperscript|mathit|textit)\s*\{\s*(?P<b>st|nd|rd|th)\s*\}\s*\}"
    r"|\{\s*\\rm\s+(?P<c>st|nd|rd|th)\s*\}"
    r"|\\(?:mathrm|text|textrm|mbox|textsuperscript)\s*\{\s*(?P<d>st|nd|rd|th)\s*\}"
    r"|(?P<e>st|nd|rd|th)(?![A-Za-z]))"
)
_ORDINAL_RE = re.compile(rf"\s*(?P<number>\d+)\s*{_ORDINAL_SUFFIX}(?P<rest>(?:{_WORDS})?)\s*")
#: A number written with its words inside one text group: ``\text{5 apples}``.
_TEXT_NUMBER_RE = re.compile(
    rf"\s*\\(?:text|textrm|mbox)\s*\{{\s*(?P<number>[-+]?(?:{_NUMBER}))"
    rf"(?P<words>(?:\s+{_PLAIN_WORD})+)\s*\}}\s*"
)
_PLAIN_WORD_RE = re.compile(_PLAIN_WORD)
_SPACES_RE = re.compile(r"(\s+)")
_WORD_RE = re.compile(r"[A-Za-z]+(?:['\-][A-Za-z]+)*")
#: Words after a number that change what the number means: never dropped.
_VALUE_WORDS = frozenset(
    re.findall(
        r"\w+",
        "and or to more less than at least most times plus minus over divided by squared cubed "
        "root roots power powers hundred hundreds thousand thousands million millions billion "
        "billions trillion trillions dozen dozens half halves third thirds quarter quarters "
        "fourths fifths tenths hundredths thousandths percent not",
    )
)
_CONTROL_WORD_RE = re.compile(r"\\[A-Za-z]+")
_LETTER_RE = re.compile(r"[A-Za-z]")
#: What any rule needs: a letter that starts a plain word (not a control word), a character
#: beyond ASCII (``π``, ``√``, ``²``), or ``\\sqrt(``. Answers without one (numbers, most
#: LaTeX) skip every pass: the grader computes cache keys with these rules on each check.
_MAY_REWRITE_RE = re.compile(r"(?<![\\A-Za-z])[A-Za-z]|[^\x00-\x7f]|\\sqrt\s*\(")


def _needs_space(text: str, end: int) -> str:
    """A space to end a control word we emitted when a letter follows (``π r`` → ``\\pi r``,
    never the control word ``\\pir``)."""
    return " " if end < len(text) and text[end].isascii() and text[end].isalpha() else ""


def _rewrite_tokens(text: str, fired: list[str]) -> str:
    """The ``pi``, ``function`` and ``symbol`` rules, in one pass."""

    def replace(match: re.Match[str]) -> str:
        kind = match.lastgroup
        if kind == "text":
            return match.group()
        if kind == "superscript":
            fired.append("symbol")
            return "^{" + match.group().translate(_SUPERSCRIPTS) + "}"
        if kind == "pi":
            fired.append("pi")
            return "\\pi" + _needs_space(text, match.end())
        if kind == "function":
            fired.append("function")
            return "\\" + match.group()
        fired.append("symbol")
        return _SYMBOLS[match.group()] + _needs_space(text, match.end())

    return _TOKEN_RE.sub(replace, text)


def _paren_closers(text: str) -> dict[int, int]:
    """Each ``(`` mapped to its matching ``)`` where both sit at the same brace depth (so a
    rewrite to ``{..}`` cannot cross a brace group), in one pass."""
    closers: dict[int, int] = {}
    stack: list[tuple[int, int]] = []
    depth = 0
    for index, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "(":
            stack.append((index, depth))
        elif char == ")" and stack:
            start, start_depth = stack.pop()
            if start_depth == depth:
                closers[start] = index
    return closers


def _rewrite_radicals(text: str, fired: list[str]) -> str:
    """The ``radical`` rule: one scan for radicals, one for parentheses, one to rebuild."""
    if not _RADICAL_RE.search(text):
        return text
    closers = _paren_closers(text)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in order
    closing: set[int] = set()
    for match in _RADICAL_RE.finditer(text):
        if match.lastgroup == "text":
            continue
        command = _RADICAL_COMMAND[match.group()]
        gap = run_end(_GAP_RE, text, match.end())
        if gap in closers and text[gap + 1 : closers[gap]].strip():
            edits.append((match.start(), gap + 1, command + "{"))
            closing.add(closers[gap])
        elif match.lastgroup == "plain" and text.startswith("{", gap):
            edits.append((match.start(), gap, command))
        elif match.lastgroup == "plain" and (bare := _BARE_RADICAND_RE.match(text, gap)):
            edits.append((match.start(), bare.end(), command + "{" + bare.group(1) + "}"))
        elif match.lastgroup == "plain" and (bracket := _BRACKET_RADICAND_RE.match(text, gap)):
            # "3√[13]": a radicand in square brackets (a plain radical has no index)
            edits.append((match.start(), bracket.end(), command + "{" + bracket.group(1) + "}"))
        else:
            continue
        fired.append("radical")
    if not edits:
        return text
    edits.extend((at, at + 1, "}") for at in closing)
    edits.sort()
    pieces, position = [], 0
    for start, end, replacement in edits:
        if start < position:  # a bare radicand overlapping a later edit: keep the first
            continue
        pieces += [text[position:start], replacement]
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _ordinal_agrees(number: str, suffix: str) -> bool:
    """Whether ``suffix`` is the English ordinal suffix of ``number`` (1st, 2nd, 11th, 23rd)."""
    value = int(number[-2:])
    if 11 <= value % 100 <= 13:
        return suffix == "th"
    return suffix == {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")


def _rewrite_ordinal(text: str, fired: list[str]) -> str:
    """The ``ordinal`` rule: ``12^{\\mathrm{th}}`` (and words after it) → ``12`` (and words)."""
    match = _ORDINAL_RE.fullmatch(text) if _LETTER_RE.search(text) else None
    if match is None:
        return text
    suffix = next(s for s in match.group("a", "b", "c", "d", "e") if s)
    if not _ordinal_agrees(match.group("number"), suffix):
        return text
    fired.append("ordinal")
    return match.group("number") + match.group("rest")


def rewrite_answer(answer: str) -> Rewrite:
    """``answer`` (gold or candidate) with the rules that need no gold applied: ``pi``,
    ``radical``, ``function``, ``symbol``, ``ordinal`` (see the module docstring).

    Non-strings come back unchanged. Linear in the length of ``answer``; the grader only
    passes answers it will check (:data:`.verify.MAX_ANSWER_CHARS` at most).
    """
    if not isinstance(answer, str) or not _MAY_REWRITE_RE.search(answer):
        return Rewrite(answer)
    fired: list[str] = []
    text = _rewrite_tokens(answer, fired)
    text = _rewrite_radicals(text, fired)
    text = _rewrite_ordinal(text, fired)
    if not fired:
        return Rewrite(answer)
    return Rewrite(text, tuple(dict.fromkeys(fired)))


def _words(text: str) -> tuple[str, ...]:
    """The words of ``text`` outside control words, lowercased (``\\text{ Apples}`` → apples)."""
    return tuple(w.lower() for w in _WORD_RE.findall(_CONTROL_WORD_RE.sub(" ", text)))


def _trailing_words(text: str) -> tuple[str, tuple[str, ...]] | None:
    """``(expression, words)`` when ``text`` ends in plain words after a space
    (``3*\\sqrt{13} units`` → ``3*\\sqrt{13}``, ``(units,)``), else ``None``. One pass."""
    parts = _SPACES_RE.split(text.strip())  # token, space, token, ..., token
    cut = len(parts)
    while cut >= 3 and _PLAIN_WORD_RE.fullmatch(parts[cut - 1]):
        cut -= 2
    if cut == len(parts):
        return None
    return "".join(parts[:cut]), tuple(word.lower() for word in parts[cut + 1 :: 2])


def _strip_words(gold: str, candidate: str) -> str | None:
    """The ``words`` rule: ``candidate`` without the words after its value, when they may be
    dropped (see the module docstring), else ``None``."""
    inside = _TEXT_NUMBER_RE.fullmatch(candidate)
    if inside is not None:
        expression, words = inside.group("number"), _words(inside.group("words"))
    elif (split := _trailing_words(candidate)) is not None:
        expression, words = split
        if _LETTER_RE.search(_CONTROL_WORD_RE.sub("", expression)) or len(words[0]) < 3:
            return None  # "x = 5 apples" is not a bare value; "4 xy" may be a product
    else:
        return None
    if _VALUE_WORDS.intersection(words):
        return None
    gold_words = _words(gold)
    if gold_words and gold_words != words:
        return None
    return expression


#: A one-character subscript, braced (``E_{1}``: ``braced``) or bare (``E_1``: ``bare``), or a
#: text group, which is left as it is.
_SUBSCRIPT_RE = re.compile(
    rf"(?P<text>{_TEXT_GROUP})|_(?:\{{(?P<braced>[A-Za-z0-9])\}}|(?P<bare>[A-Za-z0-9]))"
)


def _match_subscripts(gold: str, candidate: str) -> str | None:
    """The ``subscript`` rule: ``candidate`` with its one-character subscripts written the way
    every one of the gold's is (braced or bare), or ``None`` when that changes nothing."""
    forms = {m["braced"] is not None for m in _SUBSCRIPT_RE.finditer(gold) if not m["text"]}
    if len(forms) != 1:
        return None
    form = "_{{{}}}" if forms.pop() else "_{}"

    def written(m: re.Match[str]) -> str:
        return m["text"] or form.format(m["braced"] or m["bare"])

    text = _SUBSCRIPT_RE.sub(written, candidate)
    return text if text != candidate else None


def prepare_candidate(gold: str, candidate: str) -> Rewrite:
    """``candidate`` as it is checked against ``gold``: :func:`rewrite_answer`, then the
    ``subscript`` and ``words`` rules, which read the gold. ``gold`` is the gold as it is
    checked, that is ``rewrite_answer(gold).text`` (rewritten once for all of its candidates).

    Non-strings come back unchanged.
    """
    rewritten = rewrite_answer(candidate)
    if not isinstance(gold, str) or not isinstance(rewritten.text, str):
        return rewritten
    if "_" in gold and (subscripted := _match_subscripts(gold, rewritten.text)) is not None:
        rewritten = Rewrite(subscripted, (*rewritten.rules, "subscript"))
    if not _MAY_REWRITE_RE.search(rewritten.text):
        return rewritten
    number = _strip_words(gold, rewritten.text)
    if number is None:
        return rewritten
    return Rewrite(number, (*rewritten.rules, "words"))
