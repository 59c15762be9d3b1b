"""Answer equivalence with math-verify, in-process and without any timeout.

This module is what a grading worker runs (see :mod:`.grader`). It has no deadline of its own:
math-verify's timeouts use ``SIGALRM``, which raises off the main thread and cannot interrupt
long big-integer arithmetic (``5^{5^{5^{5^5}}}`` runs for minutes), so they are switched off
here (``parsing_timeout=None``, ``timeout_seconds=None``) and the deadline is enforced from
outside by killing the worker process. Calling these functions directly is fine for trusted,
short answers; anything model-written should go through :class:`.grader.Grader`.

math-verify (and sympy under it) is imported lazily, inside the functions that need it, so the
parent process can use :func:`normalize` (the fast path) without paying for the import.

Parsing choices, measured on MATH-500 (see the project's answer-checking notes):

* gold: ``"$" + gold + "$"`` with ``LatexExtractionConfig()`` only. Parsed bare, 109 of the
  500 golds come out wrong (``3\\sqrt{13}`` read as 3, ``6 - 5i`` as 5).
* candidate (an answer already extracted from the response): ``"\\boxed{" + candidate + "}"``
  with ``[LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig()]``. Wrapping in
  ``$..$`` instead gives the same verdicts except that ``\\frac{1}{2}.`` then fails to parse;
  passing the candidate bare rejects most LaTeX (``\\dfrac``, ``\\sqrt``, intervals, sets,
  matrices, complex numbers).

Beyond math-verify: a candidate is also read as :mod:`.rewrite` rewrites it (plain ``pi``,
``sqrt``, ordinals, words after a number) and, when the box wrapper finds no expression in it
or it holds math delimiters or plain words (an answer statement cut from prose), wrapped in
``$`` as plain math-verify reads it; it matches if any reading does
(:func:`candidate_readings`). ``benchmarks/grading_differences.py`` lists every verdict that
differs from plain math-verify's on the real predictions.

The costliest step of a check is math-verify's last resort, ``simplify(gold - answer)``, taken
for every pair of expressions it could not settle otherwise; most such pairs in a long trace are
wrong attempts (``7932`` against ``(a+5)(b+2)``). :func:`install_numeric_witness` (run in every
grading worker) lets that step first evaluate ``gold - answer`` at one fixed generic point and
answer "not equal" at once when the value is plainly nonzero. That can never turn an "equal"
into "not equal": ``simplify`` only rewrites an expression into an equal one, so a difference
it reduces to zero is zero at every generic point. Anything the evaluation cannot settle (a
value near zero, a pole, an undefined function, an error) goes on to ``simplify`` as before.
Verdicts are unchanged (checked on 4,600 pairs: MATH-500 answers against each other and
against perturbed forms, and the answer statements of real R1 traces); the checks take about a
third of the time.

Two equations math-verify cannot equate by their sides it compares by solving both for their
free symbols (``sympy_solve_and_compare``): it calls them equal only when the solutions pair up
with the same solved symbols. :func:`install_solved_gold` (run in every grading worker) solves
the gold once per worker instead of once per candidate and answers "not equal" without solving
the candidate when a solution of the gold solves for symbols the candidate does not have
(``y = 2x + 3`` solved for ``x``, against ``2a - b = 9``): the candidate's solutions solve only
for its own symbols, so none can pair up. Everything else is compared as before.

A set against a single value (an interval gold against a wrong number or formula) math-verify
compares as against a one-element set, asking sympy whether their symmetric difference is empty,
which can take a tenth of a second for a formula. :func:`install_set_shortcut` (run in every
grading worker) answers "not equal" first when one side is a set of more than one real (an
interval of positive length, a finite set of two plainly different numbers) and the other is no
set or tuple: no one value is such a set, and math-verify's other comparisons there (equal
objects, a tuple or finite set element by element, an open interval against a pair) all need
two sets of the same size.

Most of what remains is parsing: latex2sympy's ANTLR parser predicts with full LL context by
default, the slowest mode. :func:`install_two_stage_parsing` (also run in every grading worker)
parses in SLL mode first and again in LL mode only when SLL reports a syntax error, ANTLR's own
two-stage strategy: its runtime guarantees that an SLL parse that succeeds is the tree LL
returns, so every reading is the same (``benchmarks/parse_modes.py`` compares them on the
answers of the real traces), and the checks take a quarter to a third less worker CPU.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import Any

from .extract import strip_answer
from .rewrite import prepare_candidate, rewrite_answer

__all__ = [
    "GOLD_PROGRESS",
    "MAX_ANSWER_CHARS",
    "braces_balanced",
    "candidate_readings",
    "equivalent",
    "first_equivalent",
    "install_numeric_witness",
    "install_set_shortcut",
    "install_solved_gold",
    "install_two_stage_parsing",
    "normalize",
    "parse_candidate",
    "parse_gold",
    "plainly_nonzero_difference",
    "set_against_one_value",
    "solves_for_other_symbols",
    "warm_up",
    "with_numeric_witness",
    "with_set_shortcut",
    "with_solved_gold",
]

#: Longest answer string that is checked symbolically. MATH-500 golds are at most 53
#: characters; math-verify needs ~0.4 s to parse 1,000 characters of junk and runs for minutes
#: on a megabyte, so longer strings are rejected without being parsed.
MAX_ANSWER_CHARS = 1000

#: Progress index reported while the gold answer is being parsed (candidates count from 0).
GOLD_PROGRESS = -1

_TEXT_WRAPPER_RE = re.compile(r"\\(?:text|textrm|mbox)\s*\{([^{}]*)\}")
_FRAC_RE = re.compile(r"\\[dt]frac(?![A-Za-z])")
_DEGREE_RE = re.compile(r"\^\s*(?:\{\s*\\circ\s*\}|\\circ(?![A-Za-z]))|°")
#: Whitespace and spacing commands, plus ``\left``/``\right``. ``\\`` is matched as a token of
#: its own so that the ``\,`` in a row break followed by a comma (``\\,``) is left alone.
_SPACING_RE = re.compile(r"\\\\|\\[,!;: ]|\\(?:left|right)(?![A-Za-z])|\s+")
_BRACE_TOKEN_RE = re.compile(r"\\.|[{}]", re.DOTALL)
#: Signs that an answer was cut from prose: a math delimiter (an unescaped ``$``, ``\\(``,
#: ``\\)``, ``\\[``, ``\\]``) or a plain word (three letters not after a backslash).
_PROSE_RE = re.compile(r"(?<!\\)\$|\\[()[\]]|(?<![\\A-Za-z])[A-Za-z]{3}")


def _drop_spacing(match: re.Match[str]) -> str:
    return match.group() if match.group() == "\\\\" else ""


def normalize(s: str) -> str:
    """A cheap canonical form: equal normal forms mean equivalent answers, with no parsing.

    Only rewrites that cannot change the value are applied: whitespace, spacing commands
    (``\\!``, ``\\,``, ``\\;``), ``\\left``/``\\right``, ``\\dfrac``/``\\tfrac`` -> ``\\frac``,
    degree marks, ``\\text{..}``/``\\mbox{..}`` wrappers, surrounding ``$`` and a trailing
    period. Digits, commas, brackets and letters are never touched, so ``5``/``500``,
    ``(1,2)``/``[1,2]`` and ``1,000``/``1000`` keep distinct forms (math-verify decides
    those). Non-string input normalises to ``""``, which matches nothing.
    """
    if not isinstance(s, str):
        return ""
    s = strip_answer(s)
    s = _TEXT_WRAPPER_RE.sub(r"\1", s)
    s = _FRAC_RE.sub(r"\\frac", s)
    s = _DEGREE_RE.sub("", s)
    s = _SPACING_RE.sub(_drop_spacing, s)
    return strip_answer(s)


def braces_balanced(s: str) -> bool:
    """Whether every ``{`` in ``s`` closes and no ``}`` closes nothing (escapes ignored).

    An unbalanced candidate is not checked: wrapped as ``\\boxed{..}`` its stray ``}`` would end
    the box early, so ``5} + 1`` would be read as ``5``, a false match.
    """
    depth = 0
    for token in _BRACE_TOKEN_RE.finditer(s):
        if token.group() == "{":
            depth += 1
        elif token.group() == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


@cache
def _configs() -> tuple[list[Any], list[Any]]:
    """The (gold, candidate) extraction configs, built once per process on first use."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig

    return (
        [LatexExtractionConfig()],
        [LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig()],
    )


