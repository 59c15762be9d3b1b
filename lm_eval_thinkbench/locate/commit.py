"""Which claim of a reasoning trace first commits to the gold answer, and why it counts.

The reading follows ``FIRST_CORRECT_PROTOCOL.md`` (the project's annotation protocol for real
traces). A claim (``locate.claims``) whose value equals the gold counts when it states

* a boxed value (rule ``"boxed"``) or "the answer is X" (``"answer"``);
* the value of the asked quantity under one of its names (``"asked"``, see ``locate.asked``):
  ``a + b = -3 + 3 = 0`` when the problem asks for ``a + b``, "the smallest integer ... is 17",
  ``x = 3`` when it asks for x, ``g(6) = 7`` once ``g(f(5) - 1)`` was set equal to ``g(6)``;
  a chain whose names together describe it in the question's words ("Fraction of math books =
  number of math books / total remaining books = 8 / 18"); a value in the rate the question
  asks for ("... equals 4 inches per second"); or a ratio converted to percent
  (``0.1 * 100% = 10%``) when the question asks for a percent;
* the result of the computation the model just set the asked quantity to (``"computed"``):
  "the perimeter would be 6 times 7 inches", then "6 times 7 is 42 inches";
* the result of a computation that the model adopts at once (``"adopted"``): an unnamed chain
  (``1239 + 361 = 1600``, a displayed ``\\[ 68 + 13 = 81 \\]``) or a chain under a name not
  known to be the asked one, when the next answer statement or asked-quantity claim, in the same
  paragraph or one of the next two, also equals the gold. That is how a reader tells the
  computation that produces the asked quantity from one that produces something else. Two
  adopters never commit themselves: a question that names the asked quantity ("So, does that
  mean 196 has 9 positive divisors?" after ``3 × 3 = 9``; not for a variable's value), and the
  final box after a closed thought (a thought that ends on its computation, "Finally, adding 1
  to 9,900 results in 9,901.", and leaves the statement to the written solution).
* in a word problem (a story before its question, no formula, an answer that is none of its
  numbers), the result of a chain of numbers (``"computed"``: "$100 - $30 = $70", "23 plus 140
  is 163", "we need to add that $10 to the remaining $11. That would be $11 + $10 = $21."),
  unless the computation goes on from it: the next chain, in its paragraph or the next, takes
  it as an operand and reaches a new value ("6 times 5 is 30, so 120 + 30 is 150"), another
  chain follows in its sentence ("500*20 is 10,000 and 500*4 is 2,000"), a name of another
  quantity follows in its paragraph ("5 minus 2 is 3. So he has 3 pen pals left."), or the
  model rejects it at once ("60 minus 40 is 20. Wait, that doesn't make sense."). A word
  problem's answer is the last of a few operations on its numbers, and a model that reaches
  it often re-checks at length before saying so again (QwQ-32B: a dozen paragraphs), so the
  adoption window would miss it.

It never counts a claim that

* sits in a question, a hypothesis, a trial or a check ("is it 6?", "if x = 6", "let's try",
  "n = 4:" opening a case), an option list ("35 or 36", "maybe 6", several values for one
  name), a negation, an approximation (unless the gold is a decimal), or the bound side of an
  inequality ("n \\geq \\frac{9216}{144} = 64": a bound before it is adopted);
* restates the problem (its text occurs in the problem);
* names a proper part of the asked expression (``f(5)`` of ``g(f(5) - 1)``: an intermediate);
* is not yet evaluated: a value with more numbers and symbols than the gold (``5 - 125 + 125``
  for 5, ``\\frac{30}{5}`` for 6, ``\\frac{\\cos x}{\\sin x}`` for ``\\cot x``); a box is always
  taken as written, and a fraction that ends its chain unreduced ("That would be 3/24" for
  1/8) is a value like any other: the protocol counts any mathematically equal value.

Values are graded with the same checker as the final answer (``Grader.first_equivalent``),
lazily: one batched call grades the candidates from the first unknown one onward and stops at
the first equivalent, so a long trace costs a few calls.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import islice

from lm_eval_thinkbench.locate.asked import (
    GENERIC,
    PEOPLE,
    SUPERSCRIPT_DIGITS,
    Asked,
    apposed_names,
    asked_names,
    content_words,
    form_task,
    goal_names,
    head_word,
    name_key,
    problem_variables,
)
from lm_eval_thinkbench.locate.claims import (
    SUBSTITUTION,
    WHOLE_FRACTION,
    Claim,
    Reading,
    has_letter,
    pending_operation,
    perfect_root,
    read,
    sentence_flags,
    sentences,
    spoken_root,
)
from lm_eval_thinkbench.locate.intervals import interval_statements
from lm_eval_thinkbench.math.extract import CONCLUSION_OPENERS
from lm_eval_thinkbench.math.grader import Grader
from lm_eval_thinkbench.math.screen import surely_equal
from lm_eval_thinkbench.steps import Span, split_separator, step_index_at

#: Flags of a claim that doubts a value: between a result and its adoption, the model was
#: not yet sure of it ("2(n + 7) - (2n + 1) = 13", then "the possible values are 1 and 13").
#: A question ("So 6 days not working?") only asks itself to check.
_DOUBT = frozenset(("option", "list"))
#: Flags of a value the model sets aside ("which I need later", "though not every condition is
#: used yet"): still a computation of something else between a result and its adoption.
_ASIDE = frozenset(("option", "intermediate"))
#: Flags that make a claim no commitment.
_REJECT = frozenset(
    (
        "question", "hypothesis", "premise", "check", "substitution", "option", "intermediate",
        "list", "header", "negated", "bound", "given", "reason",
    )
)  # fmt: skip
#: Names that say "the asked quantity" in so many words: "the answer", "the value we are
#: looking for", "the required value", "what we want"; not what a search is for ("looking for
#: two numbers that multiply to 5": a factor pair's product).
_ANSWER_WORD = re.compile(
    r"(?i)\banswer\b|(?:looking\s+for|we\s+(?:want|need|seek)\b)"
    r"(?![^.]{0,200}?\b(?:that|which|whose)\b)|\b(?:required|desired|sought)\b"
    r"|asked\s+(?:for|to\s+find)|in\s+question\b"
)
#: The atoms of a value: numbers, single-letter variables, constants and functions.
_ATOM = re.compile(
    r"\d+(?:\.\d+)?|\\text\s*\{[^{}]*\}|\\(?:sqrt|sin|cos|tan|cot|sec|csc|log|ln|exp|pi|infty"
    r"|arcsin|arccos|arctan|theta|alpha|beta|gamma)(?![A-Za-z])|sqrt|π|√|∞"
    r"|(?<![\\A-Za-z])(?:arc(?:sin|cos|tan)|sin|cos|tan|log|ln)(?=\s*\()"
    r"|(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])"
)
_FRAC_SHORTHAND = re.compile(r"\\[dt]?frac\s*(\d)\s*(\d)")
_COLUMN = re.compile(r"\\begin\{pmatrix\}(.*?)\\end\{pmatrix\}", re.DOTALL)
_LEADING_NAME = re.compile(r"^\s*[A-Za-z](?:_\{?\w+\}?)?\s*=\s*(?=\S)")


@dataclass(frozen=True)
class Found:
    """The committing claim (None if none), the rule that made it count, the distinct values
    graded and the checks that ran out of time."""

    claim: Claim | None
    rule: str | None
    candidates: int
    timeouts: int


@dataclass(frozen=True)
class _Candidate:
    claim: Claim
    # "boxed", "answer", "asked", "open"; "witness" (a question) and "final" (the answer's box
    # after the thought) only adopt
    kind: str
    value: str
    paragraph: int


def _headed(text: str, paragraphs: list[Span]) -> list[Span]:
    """The paragraphs, each heading that only announces the next one ("**Therefore, the dot
    product is:**", "**3. Simplify:**") joined to it: markdown's blank line after a heading
    is no step of the reasoning, and the distances the rules below allow are in steps."""
    out: list[Span] = []
    pending: int | None = None
    for span in paragraphs:
        if _HEADING.fullmatch(text, span.start, span.end):
            pending = span.start if pending is None else pending
            continue
        out.append(span if pending is None else Span(pending, span.end))
        pending = None
    if pending is not None:
        out.append(Span(pending, paragraphs[-1].end))
    return out


#: A paragraph that only announces the next: one short line ending with a colon, with no
#: sentence or equation before it ("So a is -2. Then, ..., substitute a = -2:" states things),
#: in markdown emphasis or a heading's marks or not.
_HEADING = re.compile(r"[ \t#*>-]*(?:\d{1,2}\.\s*)?[^\n.=?!]{1,100}?:[ \t*]*")


@dataclass(frozen=True)
class _Opener:
    """The asked quantity set equal to a computation still to be done ("the total number of
    ways should be 5 × 4 × 3", ``|w| = \\sqrt{\\frac{4225}{28561}}``): where, and the
    computation's key."""

    start: int
    paragraph: int
    key: str


def first_commitment(
    reasoning: str,
    gold: str,
    grader: Grader,
    *,
    problem: str | None = None,
    answer: str | None = None,
) -> Found:
    """The first claim of ``reasoning`` that commits to ``gold`` (see the module docstring).

    Values are read without a unit after them ("864 square inches"), so a gold that carries
    one (``864 \\mbox{ inches}^2``) is graded without it too."""
    gold = unitless(gold)
    joins = gold_joins(gold)
    words = frozenset(w.lower() for w in _TEXT_GOLD.findall(gold))
    if option := option_word(gold, problem):
        words |= {option}
    reading = read(reasoning, joins, words)
    answer_reading = None
    if answer and answer.strip():  # a non-reasoning response: the answer is the reasoning
        answer_reading = reading if answer == reasoning else read(answer, joins, words)
    final = final_claims(answer_reading, answer or "", problem) if answer_reading else []
    final = final or final_claims(reading, reasoning, problem)
    aliases = reading.aliases + (answer_reading.aliases if answer_reading else [])
    asked = asked_names(problem, final, aliases, goal_names(reasoning, problem))
    free = problem_variables(problem) - asked.math if problem else frozenset()
    if apposed := apposed_names(reasoning, asked, free) - asked.math:
        asked = replace(asked, math=asked.math | apposed)
    if solved := _inverse_unknowns(reading.claims, asked) - asked.math:
        asked = replace(asked, math=asked.math | solved)
        free -= solved
    if substituted := _substituted(reading.claims, asked) - asked.math:
        asked = replace(asked, math=asked.math | substituted)
    parts = _asked_parts(asked, problem) if problem and "," in joins else []
    if len(parts) != _part_count(gold):  # "the values of $p$ and $q$" for "3,4"
        parts = []
    elif parts:
        asked = replace(asked, math=asked.math | {"(" + ",".join(parts) + ")"})
    paragraphs = _headed(reasoning, split_separator(reasoning))  # read by each pass: cut once
    claims = sorted(
        [
            *reading.claims,
            *(_listed(reading.claims) if "," in joins else ()),
            *(_cases(reading.claims, asked, paragraphs) if "," in joins else ()),
            *_tuples(reading.claims, asked, paragraphs, problem, parts),
            *(_intervals(reasoning) if _INTERVAL_GOLD.search(gold) else ()),
            *(_conclusions(reasoning, reading.claims, asked, problem) if asked.context else ()),
            *(_superlatives(reasoning, gold, problem) if words and problem else ()),
        ],
        key=lambda c: (c.start, c.end),
    )
    concluded = _concluded(reasoning, reading) if answer_reading is reading else None
    candidates, openers = _candidates(
        reasoning, paragraphs, claims, asked, gold, problem, concluded
    )
    if answer_reading is not None and answer_reading is not reading:
        # the final box after the thought adopts the computation the thought ended on
        # ("Finally, adding 1 to 9,900 results in 9,901.", then </think> and the solution)
        boxes = [c for c in answer_reading.claims if "boxed" in c.flags]
        if boxes:
            end = len(reasoning)
            last = replace(boxes[-1], start=end, end=end, value_start=end)
            candidates.append(_Candidate(last, "final", boxes[-1].value, len(paragraphs)))
    if asked.context:
        goals = _goal_openers(reasoning, paragraphs, asked)
        openers = sorted([*openers, *goals], key=lambda o: o.start) if goals else openers
    doubts = [(c.start, name_key(c.value)) for c in reading.claims if c.flags & _DOUBT]
    asides = [  # numbers set aside; a formula "perhaps the expression is ..." is no result
        (c.start, name_key(c.value))
        for c in reading.claims
        if c.flags & _ASIDE and not has_letter(c.value) and not pending_operation(c.value)
    ]
    return _first_equal(
        candidates,
        gold,
        grader,
        integer_gold=_collides(gold),
        numeric=any(_numeric(m) for m in asked.direct),
        operation=_asked_operation(problem, asked.context),
        rewrite=form_task(problem),
        word_problem=_word_problem(problem, gold),
        reasoning=reasoning,
        doubts=doubts,
        asides=asides,
        free=free,
        openers=openers,
    )


#: Commands of arithmetic, which a numeric expression may hold (``\\frac``, ``\\dbinom``);
#: an operation the problem defines (``5 \\star 1``) is not one of them.
_ARITHMETIC = re.compile(
    r"\\(?:[dt]?frac|sqrt|times|cdot|div|[dt]?binom|left|right|pi|circ)(?![A-Za-z])"
)


@dataclass(frozen=True)
class _Operation:
    """The operation a question asks for between two quantities it names in words ("the
    difference between the positive square root of 64 and the cube root of 64": ``-``), and
    the question's words, which those quantities' names are made of."""

    symbol: str
    words: frozenset[str]
    #: The number the question applies the operation with ("... is increased by 11": ``11``),
    #: when it names one quantity and a number, not two quantities.
    operand: str | None = None


_ASKED_OPERATION = re.compile(
    r"(?i)\bthe\s+(?:positive\s+)?(difference|sum|product|quotient|ratio)\s+(?:between|of)\s"
    r"|\bis\s+(increased|decreased|multiplied|divided)\s+by\s+\$?(\d+)\$?\s*\?"
)
_OPERATION_SYMBOLS = {"difference": "-", "sum": "+", "product": "*", "quotient": "/"}
_OPERATION_SYMBOLS |= {"ratio": "/", "increased": "+", "decreased": "-", "multiplied": "*"}
_OPERATION_SYMBOLS["divided"] = "/"
#: A chain of two numbers and an operation (``8-4``, as a name's key).
_BINARY = re.compile(r"(-?\d+(?:\.\d+)?)([-+*/×])(\(?-?\d+(?:\.\d+)?\)?)")


def _asked_operation(problem: str | None, words: frozenset[str]) -> _Operation | None:
    """The operation the question asks for between two named quantities, if it asks one."""
    found = _ASKED_OPERATION.search(problem or "")
    if found is None or not words:
        return None
    # a quantity may be named by its initials ("GCF" for "greatest common factor")
    said = re.findall(r"[A-Za-z]+", (problem or "").lower())
    initials = {"".join(w[0] for w in said[k : k + n]) for n in (3, 4) for k in range(len(said))}
    symbol = _OPERATION_SYMBOLS[(found[1] or found[2]).lower()]
    return _Operation(symbol, words | initials, found[3])


def _combines(candidates: Sequence[_Candidate], i: int, operation: _Operation) -> bool:
    """Whether the unnamed chain ``candidates[i]`` applies the asked operation to the values
    just stated for two quantities named in the question's words ("the positive square root
    of 64 is 8", "the cube root of 64 is 4", then "8 minus 4 is 4"), or to the value of one
    and the question's number ("the GCF is 12", then "12 + 11 = 23" for "the greatest common
    factor of 6432 and 132 is increased by 11"), three paragraphs back at most: the
    computation that produces the asked quantity."""
    candidate = candidates[i]
    if not candidate.claim.names:
        return False
    m = _BINARY.fullmatch(name_key(candidate.claim.names[0]))
    if m is None or m.group(2).replace("×", "*") != operation.symbol:
        return False
    wanted = {m.group(1), m.group(3).strip("()")}
    if operation.operand is not None:
        if m.group(3) != operation.operand:
            return False
        wanted = {m.group(1)}
    named: dict[str, str] = {}  # value -> the name it was stated for
    for j in range(i - 1, -1, -1):
        c = candidates[j]
        if candidate.paragraph - c.paragraph > 3:
            break
        key = name_key(c.value)
        if key in wanted and key not in named and c.claim.names:
            words = content_words(c.claim.names[0]) - GENERIC
            if words and words <= operation.words:
                named[key] = name_key(c.claim.names[0])
    return len(named) == len(wanted) == len(set(named.values())) == (2 - bool(operation.operand))


def _numeric(formula: str) -> bool:
    """Whether the question asks for the value of an expression of numbers only (``99^2+99+1``,
    ``\\dbinom{31}{28}``): then a chain of numbers equal to the gold is that expression's
    result, not a count that turns up on the way."""
    plain = _ARITHMETIC.sub(" ", formula)
    return (
        "\\" not in plain
        and not re.search(r"[A-Za-z]", plain)
        and len(re.findall(r"\d+", plain)) > 1
    )


def option_word(gold: str, problem: str | None) -> str | None:
    """The word of the option a letter gold names in the problem's list ("hyperbola" for
    ``\\text{(E)}`` when the problem lists "(E) Hyperbola"): the protocol counts the named
    shape for its letter."""
    letter = _LETTER_GOLD.fullmatch(gold.strip())
    if not letter or not problem:
        return None
    listed = re.search(rf"\({letter.group(1)}\)\s*([A-Za-z][A-Za-z-]+)\s*(?:$|\n|\(|,)", problem)
    return listed.group(1).lower() if listed else None


#: A gold that is an option letter: ``\\text{(E)}``, ``(C)``, ``E``.
_LETTER_GOLD = re.compile(r"(?:\\text\s*\{\s*)?\(?([A-H])\)?(?:\s*\})?")


def unitless(gold: str) -> str:
    """``gold`` without a trailing unit (``864 \\mbox{ inches}^2`` -> ``864``), when something
    is left."""
    stripped = _GOLD_UNIT.sub("", gold).strip()
    return stripped if stripped else gold


_GOLD_UNIT = re.compile(
    r"\s*\\(?:mbox|text|mathrm)\s*\{\s*[A-Za-z][A-Za-z .]*\}(?:\^\{?[23]\}?)?\s*$"
)


def _part_count(gold: str) -> int:
    """How many parts a list gold has (``3, 5, 7``: 3): its top-level commas, plus one."""
    depth = commas = 0
    for ch in gold:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            commas += 1
    return commas + 1


def gold_joins(gold: str) -> frozenset[str]:
    """The relations that are part of a value shaped like the gold: a top-level comma for a
    list (``3, 5, 7``), ``\\pm`` for ``1 \\pm \\sqrt{19}``, ``\\in`` for ``x \\in [-2,7]``."""
    joins = {","} if _part_count(gold) > 1 else set()
    if "\\pm" in gold or "±" in gold:
        joins |= {"\\pm", "±"}
    if "\\in" in gold:
        joins.add("\\in")
    return frozenset(joins)


def named_in_words(claim: Claim) -> bool:
    """Whether a claim names its value in words of its own ("the radius", "3/4 of the cake
    left"): then the value belongs to that thing, which may not be the asked one."""
    return any(content_words(n) - GENERIC for n in claim.names)


def _collides(gold: str) -> bool:
    """Whether intermediate results often equal a gold like this one: a plain integer (7, 13,
    81 turn up everywhere in a computation). A fraction, a radical, an interval, a tuple or an
    expression reached by an unnamed chain is the result itself."""
    plain = re.sub(r"\^\s*\{?\\circ\}?|°|\\%|%|\\\$|\\text\s*\{[^{}]*\}|\\,|\s", "", gold)
    return bool(re.fullmatch(r"-?\d+", plain))


#: A gold that is a word (``\\text{ellipse}``): the word is a value in the trace.
_TEXT_GOLD = re.compile(r"\\text\s*\{\s*([A-Za-z][A-Za-z-]+)\s*\}")
#: Anything but an ASCII digit. :func:`name_key` drops and rewrites only other characters, so
#: a key's digits are its text's, in order, and a key that occurs in another holds a run of
#: the other's digits.
_NOT_DIGIT = re.compile(r"[^0-9]+")
#: A gold that is an interval or a union of them.
_INTERVAL_GOLD = re.compile(
    r"\\cup|\\infty|^\s*(?:[a-z]\s*\\in\s*)?(?:\\left)?[(\[].*,.*(?:\\right)?[)\]]\s*$"
)
_DOUBTFUL = frozenset(("question", "hypothesis", "check", "substitution", "premise", "negated"))


def _listed(claims: Sequence[Claim]) -> list[Claim]:
    """For a gold that is a list (``1,-2``): the values a sentence lists for one name ("n = 1
    or n = -2"; "the solutions are 1 and -2"; "the roots are x = 5, x = 7, and x = 3", where
    the first value carries the subject and the variable both), read as one list value. The
    name a value is listed under is its variable when it has one, else its first name."""
    groups: dict[tuple[tuple[int, int], str], list[Claim]] = {}
    for claim in claims:
        if claim.flags & {"list", "option"} and not claim.flags & _DOUBTFUL and claim.names:
            keys = [name_key(n) for n in claim.names]
            key = next((k for k in keys if _VARIABLE.fullmatch(k)), keys[0])
            groups.setdefault((claim.sentence, key), []).append(claim)
    out = []
    for group in groups.values():
        values = list(dict.fromkeys(c.value for c in group))
        if len(values) > 1:
            first, last = group[0], group[-1]
            flags = first.flags - {"list", "option"} | {"composed"}
            out.append(replace(first, end=last.end, value=", ".join(values), flags=flags))
    return out


def _cases(claims: Sequence[Claim], asked: Asked, paragraphs: Sequence[Span]) -> list[Claim]:
    """For a gold that is a list: the values one paragraph (of ``paragraphs``) gives the asked
    variable in its cases ("First, if y = 100: x = 10^{100}. Second, if y = 0.01: x =
    10^{0.01}"), read as one list value: each case holds under its own condition, and together
    they are the whole answer."""
    if not asked.math:
        return []
    by_paragraph: dict[int | None, list[Claim]] = {}
    for claim in claims:
        case = claim.condition and "condition" in claim.flags and not claim.flags & _NOT_A_CASE
        if case and claim.names and name_key(claim.names[0]) in asked.math:
            by_paragraph.setdefault(step_index_at(paragraphs, claim.start), []).append(claim)
    out = []
    for group in by_paragraph.values():
        values = list(dict.fromkeys(c.value for c in group))
        conditions = {name_key(c.condition or "") for c in group}
        if len(values) > 1 and len(conditions) == len(group):
            first, last = group[0], group[-1]
            flags = frozenset({"composed"})
            out.append(replace(first, end=last.end, value=", ".join(values), flags=flags))
    return out


#: Flags of a claim that no case of an answer has: a question, a check, the condition itself.
_NOT_A_CASE = frozenset(
    ("question", "check", "substitution", "premise", "negated", "header", "intermediate", "bound")
)


def _tuples(
    claims: Sequence[Claim],
    asked: Asked,
    paragraphs: Sequence[Span],
    problem: str | None = None,
    parts: Sequence[str] = (),
) -> list[Claim]:
    """For a question that asks for a tuple of its symbols ("Enter the ordered pair $(m,b)$",
    "Enter your answer in the form $(r,\\theta)$") or for several of its symbols or formulas
    together (``parts``: "Compute $d(6), d(16)$, and $d(72)$"): one paragraph (of
    ``paragraphs``) that gives each its value ("m = 3/2 and b = -13") states the tuple, with
    the value each has last in it (a paragraph that solves ``b = -a/2`` first and then ``b =
    1`` ends with b's value)."""
    keys = set(asked.math)
    if problem and (form := _ANSWER_FORM.search(problem)):
        keys.add(name_key(form.group(1)))
    shapes = [m.group(1).split(",") for k in keys if (m := _SYMBOL_TUPLE.fullmatch(k))]
    if parts and list(parts) not in shapes:
        shapes.append(list(parts))
    if problem and _ASKS_POINT.search(problem) and ["x", "y"] not in shapes:
        shapes.append(["x", "y"])  # "the coordinates of the point $P$": its x and its y
    if not shapes:
        return []
    by_paragraph: dict[int | None, dict[str, Claim]] = {}
    for claim in claims:
        if claim.names and not claim.flags & _REJECT:
            found = by_paragraph.setdefault(step_index_at(paragraphs, claim.start), {})
            # the last: "b = -a/2", then "b = 1"; "With p = 3" gives p by its left side
            key = name_key(claim.lhs) if claim.lhs else name_key(claim.names[0])
            if axis := _AXIS.fullmatch(key):  # "\\text{X-coordinate} = 18 - 12 = 6"
                key = axis[1].lower()
            found[key] = claim
    out = []
    for symbols in shapes:
        for found in by_paragraph.values():
            if all(s in found for s in symbols):
                given = [found[s] for s in symbols]
                start, end = min(c.start for c in given), max(c.end for c in given)
                value = "(" + ", ".join(c.value for c in given) + ")"
                names = ("(" + ",".join(symbols) + ")",)
                out.append(replace(given[0], start=start, end=end, value=value, names=names))
    return out


def _asked_parts(asked: Asked, problem: str) -> list[str]:
    """The symbols or formulas a question asks for together ("What are the values of $p$ and
    $q$?", "Compute $d(6), d(16)$, and $d(72)$"), as keys, in the order the problem first
    writes them, which is the gold's order: letters by the problem's math (a letter is in
    its words too), formulas by the problem's key."""
    # "$d(6), d(16)$, and $d(72)$": one span of the question may hold several
    parts = sorted({part for key in asked.direct for part in _TOP_COMMA.split(key) if part})
    if len(parts) < 2:
        return []
    if all(len(k) == 1 and k.isalpha() for k in parts):
        order = [
            letter.group()
            for math in _INLINE_MATH.finditer(problem)
            for letter in _LONE_LETTER.finditer(math.group(1))
        ]
        return sorted(parts, key=lambda k: order.index(k) if k in order else len(order))
    keyed = name_key(problem)
    if any(len(k) == 1 or k not in keyed for k in parts):
        return []
    return sorted(parts, key=keyed.find)


_INLINE_MATH = re.compile(r"\$([^$]+)\$")
_TOP_COMMA = re.compile(r",(?![^(\[{]*[)\]}])")
_LONE_LETTER = re.compile(r"(?<![A-Za-z\\])[A-Za-z](?![A-Za-z])")


_VARIABLE = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?")
_SYMBOL_TUPLE = re.compile(r"\(((?:(?:[A-Za-z]|\\[a-z]+),)+(?:[A-Za-z]|\\[a-z]+))\)")
#: A coordinate named in words, as keyed: ``\\text{X-coordinate}``, ``y-coordinate``.
_AXIS = re.compile(r"(?:\\text\{)?([XYxy])-coordinate\}?")
#: A question that asks for a point in the plane, which a trace solves as x and y.
_ASKS_POINT = re.compile(
    r"(?i)\b(?:ordered\s+pair|coordinates\s+of|(?:find|what\s+is|determine)\s+the\s+point)\b"
)
#: The form a problem asks its answer in: "Enter your answer in the form $(r,\\theta)$".
_ANSWER_FORM = re.compile(r"(?i)\bin\s+the\s+form\s+\$([^$]{1,60})\$")


def _intervals(reasoning: str) -> list[Claim]:
    """For an interval gold: the solution sets that sentences state as inequalities."""
    out = []
    for start, end in sentences(reasoning):
        text = reasoning[start:end]
        for value in interval_statements(text):
            begin = start + len(text) - len(text.lstrip())
            flags = frozenset(sentence_flags(text) | {"interval"})
            out.append(
                Claim(
                    begin,
                    len(reasoning[:end].rstrip()),
                    begin,
                    value,
                    (),
                    None,
                    flags,
                    (start, end),
                )
            )
    return out


def final_claims(reading: Reading, text: str, problem: str | None = None) -> list[Claim]:
    """The claims of ``text`` that give the final answer: every boxed claim, and for each the
    claim just before it with the same value ("x = 3" then "the answer is \\(\\boxed{3}\\)"),
    in the box's paragraph or the one before, or further up when it names its value in words
    ("Area = ... = 12") or by a formula of the problem (``a^4 + b^8``): a non-reasoning response
    is all answer, and the coefficient "c = -2" ten paragraphs up does not name the boxed -2.
    None when nothing is boxed."""
    claims = [c for c in reading.claims if "boxed" in c.flags or not c.flags & _REJECT]
    boxed = [i for i, c in enumerate(claims) if "boxed" in c.flags]
    chosen: list[Claim] = []
    for i in boxed:
        box = claims[i]
        chosen.append(box)
        key = name_key(box.value)
        before = next((c for c in reversed(claims[:i]) if name_key(c.value) == key), None)
        if before is None:
            continue
        near = len(_BLANK_LINE.findall(text, before.end, box.start)) <= 1
        first = before.names[0] if before.names else ""
        spelled = _SPELLED.sub(r" \1 ", first)  # \text{Area}
        known = bool(content_words(spelled) - GENERIC) or (
            len(name_key(first)) >= 3 and name_key(first) in name_key(problem or "")
        )
        if near or known:
            chosen.append(before)
    return chosen


_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_SPELLED = re.compile(r"\\(?:text|mathrm)\s*\{([^{}]*)\}")


def _candidates(
    reasoning: str,
    paragraphs: Sequence[Span],
    claims: Sequence[Claim],
    asked: Asked,
    gold: str,
    problem: str | None,
    concluded: int | None = None,
) -> tuple[list[_Candidate], list[_Opener]]:
    """The claims that could commit, each with its kind, the value to grade and its paragraph
    (of ``paragraphs``), and the claims that set the asked quantity equal to a computation
    still to be done. "If" before a relation the reasoning has stated firmly (see
    :func:`_known_premises`) draws a consequence; it poses no hypothesis."""
    problem_key = name_key(problem) if problem else ""
    problem_digits = _NOT_DIGIT.sub("", problem_key)
    gold_is_equation = "=" in gold
    gold_lhs = name_key(gold.split("=", 1)[0]) if gold.count("=") == 1 else ""
    gold_lhs = gold_lhs if _VARIABLE.fullmatch(gold_lhs) else ""
    gold_decimal = bool(re.fullmatch(r"\s*-?\d*\.\d+\s*", gold))
    # a rounding is the asked value when the question asks for one ("Express your answer to
    # the nearest whole number": "24,000 × 1.3478... ≈ 32,348")
    rounded = gold_decimal or bool(problem and _ASKS_ROUNDING.search(problem))
    gold_atoms = atoms(gold)
    rewrite = form_task(problem)
    option = option_word(gold, problem)
    column = _COLUMN.fullmatch(gold.strip())
    rows = len(re.split(r"\\\\", column.group(1))) if column else 0
    out: list[_Candidate] = []
    openers: list[_Opener] = []
    plugged = _plugged(claims)
    rate = asked_rate(problem)
    # "17.5%" for the gold 17.5 of "What percentage of the new mixture is acid?"
    in_percent = not _PERCENT_VALUE.search(gold) and any(
        w.startswith("percent") for words in asked.words for w in words
    )
    in_base = _BASE_GOLD.fullmatch(gold)
    base = in_base[1] if in_base else None  # 52_8: a value "in base 8"
    known = _known_premises(reasoning, claims, _facts(claims))
    sums = _sums_of_asked_terms(claims, asked)
    inverse = _inverse_asked(asked)
    boxes = Counter(c.sentence for c in claims if "boxed" in c.flags)
    intos: dict[tuple[int, int], tuple[int, str] | None] = {}
    asks_sum = bool(problem and (of := _OF_MATH.findall(problem)) and _SUM_OF_TERMS.search(of[-1]))
    qualifiers: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
    for claim in claims:
        flags = claim.flags
        if "boxed" in flags:  # "the direction she is facing when she finishes is \\boxed{east}"
            flags = flags - {"condition", "premise"}
            if boxes[claim.sentence] == 1:  # "holds when a <= -1 or a >= 3. ... is \\boxed{3}"
                flags = flags - {"option", "list"}  # the one box of its sentence is chosen
        if (
            "hypothesis" in flags
            and "premise" not in flags
            and known.get(claim.sentence, len(reasoning)) <= claim.start
        ):  # "y = 25/x." then "If y = 25/x, then xy = x * 25/x = 25": "since", not "suppose"
            flags = flags - {"condition", "hypothesis"}
        if "substitution" in flags and (
            _computes_asked(claim, asked, plugged) or _solves_into(reasoning, claim, intos)
        ):
            flags = flags - {"substitution"}
        # a question that names the asked quantity ("So, does that mean 196 has 9 positive
        # divisors?") commits to nothing, but says what the computation before it computed
        witness = flags & _REJECT == {"question"}
        if (flags & _REJECT and not witness) or ("approx" in flags and not rounded):
            continue
        if "condition" in flags and not _given(claim.condition, problem_key):
            continue  # "if x = 6, then ...": a hypothesis; "when x = 4" as the problem says: fine
        if "boxed" not in flags and _taken_back(reasoning, claim, qualifiers):
            continue  # "So, x=1 is not a solution.", "the area would be 8, but only if ..."
        if not witness and (
            # "S = 3T" for "how many treeks weigh as much as one squig": one squig is 3 treeks;
            # "sin(-π/6) = -1/2" for "Compute arcsin(-1/2)": the asked angle, found
            found := _coefficient_count(claim, asked)
            or (inverse and _argument_found(claim, inverse))
        ):
            at = step_index_at(paragraphs, claim.start)
            out.append(_Candidate(claim, "asked", found, -1 if at is None else at))
            continue
        kind = _kind(claim, asked)
        if kind is None or (witness and kind not in ("asked", "answer")):
            continue
        if kind == "asked" and asks_sum and _of_one_term(claim):
            continue  # "the units digit of 3^{20} is 1" for the units digit of a sum of powers
        if reasoning[claim.value_start].isalpha() and _counts_other(claim, asked):
            continue  # "We now have two inequalities" for "What integer $x$ satisfies ...?"
        if kind == "open" and gold_lhs and claim.lhs and name_key(claim.lhs) == gold_lhs:
            kind = "asked"  # "y = -2x" for the line "in the form y = mx + b": the answer's form
        if kind == "open" and rate and _in_rate(reasoning, claim, rate):
            kind = "asked"  # "... equals 4 inches per second" for "... in inches per second?"
        if kind == "open" and claim.start == concluded:
            kind = "answer"  # "Therefore, the profit is $78." ending an unboxed response
        if kind == "open" and claim.start in sums:
            kind = "asked"  # "Adding them up: 0 + 2 + 2 + 5 + 1 = 10" after each p_i(1)
        value = without_unit(claim.value, gold)
        if base and _followed_by(reasoning, claim.end, f"in base {base}"):
            value = f"{value}_{base}"  # "that gives us 52 in base 8" for 52_8: the asked form
            kind = "asked" if kind == "open" else kind
        if rate and (unit := _RATE_UNIT.search(value)):
            value = value[: unit.start()]  # "4 inches/second": the number, in the asked rate
        if in_percent and (percent := _PERCENT_VALUE.search(value)):
            value = value[: percent.start()].strip()
        if "," not in gold and "," in value:  # "273,375 / 703,125": thousands, not a tuple
            value = _THOUSANDS.sub("", value)
        if option and value.lower() == f"\\text{{{option}}}":
            value = gold  # "a hyperbola" when the problem lists "(E) Hyperbola"
        left = claim.lhs or claim.prev
        if gold_is_equation and left and "=" not in value and not _PROSE_WORD.search(left):
            value = f"{left} = {value}"
        if rows:
            value = as_column(value, rows)
        # a box, and any value of a task that rewrites a formula, is taken as written
        result = kind == "boxed" or rewrite
        if not result:
            slack = kind in ("answer", "asked") and bool(_RADICAL.search(value))
            result = evaluated(value, gold, gold_atoms + slack) or (
                # named as what is asked: "A = -\\frac{1}{5}", not "The fraction 80/64
                # reduces to 20/16" for 1.25
                gold_decimal
                and kind in ("answer", "asked")
                and _fraction_for_decimal(value, problem_key)
            )
            if not result and kind == "open":
                continue  # no result and no opener, whether it restates the problem or not
        if kind not in ("boxed", "answer") and (
            _restates(reasoning, claim, problem_key, problem_digits)
            or (problem and _restates_given(claim, problem))
        ):
            continue
        at = step_index_at(paragraphs, claim.start)
        paragraph = -1 if at is None else at
        if witness:
            if result:
                out.append(_Candidate(claim, "witness", value, paragraph))
        elif not result:  # the asked quantity set to a computation still to be done
            openers.append(_Opener(claim.start, paragraph, name_key(claim.value)))
        elif kind == "boxed" or not rewrite or same_form(value, gold):
            out.append(_Candidate(claim, kind, value, paragraph))
    return out, openers


#: Math a name or a question says a quantity is "of" ("the units digit of $3^{20}$"), and a
#: sum or difference of terms outside brackets (``T^{2023}+(T-2)^{20}-(T+10)^{23}``).
_OF_MATH = re.compile(r"\bof\s+\$([^$]{1,200})\$")
_OF_TAIL = re.compile(r"\bof\s+(\S+)\s*$")
_SUM_OF_TERMS = re.compile(r"(?<=[\w)}])\s*[-+](?![^(\[{]*[)\]}])")


def _of_one_term(claim: Claim) -> bool:
    """Whether a claim names its value by what it is "of", one term without a sum ("the
    units digit of 3^{20}"): for a question about a sum of terms, a part's."""
    tail = _OF_TAIL.search(claim.names[0]) if claim.names else None
    return bool(tail and any(c.isdigit() for c in tail[1]) and not _SUM_OF_TERMS.search(tail[1]))


#: An inverse trigonometric function the question asks for, as keyed (``arcsin(-\\frac12)``,
#: ``sin^{-1}(x)``), and a function of an argument a trace states (``sin(-\\pi/6)``).
_INVERSE = re.compile(r"(?:arc(sin|cos|tan)|(sin|cos|tan)\^\{?-1\}?)\((.+)\)")
_FUNCTION_OF = re.compile(r"(sin|cos|tan)\((.+)\)")


#: A multiple of one capital letter: ``3T``, ``3 \\cdot T``.
_MULTIPLE = re.compile(r"(\d+)\s*(?:\*|\\cdot|\\times)?\s*([A-Z])")


#: A sentence that concludes: "So, ...", "Therefore ...", "Answer: ...".
_CONCLUDES = re.compile(
    r"(?i)[\s>*#-]*" + CONCLUSION_OPENERS + r"|[\s>*#-]*(?:the\s+)?(?:final\s+)?answer\s*(?:is\b|:)"
)


def _concluded(text: str, reading: Reading) -> int | None:
    """Where the claim starts that concludes a response with no box: the text's last claim,
    firm, when its sentence opens with a conclusion ("So, the sum of the sequence is
    $-50$.", "Therefore, the math club's profit ... is $78."), the statement a reader takes
    for the answer, as a box would be. None when something is boxed or the text ends
    otherwise."""
    if not reading.claims or any("boxed" in c.flags for c in reading.claims):
        return None
    last = reading.claims[-1]  # a list or an option last ("x = 2 and x = -2") concludes nothing
    if last.flags & _REJECT or not _CONCLUDES.match(text, *last.sentence):
        return None
    return last.start


def _coefficient_count(claim: Claim, asked: Asked) -> str | None:
    """The count a firm claim "S = 3T" states for a "how many" question about two things the
    model names by their initials ("The combined weight of how many treeks equals the weight of
    one squig?": squig S, treek T): one S is as much as 3 Ts. None otherwise."""
    if not claim.lhs or not _firm(claim):
        return None
    whole = name_key(claim.lhs)
    parts = _MULTIPLE.fullmatch(name_key(claim.value))
    if parts is None or len(whole) != 1 or not whole.isupper() or whole == parts[2]:
        return None
    for words in asked.words:
        initials = [w[0].upper() for w in words if len(w) > 2 and w not in GENERIC]
        if "number" in words and initials.count(whole) == 1 and initials.count(parts[2]) == 1:
            return parts[1]
    return None


def _inverse_asked(asked: Asked) -> tuple[str, str] | None:
    """The function and argument of an inverse trigonometric function the question asks for
    ("Compute $\\arcsin(-\\frac{1}{2})$": ``("sin", "-\\frac12")``), if it asks one."""
    for formula in asked.direct:
        if found := _INVERSE.fullmatch(formula):
            return found[1] or found[2], found[3]
    return None


def _inverse_unknowns(claims: Sequence[Claim], asked: Asked) -> frozenset[str]:
    """The unknowns a trace solves for to evaluate an asked inverse function: ``x`` of "solve
    the equation f(x) = 1/5" when the question asks for ``f^{-1}(\\frac15)``, whose value the
    solution is."""
    inverses = [m for f in asked.direct if (m := _INVERSE_OF.fullmatch(f))]
    if not inverses:
        return frozenset()
    found = set()
    for claim in claims:
        for name in claim.names:
            applied = _APPLIED_TO_UNKNOWN.search(name)
            if applied and any(
                applied[1] == m[1] and surely_equal(m[2], claim.value) for m in inverses
            ):
                found.add(applied[2])
    return frozenset(found)


def _substituted(claims: Sequence[Claim], asked: Asked) -> frozenset[str]:
    """The asked formulas with a part written as the number a firm claim evaluates it to:
    ``\\sqrt{65536}`` for the asked ``\\sqrt{2^{16}}`` once "2^16 is 65536" ("So sqrt(65536) is
    256" states the asked value). A part is a formula, not a bare number; the value is a plain
    number or fraction (a formula for a value would make more names parts of the asked one,
    intermediates they are not: tried, it moved three annotated traces late)."""
    if not asked.math:
        return frozenset()
    # the question's ``2^{16}`` as a trace writes it, ``2^16``
    forms = asked.math | {_BRACED_EXPONENT.sub(r"^\1", m) for m in asked.math}
    found: set[str] = set()
    for claim in claims:
        value = claim.value.strip()
        if not _PLAIN_NUMBER.fullmatch(value) or not _firm(claim):
            continue
        for name in claim.names:
            part = name_key(name)
            if len(part) < 2 or part.isdigit() or part == value:
                continue
            found.update(m.replace(part, value) for m in forms if part in m and part != m)
    return frozenset(found)


#: An exponent of one number or letter in braces: ``2^{16}``.
_BRACED_EXPONENT = re.compile(r"\^\{(\w+)\}")


#: An inverse function of one letter the question asks for: ``f^{-1}(\\frac15)``.
_INVERSE_OF = re.compile(r"([A-Za-z])\^\{-1\}\((.+)\)")
#: A function of one letter applied to an unknown at the end of a name: "the equation f(x)".
_APPLIED_TO_UNKNOWN = re.compile(r"(?<![A-Za-z\\])([A-Za-z])\s*\(\s*([a-z])\s*\)\s*$")


def _argument_found(claim: Claim, inverse: tuple[str, str]) -> str | None:
    """The angle a firm claim finds for the asked inverse function: its argument, when the
    claim states that function of it equals the asked value ("sin(-π/6) = -1/2" for arcsin of
    -1/2; the protocol counts the asked quantity's value, however it is reached)."""
    if not claim.names or not _firm(claim):
        return None
    found = _FUNCTION_OF.fullmatch(name_key(claim.names[0]))
    if found is None or found[1] != inverse[0] or not surely_equal(inverse[1], claim.value):
        return None
    return found[2]


def _sums_of_asked_terms(claims: Sequence[Claim], asked: Asked) -> set[int]:
    """Where an unnamed chain adds, in order, the values just stated for the terms of a sum the
    question asks for ("Compute $p_1(1) + p_2(1) + \\dots + p_k(1)$": "p_1(1) = 0", ...,
    "p_5(1) = 1", then "Adding them up: 0 + 2 + 2 + 5 + 1 = 10"): the computation that
    produces the asked quantity, by the starts of those chains. A term is recognised by its
    key or by its key less subscripts (``p_3(1)`` is a term ``p_k(1)``); each term's latest
    value counts, and the addends must be the latest values of as many distinct terms."""
    terms = {
        key
        for formula in asked.direct
        if formula.count("+") >= 1
        for part in _TOP_PLUS.split(formula)
        for key in (part, _SUBSCRIPT.sub("", part))
        if part and part != "\\dots"
    }
    if not terms:
        return set()
    latest: dict[str, str] = {}  # each term's latest value, in the order last stated
    out = set()
    for claim in claims:
        if first := claim.lhs or (claim.names[0] if claim.names else None):
            key = name_key(first)
            if key in terms or _SUBSCRIPT.sub("", key) in terms:
                latest.pop(key, None)
                latest[key] = name_key(claim.value)
                continue
        if len(claim.names) != 1 or len(latest) < 2:
            continue
        addends = name_key(claim.names[0]).split("+")
        if len(addends) >= 2 and list(islice(reversed(latest.values()), len(addends))) == [
            *reversed(addends)
        ]:
            out.add(claim.start)
    return out


#: A sum's top-level "+" (a term's own brackets are kept whole) and a subscript of a key.
_TOP_PLUS = re.compile(r"\+(?![^(\[{]*[)\]}])")
_SUBSCRIPT = re.compile(r"_(?:\{[^{}]*\}|\w)")


def _firm(claim: Claim) -> bool:
    """Whether a claim is stated firmly: in no question, hypothesis, condition, list or other
    claim of :data:`_REJECT`."""
    return not (claim.flags & _REJECT or "condition" in claim.flags)


def _facts(claims: Sequence[Claim]) -> dict[str, int]:
    """Where each relation ``lhs = value`` is first stated firmly (in no question, hypothesis,
    condition, list or other claim of :data:`_REJECT`), by its key (``y=\\frac{25}x``), and
    each value of a named quantity by its head noun (``@side=7`` for "each side of the
    hexagon is 7 inches", which a later "if each side is 7 inches" recalls)."""
    out: dict[str, int] = {}
    for claim in claims:
        if not _firm(claim):
            continue
        if claim.lhs:
            out.setdefault(f"{name_key(claim.lhs)}={name_key(claim.value)}", claim.start)
        elif claim.names and not _PROSE_WORD.search(claim.names[0]):
            # a formula set equal to a value: "So 10^x equals 10000."
            out.setdefault(f"{name_key(claim.names[0])}={name_key(claim.value)}", claim.start)
        elif claim.names and (head := head_word(claim.names[0])):
            out.setdefault(f"@{head}={name_key(claim.value)}", claim.start)
    return out


def _known_premises(
    reasoning: str, claims: Sequence[Claim], facts: dict[str, int]
) -> dict[tuple[int, int], int]:
    """The sentences that open with "if" (:data:`_IF_OPENS`) and whose every "if" clause (the
    claims flagged "premise") is a relation stated firmly before the sentence, each with where
    its "if" ends: what such a sentence goes on to compute after that follows from a fact.
    Each sentence's opening is read once, however many claims it holds."""
    premises: dict[tuple[int, int], bool] = {}
    for claim in claims:
        if "premise" in claim.flags:
            at = facts.get(name_key(claim.condition or ""), claim.start)
            if claim.names and not claim.lhs:
                # "if 10^x is 10000" after "10^x equals 10000": the same relation in words
                at = min(at, facts.get(f"{name_key(claim.names[0])}={name_key(claim.value)}", at))
                if head := head_word(claim.names[0]):
                    at = min(at, facts.get(f"@{head}={name_key(claim.value)}", at))
            premises[claim.sentence] = premises.get(claim.sentence, True) and at < claim.sentence[0]
    out = {}
    for sentence, known in premises.items():
        opening = _IF_OPENS.match(reasoning, *sentence) if known else None
        if opening:
            out[sentence] = opening.end()
    return out


#: A sentence that opens with "if" (after discourse words and list marks, a hesitation's too:
#: "Wait, if x = 3, then y = 6"), whose condition is all that makes it a hypothesis.
_IF_OPENS = re.compile(
    r"(?i)[-*•\d.)\s]*(?:(?:so|and|now|then|okay|ok|well|wait|hmm+|alright)\b[\s,]*)*if\b"
)


#: A word of prose (three letters or more, no command's): a name in words, which no equation
#: of the gold's form has on its left ("the only value of x that satisfies it is \\boxed{5}"
#: for ``x=5`` states 5, not "the only value ... = 5").
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")


def _taken_back(
    reasoning: str, claim: Claim, qualifiers: dict[tuple[int, int], tuple[list[int], list[int]]]
) -> bool:
    """Whether what follows a value in its own sentence takes the claim back: a negation of it
    as a solution or answer right after it ("x=1 is not a solution"), or a condition it holds
    only under before the clause ends ("the total area would be 4*2 = 8, but only if there is
    no overlapping").

    ``qualifiers`` keeps each sentence's conditions and clause ends (their starts), found
    once: looking for them from every claim on to the sentence's end made a sentence of
    thousands of claims quadratic (4,000 claims: 15 s)."""
    if _NEGATED_AFTER.match(reasoning, claim.end, claim.sentence[1]):
        return True
    sentence = claim.sentence
    if sentence not in qualifiers:
        found = [m.start() for m in _ONLY_UNDER.finditer(reasoning, *sentence)]
        ends = [m.start() for m in _CLAUSE_END.finditer(reasoning, *sentence)] if found else []
        qualifiers[sentence] = (found, ends)
    found, ends = qualifiers[sentence]
    at = bisect_left(found, claim.end)
    if at == len(found):
        return False
    end = bisect_left(ends, claim.end)
    return end == len(ends) or found[at] < ends[end]


#: A negation right after a value: "x=1 is not a solution".
_NEGATED_AFTER = re.compile(r"[\s$\\)\]}]*(?:(?:is|are)\s+not\b|isn't\b|aren't\b)", re.IGNORECASE)
#: A condition a value holds only under: "..., but only if there is no overlapping".
_ONLY_UNDER = re.compile(r"\b(?:only\s+if|provided\s+(?:that\s+)?|as\s+long\s+as)\b", re.IGNORECASE)
#: Where the clause a condition must be in ends.
_CLAUSE_END = re.compile(r"[.;]")


def _plugged(claims: Sequence[Claim]) -> dict[tuple[int, int], set[str]]:
    """For each sentence that substitutes, the keys of what it plugs in: the left sides of
    its claims named with the verb ("we substitute \\(n = 2004\\)", "plugging in x = 5")."""
    out: dict[tuple[int, int], set[str]] = {}
    for claim in claims:
        named = claim.names and SUBSTITUTION.search(claim.names[0])
        if "substitution" in claim.flags and claim.lhs and named:
            out.setdefault(claim.sentence, set()).add(name_key(claim.lhs))
    return out


def _computes_asked(claim: Claim, asked: Asked, plugged: dict[tuple[int, int], set[str]]) -> bool:
    """Whether a claim in a sentence that substitutes computes the asked quantity (or a
    formula's symbol) from what is plugged in ("we substitute n = 2004: a_{2004} = ... =
    -2^{1002}" when the question asks for ``a_{2004}``), rather than plugging in a candidate
    for it ("substituting x = 5: ...") or checking another formula: its first name is an asked
    one (or a symbol not plugged in), and nothing asked is what the sentence plugs in; or the
    sentence substitutes into the asked formula itself."""
    if not claim.names:
        return False
    if SUBSTITUTION.search(claim.names[0]):
        # "we substitute this into 15-\\frac{y}{x} to get 15-2 = 13": into the asked formula
        into = _INTO_NAMED.search(claim.names[0])
        return bool(into and name_key(into[1]) in asked.math)
    keys = plugged.get(claim.sentence, ())
    if any(asked.matches(key) for key in keys):
        return False
    # or a formula's own symbol, computed from the values plugged into it ("Substituting a =
    # 1/2 and r = 1/4, we get S = ... = 2/3"), whatever it names
    first = name_key(claim.names[0])
    return asked.matches(claim.names[0]) or (bool(_VARIABLE.fullmatch(first)) and first not in keys)


def _solves_into(
    reasoning: str, claim: Claim, intos: dict[tuple[int, int], tuple[int, str] | None]
) -> bool:
    """Whether a claim in a sentence that substitutes computes the left side of the equation
    substituted into ("Substitute a back into the equation c = a + 4: c = 6 + 4 = 10"): that
    computes c, it checks nothing. ``intos`` keeps each sentence's equation (where it ends,
    its left side's key), searched once: a sentence may hold thousands of claims."""
    if not claim.lhs:
        return False
    if claim.sentence not in intos:
        into = _INTO.search(reasoning, *claim.sentence)
        intos[claim.sentence] = (into.end(), name_key(into["lhs"])) if into else None
    found = intos[claim.sentence]
    return found is not None and found[0] <= claim.start and found[1] == name_key(claim.lhs)


#: What a name says it substitutes into: "we substitute this into 15-\\frac{y}{x} to".
_INTO_NAMED = re.compile(r"(?i)\binto\s+(?:the\s+expression\s+)?(\S+?)(?:\s+to)?\s*$")
#: The equation a sentence substitutes into, up to its "=".
_INTO = re.compile(
    r"(?i)\binto\s+(?:the\s+(?:equation|expression|formula)\s+(?:for\s+\S+\s+)?)?"
    r"[$\\(\s]*(?P<lhs>[^=$\n]{1,20}?)\s*="
)


#: The verbs of a purpose clause that states a goal ("to find the total", "to figure out").
_PURPOSE_VERBS = r"(?:find(?:\s+out)?|determine|calculate|figure\s+out)"
#: The model saying what it computes next ("the question asks for the sum of these values",
#: "now I need to find the total"): the goal, up to the end of its noun phrase.
_GOAL_NEXT = re.compile(  # the lookahead lets the engine skip most positions at once
    r"(?i)(?=[anhlwitsq])\b(?:asks?\s+(?:for|us\s+to\s+find)|is\s+asking(?:\s+for)?"
    # "Now, the question is how many more trees Harry has than Ferdinand."
    r"|question\s+is(?=\s+(?:how|what)\b)"
    r"|(?:need|want|have)\s+to\s+(?:find(?:\s+out)?|compute|calculate|determine|figure\s+out)"
    r"|(?:let's|let\s+(?:me|us)|now)\s+(?:find|compute|calculate)"
    # "Multiplying the daily amount by the days would give us the total cost."
    r"|(?:would|will|should)\s+give\s+(?:us|me)"
    # a purpose clause that opens a sentence or follows a comma: "Finally, to find the change",
    # "To find out how many students there are", "So, to get the total number of raspberries",
    # "so to find the total cost"
    r"|(?:(?<=[,.;:!?\n]\s)|(?<=[,.;:!?\n])|(?<![\s\S]))(?:(?:so|and|then),?\s+)?to\s+"
    rf"(?:{_PURPOSE_VERBS}|get)"
    # or ends a sentence's action: "I need to add those two amounts together to find the total
    # he has now"
    rf"|(?<=\s)to\s+{_PURPOSE_VERBS})\s+"
    r"(?:(?P<goal>(?:the\s+)?[A-Za-z][A-Za-z -]{2,90}?)"
    r"(?:\s*(?:\\\((?P<m1>[^()]{1,40}?)\\\)|\$(?P<m2>[^$]{1,40})\$))?"
    r"|(?P<m3>[A-Za-z](?:\s*[-+*/^]\s*[A-Za-z0-9]){1,4}))(?=\s*(?:[.,;:?!]|$))"
)
#: A question that asks for a rounded value.
_ASKS_ROUNDING = re.compile(r"(?i)\b(?:to\s+the\s+nearest|round(?:ed)?\b|rounding\b)")
#: Words a goal says for the question's (stems): "the annual cost" for "How much money does
#: she spend per year?"
_GOAL_SYNONYMS = {
    "annual": "year", "yearly": "year", "monthly": "month", "weekly": "week", "daily": "day",
    "cost": "money", "spend": "money", "spent": "money", "pay": "money", "paid": "money",
    "price": "money", "expense": "money", "amount": "money",
}  # fmt: skip


def _as_asked(words: frozenset[str]) -> frozenset[str]:
    """``words`` with each of :data:`_GOAL_SYNONYMS` as the question's word for it, and a
    possessive as its noun ("Harry's" for "Harry")."""
    return frozenset(_GOAL_SYNONYMS.get(w, w).rstrip("'") for w in words)


#: Verbs that say nothing of which quantity a goal is ("how many more trees Harry has").
_AUXILIARIES = frozenset(("has", "have", "had", "are", "was", "were"))
#: Words too general to say which quantity a goal is ("the value", "the result").
_WEAK_GOAL_WORDS = frozenset(("value", "number", "result", "expression", "answer", "quantity"))
#: Words of a goal that say it gathers what the question counts ("the total number of rings"
#: for "How many times did the alarm ring in all?"), which its own words need not say.
_AGGREGATE_GOAL_WORDS = frozenset(("total", "number", "together", "altogether", "combin"))
#: Prepositions of a span that a goal may say in its own words ("the total over the two years"
#: for "What's the total amount ... for the two years?").
_SPAN_WORDS = frozenset(("over", "across", "during", "throughout", "both"))


def _goal_openers(reasoning: str, paragraphs: Sequence[Span], asked: Asked) -> list[_Opener]:
    """Where the model says it now computes the asked quantity, in the question's own words
    ("Now, the question asks for the sum of these values. So, 2 + 8 = 10."): an opener for the
    chain of numbers that follows (:func:`_computes`), like "the total would be 5 × 4 × 3";
    and a computation labelled in them (:data:`_LABELED_COMPUTATION`)."""
    out = []
    context = _as_asked(asked.context)  # (once: a trace may state a goal many times)
    for m in _GOAL_NEXT.finditer(reasoning):
        words = content_words(m.group("goal") or "")
        formula = m.group("m1") or m.group("m2") or m.group("m3")  # "asks for a + b."
        if formula:  # "I need to find the value of \\(6x + 5\\)": the question's formula
            named = name_key(formula) in asked.direct
        else:  # "how many apples they both picked together", "the total number of rings"
            words -= _AGGREGATE_GOAL_WORDS | _AUXILIARIES | _SPAN_WORDS
            named = bool(words and _as_asked(words) <= context and words - _WEAK_GOAL_WORDS)
        if named:
            at = step_index_at(paragraphs, m.start())
            out.append(_Opener(m.start(), -1 if at is None else at, ""))
    if ":" in reasoning:
        for m in _LABELED_COMPUTATION.finditer(reasoning):
            words = content_words(m["label"])
            if words - GENERIC and words <= asked.context:
                at = step_index_at(paragraphs, m.start())
                out.append(_Opener(m.start(), -1 if at is None else at, name_key(m["formula"])))
        out.sort(key=lambda o: o.start)
    return out


#: A line that labels a computation of numbers still to be done ("Wednesday: (2/3) * 24"
#: for "What is the tank's water depth on Wednesday?"): the asked quantity set to it when the
#: label is in the question's words.
_LABELED_COMPUTATION = re.compile(
    r"(?m)^[ \t]*(?:[-*•][ \t]+)?(?:\*\*)?(?P<label>[A-Za-z][A-Za-z' ]{0,40}?)(?:\*\*)?:"
    r"(?:\*\*)?[ \t]*(?P<formula>[$\d(][\d .,$()]*[-+*/×÷][\d .,$()+*/×÷-]*[\d)])[ \t.]*$"
)


#: A gold written in a base: ``52_8``, ``1011_{2}`` (the base as the group).
_BASE_GOLD = re.compile(r"\s*[0-9A-Za-z]+_\{?(\d+)\}?\s*")
#: The rate a question asks its answer in: "What is the bicycle's speed expressed in inches
#: per second?" A value stated in that rate is the asked one; a plain unit ("in inches") is
#: not told apart so, as intermediates have it too.
_ASKED_RATE = re.compile(r"(?i)\bin\s+([a-z]+\s+per\s+[a-z]+)\s*\?")


def asked_rate(problem: str | None) -> str | None:
    """The compound unit ("inches per second") the question asks its answer in, lowercased."""
    found = _ASKED_RATE.search(problem or "")
    return " ".join(found.group(1).lower().split()) if found else None


#: A rate written as the unit of a value: "4 inches/second", "3 miles per hour".
_RATE_UNIT = re.compile(r"(?<=\d)\s*[A-Za-z]+\s*(?:/|\bper\b)\s*[A-Za-z]+\s*$")


def _in_rate(text: str, claim: Claim, rate: str) -> bool:
    """Whether ``claim`` states its value in the asked ``rate``, after it ("4 inches per
    second") or as the value's own unit ("240 inches/minute ÷ 60 seconds/minute = 4
    inches/second")."""
    if _followed_by(text, claim.end, rate):
        return True
    stated = " ".join(claim.value.lower().replace("/", " per ").split())
    return stated.endswith(f" {rate}")


def _followed_by(text: str, at: int, unit: str) -> bool:
    """Whether ``unit`` follows position ``at`` of ``text`` (after spaces or ``\\text{``)."""
    after = re.sub(r"\\text\s*\{|\}", "", text[at : at + 3 * len(unit)]).lower()
    return " ".join(after.split()).startswith(unit)


def _conclusions(
    reasoning: str, claims: Sequence[Claim], asked: Asked, problem: str | None
) -> list[Claim]:
    """Conclusions stated in the question's own words with no link word ("Therefore, each
    person pays $32." for "How much money did each person pay?"; "So, 35% of all the puppies
    have spots."): the asked value, where the reader finds no chain. The sentence
    opens with a conclusion word, states one number, and every content word of the rest is a
    word of the question (two at least), so an intermediate ("So, Brittany's ticket costs
    $10.") is not one; the problem's proper names are words of the question too, which may
    call the person "he" ("Therefore, John lost to 4 people." for "How many people did he lose
    to?"), and a claim the reader names by one of them only leaves the sentence to this
    reading."""
    out = []
    proper = content_words(" ".join(_CAPITALIZED.findall(problem or "")))
    given = set(_WHOLE_NUMBER.findall(problem or ""))
    stated = frozenset(_PLAIN_WORD.findall((problem or "").lower()))
    # a sentence the reader found a claim in, unless it named the value by a proper name only
    # ("Therefore, Janet makes $18 every day at the farmers' market.": Janet)
    taken = {
        c.sentence
        for c in claims
        if "mention" not in c.flags and any(content_words(n) - proper for n in c.names)
    }
    for m in _CONCLUDED.finditer(reasoning):
        # a number after the value is one the question gives ("Terry spends $75.00 on yogurt
        # over 30 days."), or the sentence states two
        if any(n not in given for n in _WHOLE_NUMBER.findall(m["after"])):
            continue
        # "So altogether, they will pay $180." for "how much will they pay ..., altogether?"
        name = " ".join(f"{m['adverb'] or ''} {m['before']} {m['after']}".split())
        said = _MODAL.sub(" ", _IRREGULAR.sub(lambda w: _AS_ASKED[w[0].lower()], name))
        words = content_words(said) - GENERIC - proper
        if "have" not in asked.context:  # "So she has $15 left." for "How much is left?"
            words -= _HAVE
        if "$" in m[0]:  # "Therefore, Johnny has $90." for "How much money did he have", "So
            # she has $15 left." for "How much, in dollars, is left?": "$" says both
            words |= _DOLLAR_WORDS & asked.context
        # the question's verb, though too common to tell names apart ("Therefore, she gave
        # the cashier $30." for "how much money did she give the cashier?")
        verbs = _DROPPED_VERBS.intersection(said.lower().split()) & stated
        if len(words) + len(verbs) < 2:
            continue
        if not all(_in_question(w, asked.context) for w in words):
            # "after a year" as the question says it, not as "later" ("How much earlier ...")
            plain = content_words(_MODAL.sub(" ", name)) - GENERIC - proper - _HAVE
            if not all(_in_question(_PRESENT.get(w, w), asked.context) for w in plain):
                continue
        sentence = (m.start(), m.end())
        if any(start <= m.start("value") < end for start, end in taken):
            continue
        value = m["value"].replace(",", "")
        out.append(
            Claim(
                start=m.start(),
                end=m.end("value"),
                value_start=m.start("value"),
                value=value,
                names=(name,),
                lhs=None,
                flags=frozenset(("concluded",)),
                sentence=sentence,
            )
        )
    return out


#: "have" as a conclusion says it (read as the question's verb when the question has it).
_HAVE = frozenset(("have", "has", "had"))
#: The question's words that a dollar sign says.
_DOLLAR_WORDS = frozenset(("money", "dollar"))


def _superlatives(reasoning: str, gold: str, problem: str) -> list[Claim]:
    """The answer to "Which student has the greatest average speed?" said as its subject
    with a superlative ("Evelyn has the greatest slope", "we find that Navin earns the
    most"): the asked name, for a gold that is one capitalized word of the problem."""
    word = _TEXT_GOLD.fullmatch(gold.strip())
    if not (word and word[1][0].isupper() and _WHICH.search(problem)):
        return []
    name = re.escape(word[1])
    said = re.compile(rf"\b{name}\b(?:[ \t]+[a-z]+){{1,2}}?[ \t]+the[ \t]+{_SUPERLATIVE}")
    return [
        Claim(
            start=m.start(),
            end=m.end(),
            value_start=m.start(),
            value=f"\\text{{{word[1]}}}",
            names=(m[0],),
            lhs=None,
            flags=frozenset(("concluded",)),
            sentence=(m.start(), m.end()),
        )
        for m in said.finditer(reasoning)
    ]


#: A question that asks which one of several: "Which student ...", "Who earns ...".
_WHICH = re.compile(r"(?i)\b(?:which|who)\b")
#: A superlative: "greatest", "the most", "fastest", "least".
_SUPERLATIVE = r"(?:[a-z]+est|most|least|best|worst)\b"


def _in_question(word: str, question: frozenset[str]) -> bool:
    """Whether a conclusion's ``word`` is a word of the question, or a compound of one
    ("handbag" for "bag"), or its noun for the people counted ("students" for "pupils")."""
    return (
        word in question
        or any(len(w) >= 3 and word.endswith(w) for w in question)
        or (word in PEOPLE and not question.isdisjoint(PEOPLE))
    )


#: The past of verbs a word problem asks with ("how much did she give", "she gave"), and the
#: third person of "have".
_PRESENT = {
    "gave": "give", "paid": "pay", "spent": "spend", "bought": "buy", "sold": "sell",
    "made": "make", "took": "take", "got": "get", "ate": "eat", "ran": "run", "won": "win",
    "lost": "lose", "drove": "drive", "rode": "ride", "wrote": "write", "saw": "see",
    "had": "have", "found": "find", "kept": "keep", "rang": "ring", "grew": "grow",
    "threw": "throw", "flew": "fly", "built": "build", "sent": "send", "brought": "bring",
    "caught": "catch", "taught": "teach", "fed": "feed", "has": "have",
}  # fmt: skip
#: The question's words for a conclusion's: its verbs in the present ("has" as the question's
#: "did he have"), and the time of "she
#: needs to leave 17 minutes before Wayne" for "How much earlier should Bernadette leave?"
_AS_ASKED = _PRESENT | {"before": "earlier", "after": "later"}
_IRREGULAR = re.compile(r"(?i)\b(?:" + "|".join(_AS_ASKED) + r")\b")
#: The question's verbs that :func:`content_words` drops as too common ("give", "find").
_DROPPED_VERBS = frozenset(v for v in _PRESENT.values() if not content_words(v))
_PLAIN_WORD = re.compile(r"[a-z]+")
#: A capitalized word: the problem's proper names ("John", "Job A") are among them.
_CAPITALIZED = re.compile(r"\b[A-Z][a-z]+")
#: A modal the question words as "should" or "must", which no name has: "she needs to leave".
_MODAL = re.compile(r"(?i)\b(?:needs?|has|have|ought)\s+to\b")
#: A conclusion with one number and no link word: "Therefore, each person pays $32.", "So,
#: 25 candles both smell like wet dog and explode." (the words around the number, each run
#: without digits or math).
_WHOLE_NUMBER = re.compile(r"\d+")
_CONCLUDED = re.compile(  # the lookahead lets the engine skip most positions at once
    r"(?=[\stsh])(?:(?<=[.!\n])|(?<=[.!]\s)|(?<![\s\S]))\s*(?:therefore|so|thus|hence)"
    r"(?:\s+(?P<adverb>altogether|in\s+total|in\s+all|overall))?,?\s+"
    r"(?P<before>(?:[A-Za-z][A-Za-z' ]{0,80}?)?)\s*\\?\$?"
    r"(?P<value>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)%?"
    r"(?P<after>(?:\s+(?:[A-Za-z][A-Za-z']*|\d+)){0,10})\s*[.!](?=\s|$)",
    re.IGNORECASE,
)


def _kind(claim: Claim, asked: Asked) -> str | None:
    """Why a claim could count ("boxed", "answer", "asked", "open"), or None when its name is
    a part of the asked expression (an intermediate)."""
    if "boxed" in claim.flags:
        return "boxed"
    if "concluded" in claim.flags:
        return "asked"  # said in the question's own words (:func:`_conclusions`)
    names = claim.names
    if any(_says_answer(n) for n in names):
        return "answer"
    if any(asked.matches(n) or asked.generic_only(n) for n in names):
        return "asked"
    if any(asked.is_part(n) for n in names):
        return None
    if len(names) > 1 and _described(names, asked):
        return "asked"  # "Fraction of math books = number of math books / total remaining books"
    if (
        _PERCENT_VALUE.search(claim.value)
        and any(_TO_PERCENT.search(n) for n in names)
        and any("percent" in words for words in asked.words)
    ):
        return "asked"  # "(0.1s² / s²) * 100% = 10%" for "By what percent ...?"
    return "open"


def _counts_other(claim: Claim, asked: Asked) -> bool:
    """Whether a count in words ("two inequalities", "gives us two possible values") counts
    something the question never names, nor a name of the asked quantity found in the trace
    says in full ("two distinct real roots" for the trace's "distinct roots"), nor, for a
    question that counts, the generic "values": the trace's aside. (A number in digits may be
    said in the asked quantity's unit: "230 miles" for "What's the distance ...?")"""
    counted = [n for n in claim.names if n.startswith("number of ")]
    if not asked.context or not counted:
        return False
    counts = asked.solutions or bool(asked.counted) or any("number" in s for s in asked.words)
    for name in counted:
        words = content_words(name) - _COUNT_WORDS
        # "y-intercepts" for the question's "$y$-intercepts", read as "-intercepts"
        words |= {w.rpartition("-")[2] for w in words if "-" in w}
        if not words - GENERIC:  # "two possible values": asked when the question counts
            if counts:
                return False
            continue
        if words & asked.context or any(said <= words for said in asked.words):
            return False
    return True


_COUNT_WORDS = frozenset(("number",))


@lru_cache(maxsize=1 << 14)
def _says_answer(name: str) -> bool:
    """Whether a name says "the answer" in so many words (:data:`_ANSWER_WORD`), memoised:
    every candidate's names are read, and a trace gives the same few names over and over."""
    return bool(_ANSWER_WORD.search(name))


def _described(names: Sequence[str], asked: Asked) -> bool:
    """Whether a chain's names together describe the asked quantity in the question's own
    words: every word of one of its asked names among them, and no specific word the question
    lacks ("Fraction of math books = number of math books / total remaining books" for "What
    fraction of the books remaining on the three shelves are math books?")."""
    words = frozenset().union(*(content_words(n) for n in names if not asked.misses_rest(n)))
    if not words:
        return False
    question = asked.context.union(*asked.words)
    return not (words - GENERIC) - question and any(w <= words for w in asked.words)


#: A value in percent, and a computation that turns a ratio into one (``0.1 * 100%``,
#: ``\frac{3}{20} \times 100\%``): when the question asks for a percent, the chain that
#: converts to percent computes the asked one (a given percent is never multiplied by 100%).
_PERCENT_VALUE = re.compile(r"(?:%|\\%|\\text\s*\{\s*percent\s*\})\s*$")
_TO_PERCENT = re.compile(r"(?:\*|×|\\times|\\cdot|times)\s*100\s*(?:\\?%|percent)")


def _given(condition: str | None, problem_key: str) -> bool:
    """Whether a condition restates what the problem gives (``x = 4`` in "... when $x=4$?")."""
    key = name_key(condition or "")
    return bool(key) and len(key) >= 3 and key in problem_key


def _digits(text: str) -> str:
    """The digits ``name_key(text)`` keeps, in order: its ASCII digits and superscripts."""
    return _NOT_DIGIT.sub("", text if text.isascii() else text.translate(SUPERSCRIPT_DIGITS))


def _restates(reasoning: str, claim: Claim, problem_key: str, problem_digits: str) -> bool:
    """Whether the claim's text occurs in the problem (a given, restated), or its relation does
    with words before it ("Using the property \\(\\omega^3 = 1\\)" when the problem says
    "$\\omega^3 = 1$").

    A key keeps its text's digits (:func:`_digits`), so a text or relation whose digits are
    no run of the problem's (``problem_digits``) occurs in no part of it: most are settled so,
    without their keys."""
    if not problem_key:
        return False
    text = reasoning[claim.start : claim.end]
    if _digits(text) in problem_digits:
        key = name_key(text)
        if len(key) >= 3 and key in problem_key:
            return True
    left = claim.lhs or (claim.names[-1] if claim.names else None)
    word = _TEXT_GOLD.fullmatch(claim.value.strip())
    if left and word and len(name_key(left)) >= 2:  # "g(x) is an even function" when the
        given = re.escape(name_key(left).lower()) + r"(?:be|is|are)(?:an?)?"
        given += re.escape(word.group(1).lower())
        if re.search(given, problem_key.lower()):  # problem says "let g(x) be an even function"
            return True
    if not left or _digits(left + claim.value) not in problem_digits:
        return False
    relation = name_key(f"{left}={claim.value}")
    if len(relation) < 4 or relation not in problem_key:
        return False
    before = r"(?<![\w^])" if relation[:1].isalnum() else ""  # keys have no spaces
    whole = rf"{before}{re.escape(relation)}(?![\w^{{(]|\.\d)"  # not "f(x)=3" of "f(x)=3x^4"
    return bool(re.search(whole, problem_key))


#: A plain number as a problem or a claim states it: ``13``, ``-2.5``, ``11/2``.
_PLAIN_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?")
#: ``\frac{11}{2}`` and its variants, read as ``11/2``.
_LATEX_FRACTION = re.compile(r"\\[dt]?frac\s*\{\s*(-?\d+)\s*\}\s*\{\s*(\d+)\s*\}")
#: A problem's sentences (a question among them ends in "?" or opens with what it asks).
_PROBLEM_SENTENCE = re.compile(r"[^.?!]+(?:[.?!](?!\d)|$)")
_ASKING = re.compile(
    r"\s*(?:what|which|how|find|determine|compute|calculate|evaluate|express|simplify|solve)\b"
)
#: A number of things a clause gives: "15 liters", "$2 per mile" (not a digit of a longer run).
_COUNTED = re.compile(rf"(?<![\w.,/])({_PLAIN_NUMBER.pattern})\s+(?=[a-z]{{2,}})")
#: Where a given's clause ends inside a sentence.
_GIVEN_BREAK = re.compile(r"[;,](?!\d)")
#: A number a clause states as a value: "is $13$", "= 1/2", "equals 7".
_STATED = re.compile(rf"(?:\bis|\bare|\bwas|\bwere|\bequals?|=)\s*({_PLAIN_NUMBER.pattern})\b")
_COMMAND = re.compile(r"\\[A-Za-z]+")
#: Math delimiters and dollar signs, escaped or not: no part of a stated number.
_DOLLAR = re.compile(r"\\?\$")
#: Words a name may add or drop without naming another quantity.
_NAME_FILLERS = frozenset(
    (
        "a", "an", "the", "of", "all", "its", "their", "this", "that", "these", "those", "is",
        "are", "was", "were", "to", "in", "on", "for", "and", "with", "by", "from", "we",
        "have", "has", "given", "total", "number",
    )
)  # fmt: skip
_WORD = re.compile(r"[a-z]+|\d+")


@lru_cache(maxsize=256)
def _givens(problem: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """The clauses of the problem's givens (not of its question), each as its words and the
    plain numbers it states as a value ("is $13$", "= \\frac{11}{2}": ``13``, ``11/2``) or as
    a quantity of something ("15 liters of pineapple drink": ``15``); memoised per problem
    (read per claim)."""
    text = _LATEX_FRACTION.sub(r"\1/\2", _DOLLAR.sub(" ", problem))
    text = _COMMAND.sub(" ", text).lower()
    out = []
    for sentence in _PROBLEM_SENTENCE.findall(text):
        if sentence.rstrip().endswith("?") or _ASKING.match(sentence):
            continue  # what is asked is no given
        for clause in _GIVEN_BREAK.split(sentence):
            numbers = frozenset(_STATED.findall(clause) + _COUNTED.findall(clause))
            if numbers:
                out.append((frozenset(_WORD.findall(clause)), numbers))
    return tuple(out)


def _restates_given(claim: Claim, problem: str) -> bool:
    """Whether a claim restates a given in other words: its value is a plain number that a
    clause of the problem's givens states, and every word of its name is a word of that
    clause ("The sum of the lengths of all 12 edges is 13" for "The sum of the lengths of all
    $12$ edges of $P$ is $13$"; "... all 12 edges is 4a + 4b + 4c = 13", whose formula names
    nothing in words). ``_restates`` needs the claim's text verbatim; this needs two words of a
    name, so a bare "the total is 13" is never taken for a given."""
    value = _DOLLAR.sub("", claim.value).strip()  # "\\$1", said "$\\$ 1 /$ bushel"
    if not claim.names or not _PLAIN_NUMBER.fullmatch(value):
        return False
    if "mention" in claim.flags:
        # "the 5 cars that took an exit" for "5 cars from the line take an exit": the number
        # with its unit, as the problem gives it (or else in a clause's words, as any claim)
        units = "|".join(re.escape(n.split()[-1]) for n in claim.names)
        if re.search(rf"(?<![\d.,]){re.escape(value)}\s+(?:{units})\b", problem):
            return True
    clauses = [said for said, numbers in _givens(problem) if value in numbers]
    if not clauses:
        return False
    named = False
    for name in claim.names:  # in words, every name: not "the price here, which is the
        words = frozenset(_WORD.findall(_COMMAND.sub(" ", name).lower())) - _NAME_FILLERS
        if sum(len(w) > 1 and not w.isdigit() for w in words) < 2:
            continue  # a formula ("4a + 4b + 4c") or a bare noun names no given
        if not any(words <= said for said in clauses):
            return False  # given price, $1": the first name is another quantity
        named = True
    return named


def same_form(value: str, gold: str) -> bool:
    """Whether ``value`` is written with the gold's atoms (``\\frac{\\sqrt{3}}{3}``, not
    ``\\frac{1}{\\sqrt{3}}``; ``4210_5``, not ``555``): for problems that ask to rewrite a
    formula, where every intermediate form equals the gold."""
    if not value.isascii():  # "x³ + 3x - 6" is written as x^3+3x-6, "5r⁵" as 5r^{5}
        value = _SUPERSCRIPT_RUN.sub(
            lambda m: "^{" + m[0].translate(SUPERSCRIPT_DIGITS) + "}", value
        )
    if "sin" in value:  # "\\frac{\\cos x}{\\sin x}" is "\\cot x" written out
        value = _TRIG_QUOTIENT.sub(_as_quotient_function, value)
    return sorted(_atom_list(_LEADING_NAME.sub("", value))) == sorted(_atom_list(gold))


_SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")
#: A quotient of a cosine and a sine of one argument, as a fraction (a slash is left alone:
#: math-verify reads ``\\cos x / \\sin x`` as the cosine of ``x / \\sin x``).
_TRIG_QUOTIENT = re.compile(r"\\frac\{\\?(cos|sin)\s*(\w|\(\w\))\}\{\\?(sin|cos)\s*\2\}")


def _as_quotient_function(found: re.Match[str]) -> str:
    top, argument, bottom = found.group(1, 2, 3)
    if top == bottom:
        return found[0]
    return ("\\cot " if top == "cos" else "\\tan ") + argument


def _atom_list(value: str) -> list[str]:
    """The atoms of ``value``; a decimal without its leading zero (``.35625``) is the same
    number as with it (``0.35625``)."""
    value = _BARE_DECIMAL.sub(r"\g<1>0.", value)
    found = _ATOM.findall(_FRAC_SHORTHAND.sub(r"\\frac{\1}{\2}", value))
    return ["sqrt" if a in ("\\sqrt", "sqrt", "√") else a.lstrip("\\") for a in found]


_BARE_DECIMAL = re.compile(r"(^|[^\d])\.(?=\d)")
#: A thousands separator: "9,901", "273,375" (a comma before three digits and no fourth).
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def atoms(value: str) -> int:
    """How many numbers, variables, constants and functions a value is written with
    (``\\frac65`` is ``\\frac{6}{5}``: two)."""
    return len(_ATOM.findall(_FRAC_SHORTHAND.sub(r"\\frac{\1}{\2}", value)))


def as_column(value: str, rows: int) -> str:
    """A tuple or list of ``rows`` entries (``[-18, -49, 96]``, ``(16/49, 48/49, 24/49)``), or
    a row transposed (``[-2, -14, -7]^T``), as the column vector the gold is written as;
    anything else unchanged."""
    m = re.fullmatch(
        r"\s*(?:\\left)?[(\[]\s*(.*?)\s*(?:\\right)?[)\]](?:\s*\^\s*(?:T|\{T\}|\\top|\{\\top\}))?\s*",
        value,
        re.DOTALL,
    )
    if not m or "(" in m.group(1) or "[" in m.group(1):
        return value
    entries = [e.strip() for e in m.group(1).split(",")]
    if len(entries) != rows or not all(entries):
        return value
    return "\\begin{pmatrix} " + " \\\\ ".join(entries) + " \\end{pmatrix}"


#: A radical added to a number: a closed form the gold may write with one atom fewer
#: (``\\frac{1}{2} + \\sqrt{\\frac{1}{2}}`` for ``\\frac{1 + \\sqrt{2}}{2}``), which a value stated
#: as the asked quantity's is allowed; a lone root of a number (``\\sqrt{\\frac{4225}{28561}}``)
#: is still to be taken.
_RADICAL = re.compile(r"[-+]\s*(?:\\sqrt|√|sqrt)")


def without_unit(value: str, gold: str) -> str:
    """``value`` without a unit in plain text after its number ("84.01 g/mol", "700°C"), when
    the gold is a plain number: the number it states."""
    if _GOLD_NUMBER.fullmatch(gold) and (unit := _NUMBER_AND_UNIT.fullmatch(value)):
        return unit[1]
    return value


def evaluated(value: str, gold: str, gold_atoms: int) -> bool:
    """Whether ``value`` is written as a result, not as a computation still to be done: no
    more atoms than the gold has (a leading ``x =`` aside), no operation between numbers
    unless the gold has one too (``50 \\times \\frac{11}{4}`` is no result for
    ``137\\frac{1}{2}``, ``1 - 12i`` is one for itself; ``2,000`` is one number). A fraction
    is not held to lowest terms ("probability = 34/100", "That would be 3/24"): the protocol
    counts any mathematically equal value (``\\frac{12}{2}`` for 6)."""
    value = _LEADING_NAME.sub("", value)
    if "," not in gold:  # "2,000" is one number, where the gold lists nothing
        value = _THOUSANDS.sub("", value)
    if "10^" not in gold and "\\text" not in gold:
        # "6 \\times 10^{-3} \\text{ m/s²}" is one number and its unit, for 0.006
        value = _TRAILING_UNIT.sub("", _SCIENTIFIC.sub(r"\1", value))
        value = without_unit(value, gold)
    if atoms(value) > max(gold_atoms, 1) and not _simplified_formula(value, gold):
        return False
    if perfect_root(value) and not perfect_root(gold):
        return False  # "\\frac{\\sqrt{27}}{\\sqrt{16}}": the root of 16 is still to take
    return not (pending_operation(value) and not pending_operation(gold))


def _fraction_for_decimal(value: str, problem_key: str) -> bool:
    """Whether ``value`` is a fraction of whole numbers, a result for a decimal gold though
    written with more atoms (``A = -\\frac{1}{5}`` for ``-0.2``), unless the question gives
    that fraction to convert ("What is 9/2 expressed as a decimal?")."""
    fraction = _LEADING_NAME.sub("", value)
    return bool(WHOLE_FRACTION.fullmatch(fraction)) and name_key(fraction) not in problem_key


#: A number in scientific notation (``5.93 \\times 10^{-3}``, its mantissa the group), and a
#: unit after a value: in text, or a solar unit (``15,625 L_{\\odot}`` for a luminosity asked
#: "in units of the luminosity of the Sun", as the grader reads it).
_SCIENTIFIC = re.compile(
    r"(?<![\d.])(\d++(?:\.\d++)?+)\s*+(?:\\times|\\cdot|×)\s*10\^\s*(?:\{\s*-?\d+\s*\}|-?\d)"
)
_TRAILING_UNIT = re.compile(
    r"(?<!\s)\s*+(?:\\(?:text|mathrm)\s*+\{[^{}]*+\}|[LMR]_\{?\\odot\}?)\s*+$"
)
#: A plain number, and a number with a unit written in plain text ("84.01 g/mol", "700°C",
#: "0.00001 radians"), which states that number when the gold is a plain number
#: (:func:`without_unit`); a letter right after a number is a variable ("2m", "3g"), and so is
#: one letter alone.
_GOLD_NUMBER = re.compile(r"\s*-?\d[\d,]*(?:\.\d+)?\s*")
_NUMBER_AND_UNIT = re.compile(
    r"\s*(-?\d[\d,]*(?:\.\d+)?)(?:\s*°\s*[CFK]?|\s+[A-Za-zμΩÅ]{1,8}\s*/\s*[A-Za-zμ]{1,5}"
    r"|\s+[A-Za-zμΩÅ]{2,8})\s*"
)


def _simplified_formula(value: str, gold: str) -> bool:
    """Whether ``value``, a formula in the gold's variables, is as simplified as the gold in
    them: each variable written no more often than in the gold. A formula's other form may
    need more numbers than the gold's (``\\frac{1}{4} \\cos(2t) + \\frac{1}{4} \\sin(2t)`` for
    ``\\frac{\\cos(2t)+\\sin(2t)}{4}``, ``\\frac{1}{sCR + s^2 LC + 1}`` for
    ``\\frac{1}{LCs^{2}+RCs+1}``), while a variable still to cancel
    (``\\frac{v_0}{r} \\cdot \\frac{r}{r_0 (1 + r/r_0)^{3/2}}``) is a computation still to be
    done. A gold with no variable (a number) keeps the count of atoms, and so does an equation,
    which many rearrangements equal where the question asks for one form (``2x + y = 0`` is
    no line "in the form y = mx + b")."""
    wanted = _variables(gold) if "=" not in gold else None
    if not wanted:
        return False
    written = _variables(value)
    return all(written[v] <= wanted[v] for v in written)


def _variables(formula: str) -> Counter[str]:
    """Each variable of a formula and how often it is written: single letters (those of a run
    of letters that names no function, ``ce^{-2x}``, ``LCs``) and Greek letters other than pi,
    read apart where a gold written without spaces glues them to what follows
    (``\\omegat``, ``\\piG``); text, environments, subscripts' digits, functions and the
    constants e and i, each written alone, are no variables."""
    formula = _TEXT.sub(" ", formula)
    found: Counter[str] = Counter()
    for command, run in _NAMES.findall(formula):
        if command:
            letter = next((g for g in _GREEK if command.startswith(g)), None)
            rest = command[len(letter) :] if letter else ""
            if letter is None or (rest and (len(rest) > 2 or command in _HYPERBOLIC)):
                continue  # a command of its own (\\frac, \\sinh, \\phantom)
            if letter != "pi":
                found[letter] += 1
            found.update(rest)
        elif run.lower() not in _FUNCTIONS and run not in ("e", "i"):
            found.update(run)
    return found


#: A LaTeX command, or a run of plain letters.
_NAMES = re.compile(r"\\([A-Za-z]+)|(?<![A-Za-z\\])([A-Za-z]+)")
_TEXT = re.compile(r"\\(?:text|mathrm|operatorname|begin|end)\s*\{[^{}]*\}")
#: Greek letters (and pi, a constant), longest first where one begins another.
_GREEK = (
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "theta", "vartheta",
    "iota", "kappa", "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon",
    "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Sigma",
    "Phi", "Psi", "Omega", "eta",
)  # fmt: skip
_HYPERBOLIC = frozenset({"sinh", "cosh", "tanh", "coth", "sech", "csch"})
_FUNCTIONS = frozenset(
    {"sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh",
     "tanh", "log", "ln", "exp", "lim", "max", "min", "gcd", "lcm", "det", "mod", "sqrt"}
)  # fmt: skip


#: A comma between a number's thousands (``2,000``, ``10,\\!080``).
_THOUSANDS = re.compile(r"(?<=\d),(?:\\!)?(?=\d{3}(?![\d.]))")


def _first_equal(
    candidates: Sequence[_Candidate],
    gold: str,
    grader: Grader,
    *,
    integer_gold: bool,
    rewrite: bool,
    doubts: Sequence[tuple[int, str]],
    asides: Sequence[tuple[int, str]],
    free: frozenset[str],
    openers: Sequence[_Opener] = (),
    numeric: bool = False,
    operation: _Operation | None = None,
    word_problem: bool = False,
    reasoning: str = "",
) -> Found:
    """Walk the candidates in order, grading lazily; the first that counts (see
    :func:`_prospects`) is the commitment.

    Most candidates of a long trace could not count whatever their value (an open claim that
    nothing adopts), and grading is what a trace costs, so only the candidates that could
    count are graded: one batched call from the first unknown one onward, which stops at the
    first equivalent value."""
    prospects = _prospects(
        candidates,
        integer_gold=integer_gold,
        numeric=numeric,
        operation=operation,
        rewrite=rewrite,
        doubts=doubts,
        asides=asides,
        free=free,
        openers=openers,
        word_problem=word_problem,
        reasoning=reasoning,
    )
    viable = [i for i, prospect in enumerate(prospects) if prospect is not None]
    verdicts: dict[str, bool] = {}
    graded = timeouts = 0

    def equal(i: int) -> bool:
        nonlocal graded, timeouts
        value = candidates[i].value
        if value not in verdicts:
            later = (candidates[j].value for j in viable[bisect_left(viable, i) :])
            # the value first: an adopter that cannot commit itself is not among the viable
            batch = list(dict.fromkeys(v for v in (value, *later) if v not in verdicts))
            match = grader.first_equivalent(gold, batch)
            graded += len(batch) if match.index is None else match.index + 1
            timeouts += match.timeouts
            for j, v in enumerate(batch):
                verdicts[v] = j == match.index
                if j == match.index:
                    break
            else:
                verdicts.update(dict.fromkeys(batch, False))
        return verdicts[value]

    for i in viable:
        rule, adopter = prospects[i]  # type: ignore[misc]  # viable: not None
        if not equal(i):
            continue
        if adopter is None or equal(adopter):
            return Found(candidates[i].claim, rule, graded, timeouts)
    return Found(None, None, graded, timeouts)


def _prospects(
    candidates: Sequence[_Candidate],
    *,
    integer_gold: bool,
    rewrite: bool,
    doubts: Sequence[tuple[int, str]],
    asides: Sequence[tuple[int, str]],
    free: frozenset[str],
    openers: Sequence[_Opener],
    numeric: bool = False,
    operation: _Operation | None = None,
    word_problem: bool = False,
    reasoning: str = "",
) -> list[tuple[str, int | None] | None]:
    """For each candidate, what would make it count if its value equals the gold: the rule,
    and the adopter whose value must equal the gold too (rule "adopted"); None when nothing
    would. This reads the text only, never a verdict.

    A boxed, answer or asked claim counts by its kind, an unnamed chain that computes what an
    opener set the asked quantity to as "computed" (:func:`_computes`) or that applies the
    asked operation to named values (:func:`_combines`). An open claim is a result at once
    when the gold is no integer and the claim names its value in no words of its own nor by a
    variable of the problem, when it is a chain of numbers and the question asks for an
    expression of numbers (:func:`_numeric`), or when the problem asks to rewrite a formula
    (the claim is in the gold's form, which an intermediate is not; for a plain integer, which
    has no form to tell, only an unnamed claim); otherwise it needs the adoption rule (module
    docstring): the next non-open candidate adopts it, in the same paragraph or the next for a
    named value, with no doubt about the value and nothing else computed in between. The
    adoption look-ups are bisections and precomputed indexes, not scans of the candidates
    between."""
    count = len(candidates)
    keys = [name_key(c.value) for c in candidates]
    adopters: list[int | None] = [None] * count  # the first non-open candidate after each
    firm: list[int | None] = [None] * count  # the same, a question's witness left out
    same_until = [count] * count  # the first candidate after each whose value differs
    following: int | None = None
    following_firm: int | None = None
    for i in range(count - 1, -1, -1):
        adopters[i], firm[i] = following, following_firm
        if candidates[i].kind != "open":
            following = i
            if candidates[i].kind != "witness":
                following_firm = i
        if i + 1 < count:
            same_until[i] = same_until[i + 1] if keys[i + 1] == keys[i] else i + 1
    doubted = _positions_by_key(doubts)
    set_aside = _positions_by_key(asides)
    all_asides = sorted(at for at, _ in asides)
    opener_starts = [o.start for o in openers]
    # the asked quantity set to a computation of numbers still to be done ("Change = $20 −
    # $10"): what states its value next is that computation's result, no adoption
    pending = [o.start for o in openers if o.key and not has_letter(o.key)]
    first_stated: dict[str, int] = {}
    if word_problem:
        for j, key in enumerate(keys):
            first_stated.setdefault(key, j)

    out: list[tuple[str, int | None] | None] = []
    for i, candidate in enumerate(candidates):
        out.append(None)
        if candidate.kind in ("witness", "final"):
            continue  # it only adopts what came before (:func:`_candidates`, first_commitment)
        if candidate.kind != "open":
            out[i] = (candidate.kind, None)
            continue
        # the latest opener before the candidate (openers and candidates are in text order)
        latest = bisect_left(opener_starts, candidate.claim.start) - 1
        if latest >= 0 and _computes(candidates, i, openers[latest]):
            out[i] = ("computed", None)
            continue
        if operation and _combines(candidates, i, operation):
            out[i] = ("computed", None)
            continue
        if (
            word_problem
            and _is_chain(candidate)
            and not candidate.claim.flags & _SUPPOSED
            and not _goes_on(candidates, keys, first_stated, i)
            and not _rejected_after(reasoning, candidate.claim)
        ):
            out[i] = ("computed", None)
            continue
        names = candidate.claim.names
        named = any(has_letter(n) for n in names)
        # (the last test below holds for no integer gold, whatever the names: not read then)
        by_variable = not integer_gold and any(name_key(n) in free for n in names)
        if (
            (rewrite and not (integer_gold and named))
            or (numeric and not named)
            or not (integer_gold or by_variable or named_in_words(candidate.claim))
        ):
            out[i] = ("result", None)
            continue
        # a question adopts a computation ("3 × 3 = 9. So, does that mean 196 has 9 positive
        # divisors?"), not a variable's value ("b = 1" before "Does that mean there's only
        # one?")
        variable = any(_VARIABLE.fullmatch(name_key(n)) for n in names)
        adopter = firm[i] if variable else adopters[i]
        if adopter is None:
            continue
        if named and candidates[adopter].paragraph - candidate.paragraph > 1:
            continue  # a named value is adopted in the same paragraph or the next, or not at all
        key = keys[i]
        start, stop = candidate.claim.start, candidates[adopter].claim.start
        if _between(doubted.get(key, []), start, stop):
            continue
        if _between(pending, start, stop):
            continue
        other_asides = _between(all_asides, start, stop) - _between(
            set_aside.get(key, []), start, stop
        )
        if other_asides or (not named and same_until[i] < adopter):
            continue  # the model computed something else before adopting: not its result
        out[i] = ("adopted", adopter)
    return out


def _word_problem(problem: str | None, gold: str) -> bool:
    """Whether ``problem`` is a word problem: a story told before its question (two sentences
    at least; "What is the sum of 1000 and 1?" is an exercise), no formula in it (no LaTeX
    command, no math between dollar signs, no ``=``, ``^``, ``_`` or braces; a price's "$50"
    is no math), and an answer that is none of its numbers (a chain equal to a given only
    restates it)."""
    if not problem or _FORMULA.search(problem) or len(_SENTENCE_CLOSE.findall(problem)) < 2:
        return False
    return gold.strip().replace(",", "") not in _WHOLE.findall(problem.replace(",", ""))


#: A formula in a problem: a LaTeX command, a dollar sign that opens math (not a price), a
#: relation, a power, an index or a group.
_FORMULA = re.compile(r"\\|\$[^$\d]|[=^_{}]")
_WHOLE = re.compile(r"\d+(?:\.\d+)?")
#: Flags under which a chain is supposed, not computed: "if Toni has 16, then 16 - 7 = 9?".
_SUPPOSED = frozenset(("question", "hypothesis"))
#: An operation between two numbers, as a chain's key has it: ``100-30``, ``23+140``.
_NUMBER_OPERATION = re.compile(r"\d\s*[-+*/×÷]\s*\(?\d")
#: A word that says what a computation does ("adding those together gives $130"), unlike a
#: quantity's name ("Ch - 75 - 60", "Cost").
_ARITHMETIC_WORD = re.compile(
    r"(?i)\b(?:add(?:ing|ed|s)?|subtract(?:ing|ed|s)?|multipl(?:y|ying|ied|ies)|divid(?:e|ing|ed|es)"
    r"|plus|minus|times)\b"
)
#: The same, on numbers ("add that 10 to the remaining 11").
_DOES_ARITHMETIC = re.compile(_ARITHMETIC_WORD.pattern + r"(?=[^\d]{0,40}\d)")


def _is_chain(candidate: _Candidate) -> bool:
    """Whether the candidate is a chain of numbers: named by an operation on numbers ("23 plus
    140 is 163" is named ``23 + 140``), and in words at most by what it does to them ("we
    need to add that 10 to the remaining 11. That would be $11 + $10 = $21."), not by a
    quantity's name ("Cost = 200 * 150", ``Ch - 75 - 60 + 15 = 110``)."""
    names = candidate.claim.names
    formulas = [n for n in names if not has_letter(n)]
    return (
        bool(formulas)
        and bool(_NUMBER_OPERATION.search(name_key(formulas[-1])))
        and all(_DOES_ARITHMETIC.search(n) for n in names if has_letter(n))
    )


def _goes_on(
    candidates: Sequence[_Candidate], keys: Sequence[str], first: Mapping[str, int], i: int
) -> bool:
    """Whether the computation goes on from the chain ``candidates[i]`` (see the module
    docstring): another chain follows in its sentence, a name of another quantity for its
    value follows in its paragraph (not one that says what the computation did, "adding those
    together gives $130"), or the next chain (in its paragraph or the next) takes its
    value as an operand and reaches a value not stated before (a check, "10 times 30 is 300"
    after "300 ÷ 10 is 30", reaches a known one). ``first``: where each key is first stated,
    so that each chain reads only the candidates up to the next paragraph's end."""
    chain, key = candidates[i], keys[i]
    for j in range(i + 1, len(candidates)):
        other = candidates[j]
        if other.paragraph - chain.paragraph > 1:
            return False
        operation = other.claim.names and _NUMBER_OPERATION.search(name_key(other.claim.names[0]))
        if operation:  # a computation, named in words or not ("15 * 2 = 30 tickets")
            if other.claim.sentence == chain.claim.sentence and keys[j] != key:
                return True
            operands = _WHOLE.findall(operation.string.replace(",", ""))
            return key in operands and first[keys[j]] == j
        if (
            other.paragraph == chain.paragraph
            and keys[j] == key
            and other.kind == "open"
            and "question" not in other.claim.flags
            and any(has_letter(n) and not _ARITHMETIC_WORD.search(n) for n in other.claim.names)
        ):
            return True
    return False


def _rejected_after(reasoning: str, claim: Claim) -> bool:
    """Whether the model rejects the value at once: in the rest of its sentence or the next
    ("60 minus 40 is 20. Wait, that doesn't make sense.")."""
    end = claim.sentence[1]
    after = _SENTENCE_CLOSE.search(reasoning, end, end + 300)
    return bool(_REJECTED.search(reasoning, claim.end, after.end() if after else end + 300))


_SENTENCE_CLOSE = re.compile(r"[.!?](?:\s|$)")
#: A model rejecting what it just computed.
_REJECTED = re.compile(
    r"(?i)\b(?:(?:that|this|it)\s+(?:doesn't|does\s+not|can't|cannot)\s+(?:make\s+sense|be\b)"
    r"|(?:that|this)(?:'s|\s+is)\s+(?:not\s+(?:right|correct|possible)|wrong|impossible)"
    r"|i\s+(?:must\s+have\s+)?(?:messed\s+up|made\s+(?:a|an)\s+(?:mistake|error)))"
)


def _positions_by_key(marks: Sequence[tuple[int, str]]) -> dict[str, list[int]]:
    """``(position, key)`` pairs as each key's sorted positions."""
    by_key: dict[str, list[int]] = {}
    for at, key in marks:
        by_key.setdefault(key, []).append(at)
    for positions in by_key.values():
        positions.sort()
    return by_key


def _between(positions: Sequence[int], start: int, stop: int) -> int:
    """How many of the sorted ``positions`` lie strictly between ``start`` and ``stop``."""
    return max(0, bisect_left(positions, stop) - bisect_right(positions, start))


def _computes(candidates: Sequence[_Candidate], i: int, opener: _Opener) -> bool:
    """Whether the unnamed chain ``candidates[i]`` computes what ``opener``, the latest before
    it, set the asked quantity to.

    No other value of the asked quantity came between, and the chain starts from that very
    computation, the opener in its paragraph or one of the two before ("arccos(-0.5) is 120
    degrees" after "θ = arccos(-0.5)"), or from numbers alone, the opener in its paragraph or
    the one before ("5 × 4 is 20, and 20 × 3 is 60" after "the total number of ways should be
    5 × 4 × 3"), but not from a part of it (``\\sqrt[3]{64} = 4`` inside
    ``(16\\sqrt[3]{64})^{1/3}``). The protocol counts "the result of the computation that
    produces the asked quantity"; a chain of numbers names no other quantity it could be.

    Only the candidates since the opener are read (they end the ones before: candidates are
    in text order), not all before it, which made a long trace with an opener quadratic."""
    candidate = candidates[i]
    since = i
    while since and candidates[since - 1].claim.start > opener.start:
        since -= 1
    between = candidates[since:i]
    if any(c.kind != "open" for c in between):
        return False
    if not candidate.claim.names:
        return False
    first = candidate.claim.names[0]
    key = name_key(spoken_root(first) or first)  # "the square root of 1.5625" of sqrt(1.5625)
    left, last = _left_to_right(opener, between)
    if left != opener.key and key == left and candidate.paragraph - last <= 2:
        return True  # "45 + 2 = 47", "47 - 5 = 42", then "42 + 5 = 47" of "45 + 2 - 5 + 5"
    if candidate.paragraph - opener.paragraph > 2:
        return False
    if opener.key and _group_evaluated(opener.key, key):
        return True  # "(2 - 1/5) / (1/5)", "2 - 1/5 gives 9/5", then "(9/5) / (1/5) = 9"
    if key != opener.key and key in opener.key:
        return False  # a part of the computation (the inner cube root of a cube root)
    # a goal in words reaches over a paragraph that states no value of it ("to find the total
    # ..., I need to add up the sales", "Friday: 14, Saturday: 28, Sunday: 8.", "14 + 28 is
    # 42, and 42 + 8 is 50.")
    gap = any(opener.paragraph < c.paragraph < candidate.paragraph for c in between)
    near = candidate.paragraph - opener.paragraph <= (1 if opener.key or gap else 2)
    # after a goal in words, the chain's own formula: "The question asks for a + b, so I just
    # need to add those two together. That would be -1 + 5, which is 4."
    formula = first if opener.key else candidate.claim.names[-1]
    # (numbers labelled in brackets and spoken operators are numbers still: "11 (Harry) minus
    # 3 (Ferdinand)")
    return key == opener.key or (near and not has_letter(_NUMBERS_IN_WORDS.sub("", formula)))


#: What a computation of numbers may say in words: a label in brackets after a number ("11
#: (Harry)", "$100 (food)") and a spoken operator.
_NUMBERS_IN_WORDS = re.compile(
    r"(?<=[\d\s])\([A-Za-z' ]{1,30}\)|\b(?:times|plus|minus|divided\s+by|multiplied\s+by)\b"
)


def _group_evaluated(whole: str, key: str) -> bool:
    """Whether ``key`` is the computation ``whole`` with one bracketed group of it replaced by
    a number: the rest of the computation, once that group was worked out (in words or not:
    "(2-(1/5))/(1/5)", then "(9/5)/(1/5)")."""
    limit = min(len(whole), len(key))
    head = 0
    while head < limit and whole[head] == key[head]:
        head += 1
    tail = 0
    while tail < limit - head and whole[-1 - tail] == key[-1 - tail]:
        tail += 1
    group, value = whole[head : len(whole) - tail], key[head : len(key) - tail]
    return (
        head > 0
        and whole[head - 1] == "("
        and tail > 0
        and whole[len(whole) - tail] == ")"
        and bool(_PLAIN_NUMBER.fullmatch(value))  # what the group works out to: 9/5, -3
        and bool(_OPERATOR.search(group))
    )


_OPERATOR = re.compile(r"[-+*/^]")


def _left_to_right(opener: _Opener, since: Sequence[_Candidate]) -> tuple[str, int]:
    """What is left of the opener's computation, and in which paragraph, after the unnamed
    chains ``since`` it, two paragraphs apart at most, that each add or subtract its leading
    terms ("5 \\star 1 = 45 + 2 - 5 + 5", then "45 + 2 = 47", "47 - 5 = 42": "42+5" is left)
    or evaluate one of its terms ("the total number of paths is 2 * C(7,2) * C(7,1)", then
    "C(7,2) = 21", "C(7,1) = 7": "2*21*7" is left): the chain that computes that is the
    opener's result, however many steps it took, and a partial result ("45 + 2 = 47", "C(7,2)
    = 21") is not."""
    left, paragraph = opener.key, opener.paragraph
    for c in since:
        if c.paragraph - paragraph > 2:
            break
        if c.kind != "open" or not c.claim.names:
            continue
        # the chain's first name, or its last: "125 - 62.5 - 52.5 + 5 = 125 - 62.5 = 62.5"
        # works out the leading terms it names last
        keys = (name_key(c.claim.names[0]), name_key(c.claim.names[-1]))
        key = next((k for k in keys if len(left) > len(k) and left.startswith(k)), keys[0])
        if len(left) > len(key) and left.startswith(key) and left[len(key)] in "+-":
            left, paragraph = name_key(c.value) + left[len(key) :], c.paragraph
        elif (evaluated := _with_term_evaluated(left, c.claim)) is not None:
            left, paragraph = evaluated, c.paragraph
    return left, paragraph


def _with_term_evaluated(left: str, claim: Claim) -> str | None:
    """``left`` with a term that ``claim`` evaluates replaced by its value (``2*C(7,2)*C(7,1)``
    after "C(7,2) = 21": ``2*21*C(7,1)``), or None. A term is a name with an operation, a
    function or a letter (a bare number is no term: "2" of ``2*C(7,2)`` evaluates nothing), and
    is replaced only whole (``24^2`` is no term of ``324^2``)."""
    value = name_key(claim.value)
    if not value or has_letter(value):
        return None
    for name in claim.names:
        key = name_key(name)
        if len(key) >= len(left) or not _TERM.search(key):
            continue
        at = left.find(key)
        while at >= 0:
            before = left[at - 1] if at else ""
            after = left[at + len(key) : at + len(key) + 1]
            if not (before and (before.isalnum() or before in "_\\.")) and not (
                after and (after.isalnum() or after in "_(.")
            ):
                # "(105/2)" evaluated to 52.5 leaves "-52.5", as the model goes on to write it
                return _BRACKETED_NUMBER.sub(r"\1", left[:at] + value + left[at + len(key) :])
            at = left.find(key, at + 1)
    return None


#: A bracket around nothing but a number, after an operator or at the start (``-(52.5)``; not
#: ``2(3)``, a product).
_BRACKETED_NUMBER = re.compile(r"(?<![\w)])\((\d+(?:\.\d+)?)\)")


#: What makes a name a term that a chain can evaluate: an operation, a bracket, a command.
_TERM = re.compile(r"[A-Za-z(^*/+\\-]")
