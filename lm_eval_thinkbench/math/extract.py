"""Find the final answer a model wrote, as a string, without any symbolic machinery.

Extraction is pure string work on purpose: it runs in the parent process on every response
(and the first-correct locator runs it on every answer statement of a reasoning trace), so it
must be cheap, must never raise and must stay linear on hostile input. Every scanner here makes
one left-to-right pass over the text (``re.finditer`` over single tokens, no backtracking
patterns), so a 1 MB response costs milliseconds, never a quadratic blow-up.

Deciding whether the extracted string is *right* is :mod:`.verify`'s job (math-verify, run in an
isolated worker by :mod:`.grader`).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

__all__ = [
    "Extraction",
    "all_boxed",
    "extract_final_answer",
    "last_boxed",
    "strip_answer",
]

#: ``\boxed`` or ``\fbox`` as a whole control word (``\boxedanswer`` is not a box).
_BOX_RE = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")
#: Brace tokens for matching: an escaped pair (``\{``, ``\}``, ``\\``) is one token that is
#: never a group delimiter, so ``\boxed{\{1,2\}}`` closes at the right brace.
_BRACE_TOKEN_RE = re.compile(r"\\.|[{}]", re.DOTALL)
#: The argument of a brace-less box (``\boxed 5``): LaTeX takes one token; models that write
#: this form mean "the rest of the word", so take up to whitespace, ``$`` or a brace.
_BARE_ARG_RE = re.compile(r"[^\s${}]+")
_SPACE_RE = re.compile(r"\s*")

#: "final answer is X", "Final Answer: X" (also with markdown bold around the phrase).
_FINAL_ANSWER_RE = re.compile(r"final\s+answer(?:\s*\*\*)?\s*(?:is\b|:)", re.IGNORECASE)
#: "answer is X", "Answer: X"; checked only after the final-answer phrase found nothing.
_ANSWER_RE = re.compile(r"\banswer(?:\s*\*\*)?\s*(?:is\b|:)", re.IGNORECASE)
#: Phrase rules in the order they are tried, with the method name each one records.
_PHRASES = (("final_answer_phrase", _FINAL_ANSWER_RE), ("answer_phrase", _ANSWER_RE))
#: A phrase value that is a sentence of words (two words first: "The smallest possible value
#: of c is π"), whose value is read as a conclusion's; "x = 5" and numbers are values as written.
_SENTENCE_VALUE = re.compile(r"[A-Za-z][a-z]+\s+[A-Za-z][a-z]*\b")
#: What may sit between the phrase and its value on the same line.
_PHRASE_GAP_RE = re.compile(r"[ \t:*]*")
#: End of a sentence inside a phrase value: a period followed by whitespace or the end.
#: ``3.5`` is not a sentence end, ``5. I hope`` is.
_SENTENCE_END_RE = re.compile(r"\.(?=\s|$)")
#: How far past a phrase a value (or the closing delimiter of its math) may reach. Answers are
#: short; the bound keeps every phrase lookup O(1) in the length of the response.
_VALUE_WINDOW = 1000

#: The start of a conclusion in words: a sentence (after a line break or ". ") opening with
#: So, Thus, Therefore, Hence, Finally, Consequently, In conclusion or In summary. The leading
#: lookahead only restates the keywords' first letters; it lets the engine skip most positions.
#: The words a conclusion sentence opens with (also read by ``locate.commit``).
CONCLUSION_OPENERS = (
    r"(?:so|thus|therefore|hence|finally|consequently|in\s+conclusion|in\s+summary)\b"
)
_CONCLUSION_RE = re.compile(
    r"(?=[ \t>*#stfhciSTFHCI-])(?:^|(?<=[.!?]\s)|(?<=\n))[ \t>*#-]*" + CONCLUSION_OPENERS,
    re.IGNORECASE,
)
#: What ends a sentence, and the math delimiters a sentence end inside math must not count.
_SENTENCE_TOKEN_RE = re.compile(r"\\\\|\\\$|\$\$?|\\[()[\]]|[.!?](?=\s|$)|\n")
_SENTENCE_ENDS = frozenset(".!?\n")
#: The verb a conclusion states its value with; the value is what follows the last one.
_CONCLUSION_VERB_RE = re.compile(
    r"\b(?:is|are|was|were)(?:\s+equal\s+to)?\b|\bequals\b|=", re.IGNORECASE
)
#: A heading that opens a further step of the working ("**3. Calculate f(6)**", "4. **Find
#: the radius:**", "## Step 2"), unless it heads the conclusion or the answer.
_NEXT_STEP_RE = re.compile(
    r"(?m)^[ \t]*(?:#+[ \t]*|\*\*[ \t]*)?(?:step[ \t]*)?\d+[.):][ \t]*(?:\*\*[ \t]*)?"
    r"(?!(?i:final|conclusion|answer|summary|result)\b)(?i:[a-z])"
)
#: A number standing alone in a sentence's words: ``4``, ``-2.5``, ``3/4``, ``1,000``; not a part
#: of a word or formula (``2x``, ``x^2``, ``f(3)``, ``24-hour``).
_LONE_NUMBER_RE = re.compile(
    r"(?<![\w.,/^(-])-?\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?(?![\w/^)%-]|[.,]\d)"
)
#: Longest conclusion value taken: a longer "value" is a clause, not an answer.
_MAX_CONCLUSION_VALUE = 200

#: Math delimiters. Escaped pairs (``\\`` line break, ``\$`` literal dollar) are their own
#: tokens so that they never open or close math.
_MATH_TOKEN_RE = re.compile(r"\\\\|\\\$|\$\$|\$|\\\(|\\\)|\\\[|\\\]")
_MATH_CLOSER = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}


@dataclass(frozen=True)
class Extraction:
    """The final answer found in a response and which rule found it.

    ``method`` is recorded per sample so a reader can tell a boxed answer from a guess taken
    from the last formula ("boxed", "final_answer_phrase", "answer_phrase", "conclusion",
    "last_math", "none").
    """

    value: str | None
    method: str


def run_end(run: re.Pattern[str], text: str, pos: int) -> int:
    """Where a run of ``run`` (a ``[...]*`` pattern) starting at ``pos`` ends; ``pos`` when the
    run is empty. Such a pattern matches everywhere, but ``match`` is typed as optional."""
    found = run.match(text, pos)
    return found.end() if found else pos


def _box_closers(text: str, opens: set[int]) -> dict[int, int]:
    """Map each opening brace in ``opens`` to its matching closing brace, in one pass.

    Matching every box separately would rescan the tail of the text once per box (quadratic
    on ``\\boxed{`` repeated without closers); one stack over all brace tokens is linear.
    A stray ``}`` with nothing open is ignored; an unclosed ``{`` simply gets no entry.
    """
    closers: dict[int, int] = {}
    if not opens:
        return closers
    stack: list[int] = []
    for token in _BRACE_TOKEN_RE.finditer(text, min(opens)):
        char = token.group()
        if char == "{":
            stack.append(token.start())
        elif char == "}" and stack:
            start = stack.pop()
            if start in opens:
                closers[start] = token.start()
    return closers


def all_boxed(text: str) -> list[tuple[int, int, str]]:
    """Every outermost ``\\boxed``/``\\fbox`` in ``text``, in order.

    Returns ``(start, end, content)``: ``text[start:end]`` is the whole box command with its
    argument, ``content`` the argument stripped of surrounding whitespace. Both ``\\boxed{..}``
    (also ``\\boxed {..}``) and the brace-less ``\\boxed 5`` are recognised. A box whose brace
    never closes, and an empty box (``\\boxed{}`` as echoed from the instruction "put your
    answer within \\boxed{}"), are skipped. A box nested inside another box is part of the
    outer one's content and is not listed separately.
    """
    if not isinstance(text, str):
        return []
    commands = []
    opens: set[int] = set()
    for match in _BOX_RE.finditer(text):
        arg = run_end(_SPACE_RE, text, match.end())
        commands.append((match.start(), arg))
        if text.startswith("{", arg):
            opens.add(arg)
    closers = _box_closers(text, opens)

    boxes: list[tuple[int, int, str]] = []
    covered_until = 0
    for start, arg in commands:
        if start < covered_until:
            continue
        if arg in opens:
            close = closers.get(arg)
            if close is None:
                continue
            content, end = text[arg + 1 : close], close + 1
        else:
            bare = _BARE_ARG_RE.match(text, arg)
            if bare is None:
                continue
            content, end = bare.group(), bare.end()
        content = content.strip()
        if content:
            boxes.append((start, end, content))
            covered_until = end
    return boxes


def last_boxed(text: str) -> str | None:
    """The content of the last box in ``text`` (see :func:`all_boxed`), or ``None``."""
    boxes = all_boxed(text)
    return boxes[-1][2] if boxes else None


def _strip_dollars(s: str) -> str:
    """Remove math-mode ``$`` from both ends, keeping an escaped (currency) ``\\$``."""
    s = s.lstrip("$")
    end = len(s)
    while end and s[end - 1] == "$" and not (end >= 2 and s[end - 2] == "\\"):
        end -= 1
    return s[:end]


def strip_answer(s: str) -> str:
    """Light cleanup of an extracted answer before it is checked.

    Strips whitespace, surrounding ``$`` and one trailing sentence period (``$5$.`` -> ``5``)
    and nothing else: math-verify normalises LaTeX far better than ad-hoc rules would, and
    every extra rule here is a chance to change what the model said. A fixed sequence of
    steps (no loop until stable) keeps it linear on pathological input such as a megabyte of
    dots.
    """
    s = s.strip()
    s = s.removesuffix(".").rstrip()
    s = _strip_dollars(s).strip()
    return s.removesuffix(".").rstrip()


def _math_value(text: str, pos: int) -> str | None:
    """The content of the math span opening exactly at ``pos``, or ``None``."""
    for opener, closer in _MATH_CLOSER.items():
        if text.startswith(opener, pos):
            begin = pos + len(opener)
            close = text.find(closer, begin, begin + _VALUE_WINDOW)
            return text[begin:close] if close != -1 else None
    return None


def _phrase_value(text: str, pos: int) -> str:
    """The answer value written right after an answer phrase ending at ``pos``.

    A value that opens math (``$..$``, ``$$..$$``, ``\\(..\\)``, ``\\[..\\]``) is that math;
    otherwise it is the rest of the line up to the first sentence end. Only the same line is
    read: "The answer is" at the end of a line is followed by reasoning, not by the answer.
    """
    pos = run_end(_PHRASE_GAP_RE, text, pos)
    math = _math_value(text, pos)
    if math is None:
        line_end = text.find("\n", pos, pos + _VALUE_WINDOW)
        math = text[pos : line_end if line_end != -1 else pos + _VALUE_WINDOW]
        sentence_end = _SENTENCE_END_RE.search(math)
        if sentence_end is not None:
            math = math[: sentence_end.start()]
    return strip_answer(math)


def _last_phrase_value(text: str, phrase: re.Pattern[str]) -> str | None:
    """The value after the last occurrence of ``phrase``; ``None`` if absent or empty.

    Only the last occurrence is read (a model restates and corrects itself; its last word
    counts), which also keeps the search to one linear pass.
    """
    last = deque(phrase.finditer(text), maxlen=1)
    if not last:
        return None
    return _phrase_value(text, last[0].end()) or None


def _conclusion_value(text: str, pos: int) -> tuple[str, int] | None:
    """The value stated by the conclusion sentence starting at ``pos`` and where the sentence
    ends, or ``None``.

    The sentence runs to its first end outside math (``.``/``!``/``?`` before a space, or a
    line break); its value is what follows the last "is"/"are"/"was"/"were"/"equals"/"="
    outside math: "So the number of apples is 5." gives ``5``, "Therefore, the remainder
    when $n$ is divided by 7 is 3." gives ``3``, and "So, we have:" gives nothing. A sentence
    with no such verb gives the one number its words hold, if they hold exactly one ("So it
    takes 4 beakers." gives ``4``; "So for 3 or 4 ..." nothing).
    """
    end = min(len(text), pos + _VALUE_WINDOW)
    closer = None
    verb_end = None
    plain_from = pos
    plain: list[tuple[int, int]] = []  # the sentence's text outside math
    for token in _SENTENCE_TOKEN_RE.finditer(text, pos, end):
        tok = token.group()
        if closer is not None:  # inside math only its closing delimiter counts
            if tok == closer:
                closer, plain_from = None, token.end()
            continue
        verb_end = _last_verb_end(text, plain_from, token.start(), verb_end)
        plain.append((plain_from, token.start()))
        plain_from = token.end()
        if tok in _MATH_CLOSER:
            closer = _MATH_CLOSER[tok]
        elif tok in _SENTENCE_ENDS:
            end = token.start()
            break
    else:
        if closer is None:
            verb_end = _last_verb_end(text, plain_from, end, verb_end)
            plain.append((plain_from, end))
    if verb_end is None:
        # no verb to read after: a sentence whose words hold one number states it ("Therefore,
        # it will take 4 cylindrical beakers of water to fill the tank.")
        numbers = [n for a, b in plain for n in _LONE_NUMBER_RE.findall(text, a, b)]
        return (numbers[0], end) if len(numbers) == 1 else None
    value_start = run_end(_PHRASE_GAP_RE, text, verb_end)
    value = _math_value(text, value_start)
    value = strip_answer(text[value_start:end] if value is None else value)
    return (value, end) if value and len(value) <= _MAX_CONCLUSION_VALUE else None


def _last_verb_end(text: str, start: int, end: int, default: int | None) -> int | None:
    """Where the last conclusion verb in ``text[start:end]`` ends, else ``default``."""
    last = deque(_CONCLUSION_VERB_RE.finditer(text, start, end), maxlen=1)
    return last[0].end() if last else default


def _last_conclusion(text: str) -> str | None:
    """The value of the last conclusion sentence (see :func:`_conclusion_value`), or ``None``.

    Only the last one is read, as with the answer phrases: a model's last word counts. So a
    conclusion is no answer when the response goes on to a further step of its working (a
    numbered or bold heading that is no conclusion: "Therefore, f^{-1}(0) = 0." and then "**3.
    Calculate f^{-1}(6)**" concludes one part of the work, not the problem).
    """
    last = deque(_CONCLUSION_RE.finditer(text), maxlen=1)
    found = _conclusion_value(text, last[0].end()) if last else None
    if found is None or _NEXT_STEP_RE.search(text, found[1]):
        return None
    return found[0]


#: A value in markdown bold after "=", "≈", "≡", ":" or "is" ("m + n = 25 + 169 = **194**",
#: "v/c = z = **0.033**"): how models that write markdown (gemma-2) state a result they do not
#: box. Bounded, so a scan stays linear.
_BOLD_VALUE_RE = re.compile(r"(?:[=≈≡:]|\bis)[ \t]*\*\*(?P<value>[^*\s][^*\n]{0,79}?)(?<=\S)\*\*")
#: What a value holds and a heading ("**Conclusion**") does not: a digit or a LaTeX command.
_VALUE_MARK_RE = re.compile(r"[\d\\√π∞]")


def _last_bold(text: str) -> str | None:
    """The last value in bold (:data:`_BOLD_VALUE_RE`) that holds a digit or a command and
    after which the working does not go on to a further step (as for :func:`_last_conclusion`),
    or ``None``."""
    last = deque(_BOLD_VALUE_RE.finditer(text), maxlen=1)
    if not last:
        return None
    value = strip_answer(last[0].group("value"))
    if not _VALUE_MARK_RE.search(value) or _NEXT_STEP_RE.search(text, last[0].end()):
        return None
    return value


def _last_math(text: str) -> str | None:
    """The content of the last closed math span (inline ``$..$``/``\\(..\\)`` or display).

    Delimiters are paired left to right in a single pass; a delimiter of another kind inside an
    open span is ignored, and so are escaped ``\\$`` and ``\\\\``.
    """
    last = None
    closer = None
    begin = 0
    for token in _MATH_TOKEN_RE.finditer(text):
        tok = token.group()
        if closer is None:
            if tok in _MATH_CLOSER:
                closer, begin = _MATH_CLOSER[tok], token.end()
        elif tok == closer:
            content = strip_answer(text[begin : token.start()])
            if content:
                last = content
            closer = None
    return last


def extract_final_answer(text: str) -> Extraction:
    """The final answer of a response, by the first rule that finds one.

    Order, from the most to the least explicit commitment:

    1. ``boxed``: the last non-empty ``\\boxed{..}``/``\\fbox{..}`` (the format the MATH-500
       prompt asks for);
    2. ``final_answer_phrase``: the last "final answer is X" / "Final Answer: X";
    3. ``answer_phrase``: the last "answer is X" / "Answer: X";
    4. ``conclusion``: the value of the last sentence opening with So / Thus / Therefore /
       Hence / Finally / In conclusion, read after its last "is" or "=" ("So the number of
       apples is 5." gives ``5``): an answer stated in words;
    5. ``bold``: the last value in markdown bold after "=", ":" or "is" ("m + n = 25 + 169 =
       **194**"), holding a digit or a command: a result stated without a box;
    6. ``last_math``: the last closed ``$..$``, ``\\(..\\)``, ``$$..$$`` or ``\\[..\\]``;
    7. ``none``: nothing found (``value`` is ``None``).

    Phrase values are read to the end of their line or sentence, with ``$`` and a trailing
    period stripped (:func:`strip_answer`). Non-string input yields ``none``.
    """
    if not isinstance(text, str):
        return Extraction(None, "none")
    boxed = last_boxed(text)
    if boxed is not None:
        return Extraction(strip_answer(boxed), "boxed")
    for method, phrase in _PHRASES:
        value = _last_phrase_value(text, phrase)
        if value is not None:
            if _SENTENCE_VALUE.match(value) and (stated := _conclusion_value(value, 0)):
                # "Answer: The smallest possible value of c is π.": the value the sentence states
                value = stated[0]
            return Extraction(value, method)
    conclusion = _last_conclusion(text)
    if conclusion is not None:
        return Extraction(conclusion, "conclusion")
    bold = _last_bold(text)
    if bold is not None:
        return Extraction(bold, "bold")
    math = _last_math(text)
    if math is not None:
        return Extraction(math, "last_math")
    return Extraction(None, "none")
