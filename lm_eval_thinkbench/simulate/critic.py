"""Simulated critics for ProcessBench and DeltaBench: critiques with a known verdict.

The end-to-end tests run the real ``lm_eval`` command on the critic tasks with no model
weights. In the ``reasoning`` style a critique is a DeepSeek-R1-style chain of thought
(``<think>...``), then an answer; in the ``plain`` style it is what a critic that does not
reason (GPT-4o, Qwen2.5-72B-Instruct) writes: the verdict with a short explanation, no thought
markers at all. The verdict is fixed in advance per document, seed and style: right, wrong,
"no error", duplicated or out-of-range section numbers, free-form prose, unreadable, boxes and
entries that the benchmarks' official readings and the tolerant ones read differently, or
(reasoning style only) cut off before ``</think>``. :func:`processbench_truth` and
:func:`deltabench_truth` return the verdict a correct parser must read from the answer under
each reading, so a test derives every expected figure from them, never from the plugin's own
parser or scorer.

Traps for parsers that read too much: drafts of a different verdict inside the reasoning, an
earlier box before the final one, truncated critiques whose reasoning already holds a verdict;
and for parsers that expect a thought: plain replies with none.

Importing this module registers the responders with ``thinkbench-sim`` (keyed by a field only
the documents of each benchmark have). Everything is deterministic in (document id, seed).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval_thinkbench.simulate import RESPONDERS
from lm_eval_thinkbench.simulate.traces import SimTrace, TraceTruth

REASONING, PLAIN = "reasoning", "plain"
STYLES = (REASONING, PLAIN)

PROCESSBENCH_WEIGHTS: dict[str, float] = {
    "right": 0.35,
    "decoy": 0.10,
    "worded": 0.05,
    "dotted": 0.05,
    "empty_box": 0.05,
    "wrong": 0.15,
    "unboxed": 0.10,
    "garbled": 0.05,
    "truncated": 0.10,
}
DELTABENCH_WEIGHTS: dict[str, float] = {
    "exact": 0.15,
    "partial": 0.15,
    "no_error": 0.10,
    "duplicate": 0.10,
    "out_of_range": 0.10,
    "inline_list": 0.05,
    "placeholder": 0.05,
    "free_form": 0.10,
    "unparseable": 0.10,
    "truncated": 0.10,
}


#: A critic that does not reason writes no thought, so it is never cut off inside one.
_PLAIN_EXCLUDED = ("truncated",)


@dataclass(frozen=True)
class ProcessBenchTruth:
    """The index the answer boxes (-1: no error), None if unreadable: ``prediction`` as
    ProcessBench's official script reads it, ``tolerant`` under the tolerant reading (they
    differ on ``\\boxed{\\text{paragraph 3}}``, ``\\boxed{3.}`` and a trailing ``\\boxed{}``)."""

    scenario: str
    prediction: int | None
    tolerant: int | None


@dataclass(frozen=True)
class DeltaBenchTruth:
    """The distinct sections the answer flags (``()``: "no error"), None if it flags nothing
    readable: ``official`` as DeltaBench's evaluation.py reads them, ``sections`` under the
    tolerant reading. They differ on an entry listing several numbers (the script takes the
    first), an entry that copies the template's "[section number]" (the script flags -1) and a
    free-form reply (the script reads no "Conclusion:" and no "yes" as nothing flagged)."""

    scenario: str
    sections: tuple[int, ...] | None
    official: tuple[int, ...] | None


def _rng(doc: Mapping[str, Any], seed: int, kind: str, style: str = REASONING) -> random.Random:
    if style not in STYLES:
        raise ValueError(f"unknown critic style {style!r}; known: {', '.join(STYLES)}")
    # The reasoning style keeps the key it always had, so its draws do not move.
    key = f"{kind}\x00{doc.get('id', '')}\x00{seed}" + (
        "" if style == REASONING else f"\x00{style}"
    )
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def _draw(rng: random.Random, weights: Mapping[str, float], style: str) -> str:
    if style == PLAIN:
        weights = {k: w for k, w in weights.items() if k not in _PLAIN_EXCLUDED}
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def respond_critic(
    doc: Mapping[str, Any], seed: int = 0, style: str = REASONING
) -> SimTrace | None:
    """The simulated critique of a ProcessBench or DeltaBench ``doc`` in ``style``; None for
    a document of another kind. (``simulate.respond`` gives the ``reasoning`` style.)"""
    if "final_answer_correct" in doc:
        return respond_processbench(doc, seed, style)
    if "truth_sections" in doc:
        return respond_deltabench(doc, seed, style)
    return None


# ----- ProcessBench --------------------------------------------------------------------------


def processbench_truth(
    doc: Mapping[str, Any], seed: int = 0, style: str = REASONING
) -> ProcessBenchTruth:
    """The verdict the simulated critic gives on a ProcessBench ``doc``."""
    return _processbench_plan(doc, seed, style)[0]


#: Scenarios whose box both readings read as the argued index, and those only the tolerant
#: reading reads (the official script's ``int()`` rejects ``paragraph 3`` and ``3.``, and its
#: last box is the trailing empty one).
_BOTH_READ = ("right", "decoy", "wrong")
_TOLERANT_READS = ("worded", "dotted", "empty_box")


def _processbench_plan(
    doc: Mapping[str, Any], seed: int, style: str
) -> tuple[ProcessBenchTruth, int, int]:
    """(truth, the index the critique argues for, a decoy index), all from one generator."""
    rng = _rng(doc, seed, "processbench", style)
    scenario = _draw(rng, PROCESSBENCH_WEIGHTS, style)
    n = max(1, len(doc.get("steps") or ()))
    label = doc["label"] if isinstance(doc.get("label"), int) else -1
    wrong = rng.choice([i for i in range(-1, n) if i != label])
    argued = wrong if scenario == "wrong" else label
    decoy = rng.choice([i for i in range(-1, n) if i != argued])
    official = argued if scenario in _BOTH_READ else None
    tolerant = argued if scenario in _BOTH_READ + _TOLERANT_READS else None
    return ProcessBenchTruth(scenario, official, tolerant), argued, decoy


def respond_processbench(doc: Mapping[str, Any], seed: int = 0, style: str = REASONING) -> SimTrace:
    truth, argued, decoy = _processbench_plan(doc, seed, style)
    rng = _rng(doc, seed, "processbench-text", style)
    steps: Sequence[str] = doc.get("steps") or ()
    paras = ["Okay, let me go through the solution one paragraph at a time."]
    last = len(steps) - 1 if argued == -1 else argued
    for i in range(min(last + 1, len(steps))):
        if i == argued:
            paras.append(f"Paragraph {i} is where it breaks: {_snippet(steps[i])} does not follow.")
        else:
            paras.append(f"Paragraph {i} checks out: {_snippet(steps[i])} is fine.")
    if truth.scenario in ("unboxed", "truncated"):
        paras.append(f"A first draft of my verdict: \\boxed{{{decoy}}}, to be confirmed.")
    verdict = "no paragraph is wrong" if argued == -1 else f"paragraph {argued} is wrong"
    paras.append(f"Having read all of it, {verdict}.")
    if truth.scenario == "truncated":
        paras[-1] = paras[-1][: rng.randint(5, max(6, len(paras[-1]) - 5))]
        return _trace(truth.scenario, paras, "", None, False, truncated=True)
    summary = (
        "All paragraphs are correct."
        if argued == -1
        else f"The earliest error is in paragraph {argued}."
    )
    box = {
        "right": f"\\boxed{{{argued}}}",
        "wrong": f"\\boxed{{{argued}}}",
        "decoy": f"I briefly suspected $\\boxed{{{decoy}}}$, but that was wrong.\n\n"
        f"\\boxed{{{argued}}}",
        "worded": f"$\\boxed{{\\text{{paragraph }} {argued}}}$",
        "dotted": f"\\boxed{{{argued}.}}",
        "empty_box": f"\\boxed{{{argued}}}\n\n(The index goes in \\boxed{{}}, as asked.)",
        "unboxed": "",
        "garbled": f"\\boxed{{{argued} or {decoy}}}",
    }[truth.scenario]
    content = f"{summary}\n\n{box}".strip()
    if style == PLAIN:
        # No thought: the paragraph checks become the short explanation before the verdict.
        content = "\n".join(p.split(": ")[0] + "." for p in paras[1:-1]) + "\n\n" + content
        paras = []
    correct = truth.prediction is not None and truth.prediction == doc.get("label")
    return _trace(truth.scenario, paras, content, truth.prediction, correct)


# ----- DeltaBench ----------------------------------------------------------------------------


def deltabench_truth(
    doc: Mapping[str, Any], seed: int = 0, style: str = REASONING
) -> DeltaBenchTruth:
    """The verdict the simulated critic gives on a DeltaBench ``doc``."""
    return _deltabench_plan(doc, seed, style)[0]


def _deltabench_plan(
    doc: Mapping[str, Any], seed: int, style: str
) -> tuple[DeltaBenchTruth, list[int]]:
    """(truth, the numbers as the answer writes them, in order, duplicates included)."""
    rng = _rng(doc, seed, "deltabench", style)
    scenario = _draw(rng, DELTABENCH_WEIGHTS, style)
    truth = sorted(int(n) for n in doc.get("truth_sections") or ())
    n = max(1, int(doc.get("n_sections") or 1))
    clean = [i for i in range(1, n + 1) if i not in truth]
    written = list(truth)
    if scenario == "no_error":
        written = []
    elif scenario == "partial":
        written = truth[: max(1, len(truth) // 2)] + ([rng.choice(clean)] if clean else [])
    elif scenario == "duplicate" and truth:
        written = [*truth, truth[0]]
    elif scenario == "out_of_range":
        written = [*truth, n + 3]
    if scenario in ("unparseable", "truncated"):
        return DeltaBenchTruth(scenario, None, None), []
    tolerant = tuple(sorted(set(written)))
    official: tuple[int, ...] | None = tolerant
    if scenario == "free_form":
        official = None
    elif scenario == "inline_list":
        official = tuple(written[:1])
    elif scenario == "placeholder" and written:
        official = tuple(sorted({*written, -1}))
    return DeltaBenchTruth(scenario, tolerant, official), written


def respond_deltabench(doc: Mapping[str, Any], seed: int = 0, style: str = REASONING) -> SimTrace:
    truth, written = _deltabench_plan(doc, seed, style)
    rng = _rng(doc, seed, "deltabench-text", style)
    n = max(1, int(doc.get("n_sections") or 1))
    paras = ["Okay, I need to judge each section on its own."]
    for i in range(1, n + 1):
        verdict = "has a problem" if i in written else "holds up"
        paras.append(f"Section {i} {verdict} as far as I can tell.")
    if truth.scenario in ("unparseable", "truncated"):
        paras.append(f"Draft: Conclusion: yes\nError Section Number: {n + 7}")
    if truth.scenario == "truncated":
        paras[-1] = paras[-1][: rng.randint(4, len(paras[-1]) - 2)]
        return _trace(truth.scenario, paras, "", None, False, truncated=True)
    content = _deltabench_answer(truth.scenario, written, rng)
    if style == PLAIN:
        # GPT-4o-style: the template straight away, after one line of preamble at most.
        content = ("I checked each section on its own.\n\n" if rng.random() < 0.5 else "") + content
        paras = []
    sections = truth.sections
    correct = sections is not None and list(sections) == sorted(doc.get("truth_sections") or ())
    answer = None if sections is None else ",".join(map(str, sections)) or "no error"
    return _trace(truth.scenario, paras, content, answer, correct)


def _deltabench_answer(scenario: str, written: list[int], rng: random.Random) -> str:
    bold = rng.random() < 0.3
    label = (lambda s: f"**{s}**") if bold else (lambda s: s)
    if scenario == "unparseable":
        return "I am not able to judge this solution with confidence."
    if scenario == "free_form":
        if not written:
            return "After reading everything carefully, all sections are correct."
        named = " and ".join(f"section {k}" for k in written)
        return f"Sections before that look fine. I believe the mistake is in {named}."
    if not written:
        return f"{label('Conclusion:')} no error"
    lines = [f"{label('Conclusion:')} yes"]
    if scenario == "inline_list":
        lines += [
            f"{label('Error Section Number:')} {', '.join(map(str, written))}",
            "Explanation: these sections contain the flawed steps.",
        ]
    else:
        for k in written:
            lines += [
                f"{label('Error Section Number:')} {k}",
                f"Explanation: the reasoning in this part is not valid (claim {k + 11}).",
            ]
    if scenario == "placeholder":
        # The template's own placeholder entry, copied as a weak critic does.
        lines += [
            f"{label('Error Section Number:')} [section number]",
            "Explanation: [explanation for the error in this section]",
        ]
    return "\n".join(lines)


# ----- shared --------------------------------------------------------------------------------


def _snippet(text: str) -> str:
    words = str(text).split()
    return 'the part starting "' + " ".join(words[:6]).replace("\\", "") + '"'


def _trace(
    scenario: str,
    paras: list[str],
    content: str,
    answer: object,
    correct: bool,
    truncated: bool = False,
) -> SimTrace:
    """A critique as a ``SimTrace``; the math-specific truth fields say "no answer located"."""
    return SimTrace(
        reasoning="\n\n".join(p.strip() for p in paras if p.strip()),
        content=content,
        truth=TraceTruth(
            scenario=scenario,
            final_answer=None if answer is None else str(answer),
            final_correct=correct,
            first_correct_step=None,
            first_correct_char_end=None,
            thought_num=0,
            truncated=truncated,
            steps=sum(1 for p in paras if p.strip()),
        ),
    )


RESPONDERS["final_answer_correct"] = respond_processbench
RESPONDERS["truth_sections"] = respond_deltabench