def parse_gold(gold: str) -> list[Any]:
    """Parse a reference answer (MATH-style LaTeX without ``$``) for :func:`math_verify.verify`."""
    from math_verify import parse

    return parse("$" + strip_answer(gold) + "$", _configs()[0], parsing_timeout=None)


def parse_candidate(candidate: str) -> list[Any]:
    """Parse an extracted answer string for :func:`math_verify.verify`.

    ``[]`` (matches nothing) for non-strings, empty, over-long or brace-unbalanced strings.
    """
    if not isinstance(candidate, str):
        return []
    candidate = strip_answer(candidate)
    if not candidate or len(candidate) > MAX_ANSWER_CHARS or not braces_balanced(candidate):
        return []
    from math_verify import parse

    return parse("\\boxed{" + candidate + "}", _configs()[1], parsing_timeout=None)


def _parse_plain(candidate: str) -> list[Any]:
    """``candidate`` read as plain math-verify reads an answer, wrapped in ``$`` (the form its
    README shows); ``[]`` for what :func:`parse_candidate` refuses."""
    candidate = strip_answer(candidate)
    if not candidate or len(candidate) > MAX_ANSWER_CHARS or not braces_balanced(candidate):
        return []
    from math_verify import parse

    return parse("$" + candidate + "$", _configs()[1], parsing_timeout=None)


