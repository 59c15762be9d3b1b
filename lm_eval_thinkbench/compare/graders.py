"""Every grader's verdict on one response, with the strings it compared.

A user asks "why does my number differ from the harness's?": the answer is per document, in
what each grader extracted from the same text. Each harness grader is its task's own
``process_results`` (``lm_eval_graders.py``); the strings it compared are recorded by wrapping the
helper it calls (``is_equiv``, ``parse``), never by re-deriving them.

What each grader reads:

* ``thinkbench``: this project's checker (``math500.score.grade_response``): the final answer of
  the answer part (after the reasoning), graded with math-verify.
* ``hendrycks_math500``, ``minerva_math500`` (``exact_match``), ``minerva_math500_math_verify``:
  the response as lm-eval hands it to a standard task, :func:`harness_text`.
* ``math_verify``: plain math-verify, ``verify(parse("$gold$"), parse(text))`` on the same
  text with its default extraction (what lighteval-style scripts do).

A grader that raises (a malformed box makes hendrycks' ``remove_boxed`` assert) scores the
response wrong, as the harness's run would have stopped or scored it; the error is kept as
what it saw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval_thinkbench.compare import lm_eval_graders
from lm_eval_thinkbench.response import ModelResponse

#: Grader names in report order; ``thinkbench`` is ours.
OURS = "thinkbench"
HENDRYCKS = "hendrycks_math500"
MINERVA = "minerva_math500"
MINERVA_MV = "minerva_math500_math_verify"
MATH_VERIFY = "math_verify"
GRADERS = (OURS, HENDRYCKS, MINERVA, MINERVA_MV, MATH_VERIFY)
#: How much of an extracted string a report quotes.
QUOTE = 160


@dataclass(frozen=True)
class Verdict:
    """One grader on one response: correct or not, and what it compared (``saw``: the
    response's string, then the gold's, as that grader normalised them)."""

    correct: bool
    saw: str


def harness_text(response: ModelResponse) -> str:
    """The text a standard lm-eval task grades: the message content. lm-eval's API models
    return only ``content``, so a reasoning field the server split off never reaches the
    task; an inline chain of thought (``<think>...</think>``) is part of the text."""
    return response.content


def doc_for(problem: str, gold: str, solution: str | None = None) -> dict[str, str]:
    """The document the harness tasks grade against. Their ``process_docs`` take the gold
    from the solution's last ``\\boxed{}``; without the solution, ``\\boxed{gold}`` gives
    that same string (MATH-500's ``answer`` is exactly it)."""
    solution = solution if solution is not None else f"\\boxed{{{gold}}}"
    return {"problem": problem, "solution": solution, "answer": gold}


def hendrycks_verdict(text: str, doc: dict[str, str]) -> Verdict:
    module = lm_eval_graders.hendrycks()
    calls: list[tuple[Any, ...]] = []
    restore = lm_eval_graders.recording(module, "is_equiv", calls)
    try:
        score = module.process_results(doc, [text])["exact_match"]
    except Exception as exc:  # the grader's own failure on this response
        return Verdict(False, f"error: {type(exc).__name__}: {exc}")
    finally:
        restore()
    saw = "(not compared)"
    if calls:
        answer, gold = calls[-1][0], calls[-1][1]
        saw = _pair(_safe(module.strip_string, answer), _safe(module.strip_string, gold))
    return Verdict(bool(score), saw)


def minerva_verdicts(text: str, doc: dict[str, str]) -> tuple[Verdict, Verdict, object]:
    """minerva's ``exact_match`` and ``math_verify`` from one call of its
    ``process_results`` (on the document as its ``process_docs`` makes it), and what its
    math-verify ``parse`` made of the response (None when it did not get that far): plain
    math-verify parses the same text with the same defaults, and on a long response that
    parse is most of the time the comparison takes."""
    module = lm_eval_graders.minerva()
    try:
        gold = module.normalize_final_answer(
            module.remove_boxed(module.last_boxed_only_string(doc["solution"]))
        )
    except Exception as exc:  # an unusable gold: neither metric can hold
        failed = Verdict(False, f"error in the gold: {type(exc).__name__}: {exc}")
        return failed, failed, None
    mdoc = {**doc, "answer": gold}
    equiv: list[tuple[Any, ...]] = []
    parsed: list[tuple[Any, ...]] = []
    restores = [
        lm_eval_graders.recording(module, "is_equiv", equiv),
        lm_eval_graders.recording(module, "parse", parsed),
    ]
    try:
        scores = module.process_results(mdoc, [text])
    except Exception as exc:
        failed = Verdict(False, f"error: {type(exc).__name__}: {exc}")
        return failed, failed, None
    finally:
        for restore in restores:
            restore()
    exact = _pair(equiv[-1][0], equiv[-1][1]) if equiv else "(not compared)"
    mv, target = "(not compared)", None
    if len(parsed) >= 2:
        mv = _pair(_parsed(parsed[1][-1]), _parsed(parsed[0][-1]))
        target = parsed[1][-1] if parsed[1][:-1] == (text,) else None
    verdicts = Verdict(bool(scores["exact_match"]), exact), Verdict(bool(scores["math_verify"]), mv)
    return (*verdicts, target)


def math_verify_verdict(text: str, gold: str, target: object = None) -> Verdict:
    """``target``: ``parse(text)`` when the caller already has it."""
    from math_verify import parse, verify

    try:
        gold_parsed = parse(f"${gold}$")
        target = parse(text) if target is None else target
        correct = bool(verify(gold_parsed, target))
    except Exception as exc:
        return Verdict(False, f"error: {type(exc).__name__}: {exc}")
    return Verdict(correct, _pair(_parsed(target), _parsed(gold_parsed)))


def harness_verdicts(
    response: ModelResponse, problem: str, gold: str, solution: str | None = None
) -> dict[str, Verdict]:
    """The verdicts of every standard grader (all of :data:`GRADERS` but ours)."""
    text = harness_text(response)
    doc = doc_for(problem, gold, solution)
    minerva_exact, minerva_mv, target = minerva_verdicts(text, doc)
    return {
        HENDRYCKS: hendrycks_verdict(text, doc),
        MINERVA: minerva_exact,
        MINERVA_MV: minerva_mv,
        MATH_VERIFY: math_verify_verdict(text, gold, target),
    }


def _pair(answer: object, gold: object) -> str:
    return f"{_quote(answer)} vs gold {_quote(gold)}"


def _quote(value: object) -> str:
    text = str(value)
    return repr(text if len(text) <= QUOTE else text[:QUOTE] + "…")


def _parsed(result: object) -> str:
    """What math-verify extracted: the string forms of its parse result (``[]``: nothing)."""
    if isinstance(result, Sequence) and not isinstance(result, str):
        strings = [r for r in result if isinstance(r, str)]
        return " | ".join(strings) if strings else ("[]" if not result else str(result[0]))
    return str(result)


def _safe(fn: Callable[[str], str], value: object) -> object:
    try:
        return fn(value) if isinstance(value, str) else value
    except Exception:  # strip_string asserts on some inputs; show the raw one
        return value
