"""Simulated DeepSeek-R1-style reasoning traces whose ground truth is known exactly.

No model weights exist where the tests, the offline demo and CI run, yet an end-to-end run must
be able to assert every think-efficiency metric. This module writes realistic chains of thought
for MATH-500 problems (problem restatement, intermediate LaTeX computations, wrong attempts,
re-checks, thought switches) and records, while writing, what a perfect analyser must find:
the first step that commits to the gold answer, the number of switch phrases, the boxed final
answer, whether the trace was cut off.

Conventions the metrics code relies on:

* Steps are the ``"\\n\\n"``-separated paragraphs of ``reasoning``; no paragraph contains a blank
  line and ``reasoning`` has no leading or trailing whitespace, so the text a splitter gets by
  taking what lies between ``<think>`` and ``</think>`` and stripping it *is* ``reasoning``.
  ``first_correct_char_end`` is an offset into that string.
* An *answer statement* is ``\\boxed{X}``, "the answer is $X$", "the final answer is $X$",
  "Answer: $X$", or a sentence starting with So/Thus/Therefore/Hence that ends in "is $X$" or
  "$= X$". Only commit paragraphs contain answer statements; everything else (restatement,
  computations, decoys) is worded so that no such rule fires, and never starts a sentence with
  So/Thus/Therefore/Hence.
* Switch phrases ("alternatively", "but wait", "wait,", "let me reconsider", "another approach",
  "another way", "another method", "on second thought", "hmm, wait") appear only in the
  sentences that declare them, and ``thought_num`` is the sum of those declarations, counted
  the way the metric counts them (case-insensitive, non-overlapping, longest first).
* Wrong answers are distinctive integers (``wrong_answer``) that no checker can confuse with
  the gold; the correct answer is always written exactly as ``doc["answer"]``.

Everything is pure and deterministic in (``doc["unique_id"]``, ``seed``): Python's ``hash`` is
salted per process, so the seed is derived with SHA-256 instead.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: How often each scenario is drawn when none is forced. The mix resembles what R1-style
#: models do on MATH-500: mostly correct, often with long re-checking after the answer.
SCENARIO_WEIGHTS: dict[str, float] = {
    "direct": 0.25,
    "overthink": 0.25,
    "late": 0.15,
    "abandon": 0.07,
    "wrong": 0.12,
    "truncated": 0.08,
    "no_box": 0.08,
}
SCENARIOS: tuple[str, ...] = tuple(SCENARIO_WEIGHTS)

#: Rough characters per token of English mixed with LaTeX; ``target_tokens`` is converted with it.
CHARS_PER_TOKEN = 4

#: Prefix every MATH-500 problem in our copy carries; restating it would put a ``\boxed{}``
#: (an answer statement, albeit empty) into the first step.
_BOX_INSTRUCTION = "Return your final response within \\boxed{}."

#: Relative length of each scenario (reflection and dead ends make traces longer).
_LENGTH_FACTOR: dict[str, float] = {
    "direct": 0.7,
    "overthink": 1.6,
    "late": 1.3,
    "abandon": 1.3,
    "wrong": 1.4,
    "truncated": 2.2,
    "no_box": 0.8,
}

#: Anything in a restated problem that an answer locator or a switch counter could fire on.
_UNSAFE_RESTATEMENT = re.compile(
    r"(?i)boxed|answer\s*(?:is|:)|(?:^|[.!?:]\s+|\n)(?:so|thus|therefore|hence)\b"
    r"|(?<!\w)(?:alternatively|but wait|wait,|let me reconsider|another approach|another way"
    r"|another method|on second thought|hmm, wait)(?!\w)"
)

#: Sentences that open a rethink after a wrong or doubtful step: (text, switch phrases in it).
_SWITCH_LEADS: tuple[tuple[str, int], ...] = (
    ("Wait, that doesn't look right.", 1),
    ("But wait, I should double-check one of the steps.", 1),
    ("Hmm, wait, I think I made an error somewhere.", 1),
    ("Alternatively, maybe I misread the setup.", 1),
    ("Let me reconsider the whole setup.", 1),
    ("Another approach might work better here.", 1),
    ("On second thought, that last step is suspicious.", 1),
    ("Let me try another method for this part.", 1),
    ("Wait, but wait, let me look at this again.", 2),
)

#: Sentences that open a re-check of an answer already found (overthinking).
_VERIFY_LEADS: tuple[tuple[str, int], ...] = (
    ("Wait, let me verify that.", 1),
    ("Let me verify this by substituting back.", 0),
    ("Alternatively, I can check it another way.", 2),
    ("Hmm, let me double-check.", 0),
    ("Hmm, wait, is that consistent with every condition?", 1),
    ("But wait, maybe there's a subtlety I missed.", 1),
    ("Another way to confirm is to redo the computation in a different order.", 1),
    ("On second thought, let me recompute that carefully.", 1),
    ("Just to be safe, let me go through it once more.", 0),
)

_IDEAS: dict[str, tuple[str, ...]] = {
    "Algebra": ("isolating the variable", "completing the square", "factoring the quadratic"),
    "Counting & Probability": (
        "counting the complement",
        "splitting into cases",
        "using a stars-and-bars argument",
    ),
    "Geometry": ("similar triangles", "the Pythagorean theorem", "dropping an altitude"),
    "Intermediate Algebra": ("Vieta's formulas", "a clever substitution", "AM-GM"),
    "Number Theory": (
        "working modulo a small prime",
        "prime factorisation",
        "the Euclidean algorithm",
    ),
    "Prealgebra": ("careful arithmetic", "converting units first", "a common denominator"),
    "Precalculus": ("a trigonometric identity", "polar form", "writing it with matrices"),
}
_DEFAULT_IDEAS = ("a direct computation", "a substitution", "looking for a pattern")

#: Working sentences (``str.format`` templates filled by ``_Writer.neutral``). None states an
#: answer, starts with So/Thus/Therefore/Hence, or contains a switch phrase.
_NEUTRAL: tuple[str, ...] = (
    "Let me compute ${a} \\times {b}$ first: that gives ${ab}$, which I need later.",
    "The fraction $\\frac{{{ag}}}{{{b_cg}}}$ reduces to $\\frac{{{a}}}{{{b_c}}}$ after dividing "
    "top and bottom by ${g}$.",
    "Expanding $(x + {a})^2$ gives $x^2 + {a2}x + {aa}$ for the left-hand side.",
    "Adding the two pieces, ${a} + {b}$ makes ${a_b}$, though not every condition is used yet.",
    "Plugging in $n = {a}$ gives ${aab}$ for that term, which fits the pattern.",
    "The sum $\\sum_{{k=1}}^{{{a}}} k = \\frac{{{a}({a}+1)}}{{2}}$ comes to ${tri}$ here.",
    "Note that $\\sqrt{{{aa1}}}$ lies between ${a}$ and ${a1}$, a useful sanity bound.",
    "I need to be careful with the condition involving ${a}$; it rules out a few cases.",
    "Writing the relation as ${a}x + {b} = {b_c}$ gives $x = \\frac{{{c}}}{{{a}}}$ in that "
    "sub-case.",
    "Okay, {idea} should handle this part.",
    "Multiplying through by ${b}$ clears the denominator and keeps the inequality direction, "
    "since ${b} > 0$.",
    "First, let me figure out what the ${a}$ in the statement really represents.",
    "If I substitute $y = x + {a}$, the expression becomes a polynomial in $y$ of the same degree.",
    "Checking the case $x = {a}$: the left side comes to ${aab}$, which is larger than ${b}$.",
    "The denominator ${b}$ cannot be zero, and that excludes one value of the variable.",
    "Subtracting ${b}$ from ${a_b}$ brings me back to ${a}$, a good consistency check.",
    "Looking at units digits, ${ab}$ ends in ${ab_last}$.",
    "Factoring ${g}$ out of ${ag} + {bg}$ leaves ${g}({a} + {b})$.",
    "I'll keep $\\frac{{{a}}}{{{b_c}}}$ as a fraction rather than converting it to a decimal.",
    "Now I need to combine this with the earlier result involving ${c}$.",
    "Let me think about whether the order matters here.",
    "With ${a}$ choices for the first slot and ${b}$ for the second, there are ${ab}$ pairs.",
    "Let me make sure I have the setup right before moving on.",
    "Okay, let me keep going.",
    "Hmm, this part needs some care.",
    "Let me write down what I know at this point.",
    "Okay, that piece is settled; next comes the main computation.",
)


@dataclass(frozen=True)
class TraceTruth:
    """What a perfect analyser must report for one simulated response.

    ``final_answer`` is what the answer section states as final (boxed, except in ``no_box``,
    where it is written as "The final answer is $X$" without a box); None when there is no answer
    section (truncated). ``first_correct_step`` is the 0-based index, among the ``"\\n\\n"``
    separated steps of the reasoning, of the earliest step whose answer statement gives the gold
    answer; ``first_correct_char_end`` is where that step ends in ``reasoning`` (exclusive).
    """

    scenario: str
    final_answer: str | None
    final_correct: bool
    first_correct_step: int | None
    first_correct_char_end: int | None
    thought_num: int
    truncated: bool
    steps: int


@dataclass(frozen=True)
class SimTrace:
    """A simulated response: the chain of thought, the answer section and the truth about them."""

    reasoning: str
    content: str
    truth: TraceTruth

    def inline(self) -> str:
        """The response as a model without a reasoning parser returns it.

        The one newline after ``<think>`` and before ``</think>`` mirrors R1's output; a splitter
        that strips the text between the tags gets ``reasoning`` back exactly. A truncated trace
        ends inside the reasoning: no end tag, no answer section.
        """
        if self.truth.truncated:
            return "<think>\n" + self.reasoning
        return "<think>\n" + self.reasoning + "\n</think>\n\n" + self.content


def wrong_answer(gold: str, k: int) -> str:
    """The k-th wrong answer for ``gold``: an integer no equivalence checker can match to it.

    ``7919 * (k + 1) + 13`` (7932, 15851, ...) looks like no MATH-500 answer, so no checker can
    call it equivalent to the gold; a candidate that occurs inside the gold string is skipped.
    """
    j = k
    while True:
        candidate = str(7919 * (j + 1) + 13)
        if candidate not in gold and candidate != gold.strip():
            return candidate
        j += 1


def simulate(
    doc: Mapping[str, Any],
    seed: int = 0,
    scenario: str | None = None,
    target_tokens: int | None = None,
) -> SimTrace:
    """Write one simulated response to a MATH-500 ``doc``.

    ``doc`` needs ``problem`` and ``answer``; ``unique_id`` (falling back to the problem text)
    and ``seed`` fix the randomness, ``level`` (1-5) and ``subject`` shape the text. When
    ``scenario`` is None it is drawn from ``SCENARIO_WEIGHTS``. ``target_tokens`` asks for a
    reasoning of about that many tokens (at ``CHARS_PER_TOKEN``); by default length grows with
    the level and the scenario.
    """
    key = str(doc.get("unique_id") or doc["problem"])
    digest = hashlib.sha256(f"{key}\x00{seed}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    drawn = rng.choices(SCENARIOS, weights=[SCENARIO_WEIGHTS[s] for s in SCENARIOS])[0]
    chosen = scenario or drawn
    if chosen not in SCENARIO_WEIGHTS:
        raise ValueError(f"unknown scenario {chosen!r}; expected one of {', '.join(SCENARIOS)}")
    return _Writer(doc, rng, chosen, target_tokens).write()


@dataclass
class _Para:
    """One reasoning step while it is being written.

    Padding goes into ``body`` only, so a switch phrase stays at the start (``head``) and the
    answer statement at the end (``tail``). ``commit`` is the value this step's answer
    statements give, if any; ``switches`` counts the switch phrases in its sentences.
    """

    head: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)
    commit: str | None = None
    switches: int = 0
    paddable: bool = True

    def text(self) -> str:
        out = ""
        for piece in self.head + self.body + self.tail:
            # Pieces starting with a newline (display math, "Answer:" lines) attach directly.
            out += piece if not out or piece.startswith("\n") else " " + piece
        return out


class _Writer:
    """Builds one trace; holds the per-trace randomness and the values it may state."""

    def __init__(
        self, doc: Mapping[str, Any], rng: random.Random, scenario: str, target_tokens: int | None
    ) -> None:
        self.rng = rng
        self.scenario = scenario
        self.gold = str(doc["answer"]).strip()
        self.problem = str(doc["problem"])
        self.subject = str(doc.get("subject") or "math")
        self.level = _level(doc.get("level"))
        self.boxes = scenario != "no_box"
        nums = [int(n) for n in re.findall(r"\d+", self.problem) if 1 < int(n) < 1000]
        self.nums = nums[:6] or [3, 4, 5]
        factor = _LENGTH_FACTOR[scenario] * rng.uniform(0.75, 1.3)
        tokens = target_tokens if target_tokens is not None else (250 + 450 * self.level) * factor
        self.target_chars = int(tokens * CHARS_PER_TOKEN)
        self.n_steps = max(5, min(40, round(self.target_chars / rng.uniform(350, 650))))
        self.wrong_k = 0

    # ----- sentences -------------------------------------------------------------------------

    def _num(self) -> int:
        return self.rng.choice(self.nums) if self.rng.random() < 0.35 else self.rng.randint(2, 30)

    def neutral(self) -> str:
        """A sentence of working that commits to nothing and contains no switch phrase."""
        r = self.rng
        a, b, c, g = self._num(), self._num(), self._num(), r.randint(2, 6)
        values = {
            "a": a,
            "b": b,
            "ab": a * b,
            "a_b": a + b,
            "b_c": b + c,
            "c": c,
            "ag": a * g,
            "bg": b * g,
            "b_cg": (b + c) * g,
            "ab_last": a * b % 10,
            "g": g,
            "a2": 2 * a,
            "aa": a * a,
            "aab": a * a + b,
            "aa1": a * a + 1,
            "a1": a + 1,
            "tri": a * (a + 1) // 2,
            "idea": r.choice(self._ideas()),
        }
        return r.choice(_NEUTRAL).format(**values)

    def _ideas(self) -> tuple[str, ...]:
        return _IDEAS.get(self.subject, _DEFAULT_IDEAS)

    def statement(self, value: str) -> str:
        """A sentence that commits to ``value`` in one of the documented phrasings."""
        forms = [
            f"So the answer is ${value}$.",
            f"Thus the value we are looking for is ${value}$.",
            f"That means the answer is ${value}$.",
        ]
        if "=" not in value:
            forms.append(f"Therefore, the required value $= {value}$.")
        if self.boxes:
            forms += [
                f"Therefore, the final answer is $\\boxed{{{value}}}$.",
                f"Hence the result is $\\boxed{{{value}}}$.",
            ]
        return self.rng.choice(forms)

    def decoy(self) -> str:
        """Mentions the gold without committing to it (a trap for over-eager locators)."""
        return self.rng.choice(
            (
                f"One value I keep coming back to is ${self.gold}$, but I have not justified it.",
                f"Maybe something like ${self.gold}$ could come out, though I can't confirm it.",
            )
        )

    # ----- paragraphs ------------------------------------------------------------------------

    def restate(self) -> _Para:
        text = self.problem.removeprefix(_BOX_INSTRUCTION)
        text = re.sub(r"\[asy\].*?\[/asy\]", " (there is a figure) ", text, flags=re.S)
        text = " ".join(text.split())
        opener = self.rng.choice(
            (
                "Okay, let me look at this problem.",
                "Alright, let's see what the problem asks.",
                "Let me read the problem carefully.",
            )
        )
        if _UNSAFE_RESTATEMENT.search(text):
            text = f"It is a {self.subject} problem, and I will restate it in my own words."
        return _Para(head=[opener, text], paddable=False)

    def plan(self) -> _Para:
        idea = self.rng.choice(self._ideas())
        return _Para(
            head=[f"This looks like a job for {idea}."],
            body=[self.neutral()],
            tail=["Let me set things up step by step."],
        )

    def compute(self) -> _Para:
        return _Para(body=[self.neutral() for _ in range(self.rng.randint(1, 3))])

    def commit(self, value: str, lead: tuple[str, int] | None = None) -> _Para:
        para = _Para(body=[self.neutral()], tail=[self.statement(value)], commit=value)
        if lead is not None:
            para.head, para.switches = [lead[0]], lead[1]
        if self.rng.random() < 0.15:
            # "Answer: $X$" on its own line, as some distilled models write mid-reasoning.
            para.tail.append(f"\nAnswer: ${value}$")
        return para

    def rethink(self) -> _Para:
        lead = self.rng.choice(_SWITCH_LEADS)
        return _Para(head=[lead[0]], body=[self.neutral()], switches=lead[1])

    def verify(self) -> _Para:
        """A re-check of the gold answer already found; half of them restate it."""
        lead = self.rng.choice(_VERIFY_LEADS)
        para = _Para(head=[lead[0]], body=[self.neutral()], switches=lead[1])
        if self.rng.random() < 0.5:
            para.tail = [f"Yes, it still checks out, and the answer is ${self.gold}$."]
            para.commit = self.gold
        else:
            para.tail = ["That matches what I had before."]
        return para

    def closing(self, value: str) -> _Para:
        forms = [f"I'm fairly confident now. So the answer is ${value}$."]
        if self.boxes:
            forms += [
                f"**Final Answer**\n\\[\n\\boxed{{{value}}}\n\\]",
                f"Everything is consistent. Therefore, the final answer is $\\boxed{{{value}}}$.",
            ]
        return _Para(tail=[self.rng.choice(forms)], commit=value, paddable=False)

    def next_wrong(self) -> str:
        value = wrong_answer(self.gold, self.wrong_k)
        self.wrong_k += 1
        return value

    # ----- scenarios ---------------------------------------------------------------------------

    def _skeleton(self) -> tuple[list[_Para], int, int, str | None]:
        """The scenario's structural steps, the index range for filler steps, the final value."""
        r, gold = self.rng, self.gold
        paras = [self.restate(), self.plan()]
        if self.scenario in ("direct", "no_box"):
            paras.append(self.commit(gold))
            lo, hi = 2, len(paras) - 1
            if r.random() < 0.5:
                paras.append(self.verify())
            paras.append(self.closing(gold))
            return paras, lo, hi, gold
        if self.scenario == "overthink":
            paras += [self.compute(), self.commit(gold)]
            lo = len(paras)
            paras += [self.verify() for _ in range(r.randint(3, 6))]
            paras.append(self.closing(gold))
            return paras, lo, len(paras) - 1, gold
        if self.scenario in ("late", "wrong"):
            for _ in range(r.randint(2, 4)):
                paras += [self.commit(self.next_wrong()), self.rethink()]
            if r.random() < 0.4:
                paras.append(_Para(body=[self.neutral()], tail=[self.decoy()]))
            final = gold if self.scenario == "late" else self.next_wrong()
            paras.append(self.commit(final, lead=r.choice(_SWITCH_LEADS)))
            hi = len(paras) - 1
            paras.append(self.closing(final))
            return paras, 2, hi, final
        if self.scenario == "abandon":
            paras += [self.compute(), self.commit(gold)]
            paras += [self.rethink() for _ in range(r.randint(1, 3))]
            final = self.next_wrong()
            paras.append(self.commit(final, lead=r.choice(_SWITCH_LEADS)))
            paras.append(self.closing(final))
            return paras, 2, len(paras) - 2, final
        # truncated: either a found-then-rechecked trace or one still stuck on wrong attempts,
        # cut off by the token limit in the middle of ordinary working.
        if r.random() < 0.5:
            paras += [self.compute(), self.commit(gold)]
            paras += [self.verify() for _ in range(r.randint(2, 5))]
        else:
            for _ in range(r.randint(2, 4)):
                paras += [self.commit(self.next_wrong()), self.rethink()]
        cut_at = len(paras)
        paras.append(self.compute())
        return paras, 2, cut_at, None

    def write(self) -> SimTrace:
        paras, lo, hi, final = self._skeleton()
        for _ in range(max(0, self.n_steps - len(paras))):
            paras.insert(self.rng.randint(lo, hi), self.compute())
            hi += 1
        self._pad(paras)
        truncated = self.scenario == "truncated"
        if truncated:
            self._cut(paras[-1])
        texts = [p.text() for p in paras]
        reasoning = "\n\n".join(texts)
        first = next((i for i, p in enumerate(paras) if p.commit == self.gold), None)
        # Steps are joined by "\n\n": step i ends 2 characters before step i + 1 starts.
        first_end = None if first is None else len("\n\n".join(texts[: first + 1]))
        content = "" if final is None else self.answer_section(final)
        truth = TraceTruth(
            scenario=self.scenario,
            final_answer=final,
            final_correct=final == self.gold,
            first_correct_step=first,
            first_correct_char_end=first_end,
            thought_num=sum(p.switches for p in paras),
            truncated=truncated,
            steps=len(paras),
        )
        return SimTrace(reasoning=reasoning, content=content, truth=truth)

    def _pad(self, paras: list[_Para]) -> None:
        """Add working sentences until the reasoning reaches the target length."""
        total = sum(len(p.text()) + 2 for p in paras)
        paddable = [p for p in paras if p.paddable]
        while total < self.target_chars:
            para = self.rng.choice(paddable)
            sentence = self.neutral()
            para.body.insert(self.rng.randint(0, len(para.body)), sentence)
            total += len(sentence) + 1

    def _cut(self, para: _Para) -> None:
        """Stop mid-sentence, as generation does at the token limit (``para`` is pure working)."""
        text = para.text()
        lo, hi = len(text) * 0.3, len(text) * 0.8
        spaces = [i for i, ch in enumerate(text) if ch == " " and lo < i < hi]
        cut = text[: self.rng.choice(spaces)] if spaces else text
        para.head, para.body, para.tail = [], [cut.rstrip()], []

    def answer_section(self, value: str) -> str:
        """The summary after ``</think>``, ending with the final answer (boxed unless no_box)."""
        r = self.rng
        intro = r.choice(
            (
                "To solve the problem, I worked through the setup step by step.",
                "Here is a summary of the solution.",
                "**Solution**",
            )
        )
        steps = "\n".join(f"{i}. {self.neutral()}" for i in range(1, r.randint(3, 5)))
        if not self.boxes:
            final = f"The final answer is ${value}$."
        else:
            final = r.choice(
                (
                    f"The final answer is $\\boxed{{{value}}}$.",
                    f"Therefore, the answer is $\\boxed{{{value}}}$.",
                    f"**Final Answer**\n\\[\n\\boxed{{{value}}}\n\\]",
                )
            )
        return f"{intro}\n\n{steps}\n\n{final}"


def _level(raw: object) -> int:
    """MATH levels come as ints (our JSONL) or as "Level 3" (the original dataset)."""
    digits = re.sub(r"\D", "", str(raw))
    return min(5, max(1, int(digits))) if digits else 3