def _has_expression(readings: list[Any]) -> bool:
    """Whether math-verify read anything but the raw string (what it returns when it fails)."""
    return any(not isinstance(reading, str) for reading in readings)


def candidate_readings(gold: str, candidate: str) -> list[Any]:
    """Every reading of ``candidate`` that is checked against ``gold`` (the gold as rewritten
    by :func:`.rewrite.rewrite_answer`); :func:`math_verify.verify` matches if any one does.

    * the candidate as written, wrapped as ``\\boxed{..}`` (:func:`parse_candidate`);
    * when that found no expression (math-verify returns just the string: ``4\\)``,
      ``15 cm²``) or the candidate holds math delimiters or plain words (an answer statement
      cut from prose: ``indeed \\(8000\\)``, ``the answer 2, even though ...``), also the
      candidate wrapped in ``$``, as plain math-verify reads it: its fallbacks find values the
      box wrapper misses, and the reverse;
    * when :mod:`.rewrite` changes it (plain ``pi``, ``sqrt``, ordinals, words), also the
      rewritten candidate.

    So a rewrite can only add a match, and plain math-verify's reading is kept wherever the
    two wrappers can disagree; a clean answer (a box's content: numbers, LaTeX) is parsed
    once, as before.
    """
    readings = parse_candidate(candidate)
    if not _has_expression(readings) or _PROSE_RE.search(candidate):
        readings += _parse_plain(candidate)
    prepared = prepare_candidate(gold, candidate).text
    if prepared != candidate:
        readings += parse_candidate(prepared)
    return readings


@lru_cache(maxsize=1024)
def _gold_readings(gold: str) -> tuple[Any, ...]:
    """The gold parsed as :mod:`.rewrite` rewrites it and, where that changes it, as written.

    Cached per process: a grading worker sees the same gold in several calls (the locator
    grades a trace's candidates lazily, a run may sample a problem more than once), and the
    parse costs about as much as a candidate's. sympy objects are immutable, so sharing them
    between checks is safe; a parse that raises is not cached.
    """
    rewritten = rewrite_answer(gold).text
    readings = parse_gold(rewritten)
    if rewritten != gold:
        readings += parse_gold(gold)
    return tuple(readings)


def _usable(answer: object) -> bool:
    return isinstance(answer, str) and 0 < len(answer) <= MAX_ANSWER_CHARS


def first_equivalent(
    gold: str,
    candidates: Sequence[str],
    on_progress: Callable[[int], None] | None = None,
) -> int | None:
    """Index of the first candidate equivalent to ``gold``, or ``None``.

    Gold and candidates are read as :func:`candidate_readings` says (rewritten by
    :mod:`.rewrite` where math-verify misreads them, and as written). The gold is parsed once
    per process, lazily (not at all when a candidate matches on the fast path), and
    candidates are checked in order, stopping at the first match: this is one worker call.
    ``on_progress(i)`` is called before the symbolic check of candidate ``i`` (and with
    :data:`GOLD_PROGRESS` before the gold is parsed) so that a watchdog in another process can
    tell which input a stuck call is stuck on. An error on a candidate counts as "not
    equivalent"; this function never raises for bad input.
    """
    if not _usable(gold):
        return None
    from math_verify import verify

    rewritten_gold = rewrite_answer(gold).text
    gold_norm = normalize(rewritten_gold)
    gold_parsed: list[Any] | None = None
    for index, candidate in enumerate(candidates):
        if not _usable(candidate):
            continue
        if gold_norm and normalize(prepare_candidate(rewritten_gold, candidate).text) == gold_norm:
            return index
        try:
            if gold_parsed is None:
                if on_progress is not None:
                    on_progress(GOLD_PROGRESS)
                gold_parsed = list(_gold_readings(gold))
            if on_progress is not None:
                on_progress(index)
            parsed = candidate_readings(rewritten_gold, candidate)
            if parsed and gold_parsed and verify(gold_parsed, parsed, timeout_seconds=None):
                return index
        except Exception:  # any failure inside math-verify or sympy means "no match"
            continue
    return None


def equivalent(gold: str, candidate: str) -> bool:
    """Whether ``candidate`` is equivalent to ``gold``: fast path, then math-verify.

    Not symmetric, like :func:`math_verify.verify`: pass the reference answer first. Any
    exception counts as not equivalent.
    """
    return first_equivalent(gold, [candidate]) == 0


#: Values given to the free symbols of a difference, in order of their names: irrational-looking
#: rationals, far from the integers and simple fractions where identities can fail to hold
#: (poles, branch points) and from each other.
_GENERIC_POINT = ("0.5772156649", "1.6180339887", "2.3183098862", "3.7182818285", "4.4142135624")
#: A difference counts as plainly nonzero when its value exceeds this share of the operands'
#: magnitudes; values of a true identity at 30 digits are some twenty orders of magnitude smaller.
_NONZERO_SHARE = 1e-9


def plainly_nonzero_difference(a: Any, b: Any) -> bool:
    """True when the sympy expressions ``a`` and ``b`` provably differ: ``a - b`` evaluated at a
    generic point is finite and plainly nonzero. False means "cannot tell" (never "equal").

    Scalar expressions are evaluated, and matrices of one shape entry by entry (one plainly
    nonzero entry of the difference keeps ``simplify`` from making it the zero matrix); sets,
    tuples and relations answer False. A percentage (latex2sympy's ``2*UnevaluatedExpr(1/100)``,
    which ``evalf`` leaves as it is) is evaluated as its value, as ``simplify`` evaluates it.
    """
    from sympy import Expr, Float, MatrixBase, UnevaluatedExpr

    if isinstance(a, MatrixBase) and isinstance(b, MatrixBase):
        return a.shape == b.shape and any(map(plainly_nonzero_difference, a, b))
    if not (isinstance(a, Expr) and isinstance(b, Expr)):
        return False
    a, b = (e.replace(UnevaluatedExpr, lambda inner: inner) for e in (a, b))
    difference = a - b
    symbols = sorted(a.free_symbols | b.free_symbols, key=str)
    point = {
        symbol: Float(_GENERIC_POINT[i % len(_GENERIC_POINT)], 30) + i // len(_GENERIC_POINT)
        for i, symbol in enumerate(symbols)
    }
    values = [e.evalf(30, subs=point) for e in (difference, a, b)]
    if not all(v.is_number and v.is_finite for v in values):
        return False
    gap, size_a, size_b = (abs(complex(v)) for v in values)
    return gap > _NONZERO_SHARE * (1 + size_a + size_b)


def with_numeric_witness(symbolic_eq: Callable[..., bool]) -> Callable[..., bool]:
    """``symbolic_eq`` (math-verify's ``simplify(a - b)`` test) answering "not equal" at once
    for pairs that :func:`plainly_nonzero_difference` settles, and as before for the rest."""
    return _settling_first(symbolic_eq, plainly_nonzero_difference, "numeric_witness")


def _settling_first(
    compare: Callable[..., bool], settles: Callable[[Any, Any], bool], mark: str
) -> Callable[..., bool]:
    """``compare(gold, pred, ...)``, one of math-verify's comparison steps, answering "not
    equal" at once where ``settles(gold, pred)`` proves the pair apart, and as before for the
    rest, also where ``settles`` fails (math-verify then decides as it always did). ``mark``
    names the guard on the returned function, so that installing it twice is a no-op."""

    def settled(gold: Any, pred: Any, *rest: Any) -> bool:
        try:
            if settles(gold, pred):
                return False
        except Exception:
            pass
        return compare(gold, pred, *rest)

    setattr(settled, mark, True)
    return settled


def _install(
    step: str, guard: Callable[[Callable[..., bool]], Callable[..., bool]], mark: str
) -> None:
    """Replace math-verify's comparison step ``step`` (a name in ``math_verify.grader``) by
    ``guard`` of it in this process, unless the guard ``mark`` names is on it already."""
    from math_verify import grader

    current = getattr(grader, step)
    if not getattr(current, mark, False):
        setattr(grader, step, guard(current))


def install_numeric_witness() -> None:
    """Guard math-verify's symbolic step in this process (see the module docstring); grading
    workers call it at start. Idempotent."""
    _install("sympy_symbolic_eq", with_numeric_witness, "numeric_witness")


@lru_cache(maxsize=256)
def _gold_solutions(gold: Any) -> list[Any]:
    """``solve(gold, gold.free_symbols)``, as math-verify solves an equation (sympy objects are
    immutable and hashable: one solve per gold and worker). A solve that raises is not cached."""
    from sympy import solve

    solutions: list[Any] = solve(gold, gold.free_symbols)
    return solutions


def solves_for_other_symbols(gold: Any, pred: Any) -> bool:
    """True when the equations ``gold`` and ``pred`` can never be equal by their solutions:
    some solution of ``gold`` solves for symbols of which ``pred`` has none. False means
    "cannot tell" (never "equal")."""
    from sympy import Eq

    if not (isinstance(gold, Eq) and isinstance(pred, Eq)):
        return False
    return any(
        isinstance(solution, dict) and solution and not (set(solution) & pred.free_symbols)
        for solution in _gold_solutions(gold)
    )


def with_solved_gold(solve_and_compare: Callable[..., bool]) -> Callable[..., bool]:
    """``solve_and_compare`` (math-verify's ``sympy_solve_and_compare(gold, pred, ...)``)
    answering "not equal" at once for pairs :func:`solves_for_other_symbols` settles.

    math-verify pairs the solutions of both in order, strictly (a count that differs raises,
    which it counts as "not equal"), and requires the same solved symbols in each pair; a
    solution of ``pred`` solves only for symbols of ``pred``, so a gold solution that solves for
    none of them pairs with nothing."""
    return _settling_first(solve_and_compare, solves_for_other_symbols, "solved_gold")


def install_solved_gold() -> None:
    """Settle equations by the gold's solved symbols in this process (see the module
    docstring); grading workers call it at start. Idempotent."""
    _install("sympy_solve_and_compare", with_solved_gold, "solved_gold")


def _plainly_several(values: Sequence[Any]) -> bool:
    """Whether some two of the sympy numbers ``values`` plainly differ (at 30 digits)."""
    if len(values) < 2 or not all(getattr(v, "is_number", False) for v in values):
        return False
    points = [complex(v.evalf(30)) for v in values]
    return any(
        abs(u - v) > _NONZERO_SHARE * (1 + abs(u) + abs(v))
        for i, u in enumerate(points)
        for v in points[i + 1 :]
    )


def set_against_one_value(a: Any, b: Any) -> bool:
    """True when math-verify's ``sympy_compare_sets(a, b)`` can only answer "not equal": one of
    ``a``, ``b`` is a set of more than one real (an interval of positive length, a finite set
    of two plainly different numbers) and the other is no set or tuple, which math-verify
    compares as a one-element set. False means "cannot tell" (never "equal")."""
    from sympy import FiniteSet, Interval, Set, Tuple

    for several, one in ((a, b), (b, a)):
        if isinstance(one, (Set, Tuple)):
            continue
        if isinstance(several, Interval) and (several.end - several.start).is_extended_positive:
            return True
        if isinstance(several, FiniteSet) and _plainly_several(several.args):
            return True
    return False


def with_set_shortcut(compare_sets: Callable[..., bool]) -> Callable[..., bool]:
    """``compare_sets`` (math-verify's ``sympy_compare_sets(gold, pred, ...)``) answering "not
    equal" at once for pairs :func:`set_against_one_value` settles, and as before for the rest."""
    return _settling_first(compare_sets, set_against_one_value, "set_shortcut")


def install_set_shortcut() -> None:
    """Settle sets against single values in this process (see the module docstring); grading
    workers call it at start. Idempotent."""
    _install("sympy_compare_sets", with_set_shortcut, "set_shortcut")


def install_two_stage_parsing() -> None:
    """Have latex2sympy parse in ANTLR's SLL mode first, in its default LL mode only when that
    fails (see the module docstring); grading workers call it at start. Idempotent.

    An SLL failure is a syntax error latex2sympy's listener raises (any exception): the LL
    parse then runs on a fresh parser and decides, as it always did."""
    from antlr4.atn.PredictionMode import PredictionMode
    from latex2sympy2_extended import latex2sympy2

    converter = getattr(latex2sympy2, "_Latex2Sympy", None)
    create = getattr(converter, "create_parser", None)
    if converter is None or create is None or getattr(create, "two_stage", False):
        return  # installed already, or another latex2sympy layout (parsed as before)

    def create_parser(self: Any, latex_str: str) -> Any:
        parser = create(self, latex_str)
        parser._interp.predictionMode = PredictionMode.SLL
        parse_sll = parser.math

        def math() -> Any:
            try:
                return parse_sll()
            except Exception:
                return create(self, latex_str).math()

        parser.math = math
        return parser

    create_parser.two_stage = True  # type: ignore[attr-defined]
    converter.create_parser = create_parser


def warm_up() -> None:
    """Import math-verify and run one check, so a fresh worker's first real call is fast."""
    equivalent("\\frac{1}{2}", "0.5")
