"""The asked quantity's names, and how a claim's names compare with them.

A value equal to the gold is a commitment only when it is the value of the asked quantity:
``f(5) = 7`` is not one when the problem asks for ``g(f(5) - 1)`` and the gold is 7. The names
of the asked quantity come from

* the question sentence of the problem: its math expressions (``$g(f(5)-1)$``, ``$a+b$``,
  ``$x$``) and its noun phrase ("the fewest number of miles", "their median", "how many
  beakers" -> "number of beakers");
* the model's own final statement: the names of the chain that holds the final ``\\boxed{}``
  ("Thus, the value of \\(\\tan A\\) is \\(\\boxed{..}\\)"), from the answer part when there
  is one, else from the reasoning;
* aliases: names that a chain of the reasoning sets equal to an asked name (``b = a_1``, "solve
  for y, which is b"), so the model's own variable for the asked quantity counts too.

A name that is a proper part of an asked expression (``f(5)`` of ``g(f(5) - 1)``, ``a`` of
``a + b``) names an intermediate quantity.

A long trace gives the same few names over and over (``x``, "the area", ``f(5)``), and every
claim's names are compared with the asked ones, so the pure string functions here are
memoised (:data:`_MEMO` entries each): the comparisons then cost a dictionary look-up, not a
dozen regex passes per name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, wraps

from lm_eval_thinkbench.locate.claims import Claim, has_letter, math_spans

#: Words of a question that asks for an extremum ("the maximum value of $f$" asks for the
#: maximum, not for f).
EXTREMUM = frozenset(("maximum", "minimum", "larg", "small", "great", "less", "few", "most", "big"))
_STOP = frozenset(
    (
        "the", "a", "an", "of", "in", "on", "at", "to", "for", "by", "with", "from", "and", "or",
        "that", "this", "these", "those", "is", "are", "be", "its", "it", "their", "his", "her",
        "our", "my", "your", "we", "i", "you", "they", "he", "she", "which", "what", "how", "many",
        "much", "there", "here", "as", "than", "then", "so", "all", "any", "some", "each", "every",
        "can", "could", "would", "should", "will", "must", "may", "might", "do", "does", "did",
        "done", "find", "compute", "determine", "calculate", "evaluate", "express", "enter", "give",
        "write", "simplify", "solve", "let", "if", "when", "where", "such", "them", "him", "us",
        "me",
    )
)  # fmt: skip
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
#: The question: the sentence that asks (a question mark or an imperative verb).
_ASKS = re.compile(
    r"(?i)\?|\b(?:find|compute|determine|calculate|evaluate|simplify|solve|express|enter|give"
    r"|what|which|how\s+many|how\s+much|write|convert|rationalize|factor|expand)\b"
)
_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z$\\])|(?<=[.?!]\$)\s+(?=[A-Z])|\n\s*\n")
_RELATION = re.compile(r"=|<|>|\\[lg]eq?\b|\\neq?\b|\\in\b|≤|≥")
#: Entries of each memoised name function (names are short: a few MB at most).
_MEMO = 1 << 14


#: Superscript digits as digits: the digits a text holds ("m²" holds 2), the power "5r⁵" writes.
SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
#: A symbol written as itself and as its LaTeX command names one thing: a problem's
#: ``$\\square$`` is the trace's "□", its ``$\\theta$`` the trace's "θ".
_UNICODE_SYMBOLS = str.maketrans(
    {
        "□": "\\square", "△": "\\triangle", "◇": "\\diamond", "⋄": "\\diamond",
        "♣": "\\clubsuit", "♦": "\\diamondsuit", "♥": "\\heartsuit", "♠": "\\spadesuit",
        "○": "\\circ", "θ": "\\theta", "α": "\\alpha", "β": "\\beta", "γ": "\\gamma",
        "π": "\\pi", "φ": "\\phi", "ω": "\\omega", "λ": "\\lambda", "μ": "\\mu",
        "²": "^2", "³": "^3", "·": "*", "×": "*",  # "m² + n²" names m^2+n^2
        "∩": "\\cap", "∪": "\\cup",  # "|A ∩ B|" names $|A \cap B|$
    }
)  # fmt: skip


#: Generic words that name a part of a formula, never its value: "the base is 1" of
#: ``1^{(2^{235423523})}`` (a base of a numeral system is no value either).
_PARTS = frozenset({"base"})


@lru_cache(maxsize=_MEMO)
def name_key(name: str) -> str:
    """A name's comparable form: unicode symbols as their LaTeX commands (``□`` is
    ``\\square``), no spaces, sizing commands, ``$``, decorations
    (``\\overline{QM}`` is ``QM``), backslashes of function names (``\\tan A`` is ``tan A``)
    or braces around single characters, brackets around a trigonometric function's one-letter
    argument (``sin(T)`` is ``\\sin{T}``); ``\\dfrac`` as ``\\frac``, ``\\cdot`` as ``*``."""
    # "f⁻¹(2)": the inverse's superscript, two characters, before the one-character symbols
    key = name if name.isascii() else name.replace("⁻¹", "^{-1}").translate(_UNICODE_SYMBOLS)
    if "<" in key:  # HTML powers and indices (gemma-2 writes ``8<sup>2</sup>``)
        key = _HTML_SCRIPT.sub(_as_script, key)
    # the rewrites of commands run only on a key that has one: most names have none
    if "\\" in key:
        key = _FUNCTION_COMMAND.sub(r"\1", key)
    key = _NO_KEY.sub("", key)
    if "\\" in key:
        key = _DECORATION.sub(r"\1", key)
        key = _FRAC_VARIANT.sub(r"\\frac", key)
        key = _TIMES.sub("*", key)
    key = key.rstrip(".,;:")
    if "√" in key or "sqrt(" in key:  # "√242", "√(2x)", "sqrt(242)" as "\\sqrt{242}" keys
        key = _ROOT_SIGN.sub(r"sqrt{\1\2}", key)
    if "(" in key:
        key = _TRIG_OF_LETTER.sub(r"\1\2", key)
        if "/" in key:  # "f⁻¹(1/5)" names f^{-1}\left(\frac{1}{5}\right)
            key = _ARGUMENT_FRACTION.sub(r"(\\frac{\1}{\2})", key)
    return _BRACED_CHARACTER.sub(r"\1", key) if "{" in key else key


#: A fraction of integers that is a function's whole argument: ``f(1/5)``, ``g^{-1}(3/4)``.
_ARGUMENT_FRACTION = re.compile(r"(?<=[A-Za-z}])\((-?\d+)/(\d+)\)")
#: A power or an index written in HTML: ``8<sup>2</sup>`` is ``8^{2}``, ``a<sub>n</sub>``
#: is ``a_{n}``.
_HTML_SCRIPT = re.compile(r"<(sup|sub)>([^<>]{0,200})</\1>", re.IGNORECASE)


def _as_script(found: re.Match[str]) -> str:
    return ("^{" if found.group(1).lower() == "sup" else "_{") + found.group(2) + "}"


#: Function names written with or without a backslash (``\\tan A``, ``tan A``).
_FUNCTIONS = "sin|cos|tan|cot|sec|csc|log|ln|exp|arcsin|arccos|arctan|gcd|lcm|max|min|sqrt|det"
_FUNCTION_COMMAND = re.compile(r"\\(" + _FUNCTIONS + r")(?![A-Za-z])")
#: What a key leaves out: sizing, spacing, and math delimiters (``$``, ``\\(``, ``\\[``).
_NO_KEY = re.compile(r"\\(?:left|right|displaystyle|,|;|!|[()\[\]])|\$|\s+")
_DECORATION = re.compile(r"\\(?:overline|bar|vec|mathbf|mathrm|widehat|hat|boldsymbol)\{([^{}]*)\}")
_FRAC_VARIANT = re.compile(r"\\[dt]frac")
_TIMES = re.compile(r"\\cdot|\\times")
_BRACED_CHARACTER = re.compile(r"\{(\w)\}")
#: A square root written with the sign or with brackets, of a number, a letter or a bracket:
#: what ``\\sqrt{...}`` keys as.
_ROOT_SIGN = re.compile(r"(?:√|sqrt)\(([^()]{1,80})\)|√(\d+(?:\.\d+)?|[A-Za-z])")
#: A trigonometric function of one letter in brackets: ``sin(T)`` is ``\\sin{T}``, ``\\sin T``.
_TRIG_OF_LETTER = re.compile(r"(?<![A-Za-z])(sin|cos|tan|cot|sec|csc)\(([A-Za-z])\)")


@lru_cache(maxsize=_MEMO)
def _prose(name: str) -> str:
    """A name without its LaTeX: commands, environments and ``\\text``-like arguments."""
    if "<" in name:
        name = _HTML_SCRIPT.sub(" ", name)
    return _COMMAND.sub(" ", _TEXT_ARGUMENT.sub(" ", name))


_TEXT_ARGUMENT = re.compile(r"\\(?:begin|end|text|mathrm|mathbf|operatorname|mbox)\s*\{[^{}]*\}")
_COMMAND = re.compile(r"\\[A-Za-z]+")


@lru_cache(maxsize=_MEMO)
def content_words(name: str) -> frozenset[str]:
    """The words that identify a name, crudely stemmed ("roots" -> "root", "walked" -> "walk")."""
    words = set()
    for w in _WORD.findall(_prose(name)):
        w = w.lower()
        if w in _STOP or len(w) < 3:
            continue
        words.add(_stem(w))
    return frozenset(words)


#: Modifiers that pick one thing out of several of the same kind.
_ORDINALS = frozenset(
    (
        "first", "second", "third", "fourth", "fifth", "last", "final", "next", "previous",
        "initial", "remaining", "non-zero", "nonzero",
    )
)  # fmt: skip


@lru_cache(maxsize=_MEMO)
def head_word(name: str) -> str | None:
    """The noun a name is about: the last specific word before "of" (participles skipped:
    "total miles walked" -> "mile"), or the first after it when that one is generic ("the sum
    of the roots" -> "root"), in the noun phrase before a relative clause ("the remainder when
    the 100th term is divided by 4" -> "remainder"), a comparison ("the first term greater than
    125" -> "term") or a phrase of time ("the resulting point after both reflections" ->
    "point")."""
    plain = _RELATIVE_CLAUSE.split(_MATH_OR_COMMAND.sub(" ", name), 1)[0]
    before, _, after = plain.partition(" of ")
    # "the gravitational acceleration due to the Sun at ...": the phrase after a preposition
    # qualifies the head before it
    before = _QUALIFYING.split(before, 1)[0]
    for part, last in ((before, True), (after, False)):
        words = [w.lower() for w in _WORD.findall(part)]
        words = [
            w for w in words if w not in _STOP and len(w) >= 3 and not w.endswith(("ed", "ing"))
        ]
        specific = [w for w in words if w not in GENERIC]
        if specific:
            return _stem(specific[-1] if last else specific[0])
    return None


_QUALIFYING = re.compile(r"(?i)\s(?:due\s+to|at)\s")
_RELATIVE_CLAUSE = re.compile(
    r"(?i)\s(?:when|where|for\s+which|in\s+which|such\s+that|after|before"
    r"|(?:greater|less|more|fewer|larger|smaller|bigger)\s+than)\s"
)
_MATH_OR_COMMAND = re.compile(r"\\\(.*?\\\)|\$[^$]*\$|\\[A-Za-z]+")


@lru_cache(maxsize=_MEMO)
def _noun_words(name: str) -> frozenset[str]:
    """Specific words of a name that can be nouns (no "-ed", "-ing", "-ly" forms): what an
    alias "the median is the 14th term" adds, and nothing from "is divided by"."""
    words = [w.lower() for w in _WORD.findall(_COMMAND.sub(" ", name))]
    if any(w.endswith(("ed", "ing", "ly")) for w in words if len(w) > 4):
        return frozenset()
    return content_words(name) - GENERIC


#: Comparatives and superlatives as one word: "x = 1 is smaller" answers "the smallest x".
_DEGREES = {
    f"{base}{end}": base
    for base in ("small", "larg", "great", "few", "low", "high", "long", "short", "clos", "far")
    for end in ("er", "est", "e", "")
}
_DEGREES.update({"least": "less", "bigger": "big", "biggest": "big", "maximal": "maximum",
                 "minimal": "minimum", "max": "maximum", "min": "minimum"})  # fmt: skip


#: What a question asks is left of a count: "how many slices are left", "how many remain".
_LEFT = frozenset(("left", "remain"))
_ASKS_REST = re.compile(
    r"(?i)\bhow\s+(?:many|much)\s+(?:[\w'-]+\s+){1,3}(?:(?:are|is|were|was|will\s+be|would\s+be)"
    r"\s+(?:still\s+)?(?:left|remaining)|remain|(?:[\w'-]+\s+){0,3}(?:have|has|had|get)\s+left)\b"
)
#: The name the reader gives a value by its unit alone ("3 slices": "number of slices", "3
#: slices left": "number of slices left").
_COUNTED_UNIT = re.compile(r"number of [\w' -]+")
#: Words that count the same thing: "the number of arrangements" is "the number of ways".
_SYNONYMS = {"arrangement": "way", "permutation": "way", "combination": "way"}


@lru_cache(maxsize=_MEMO)
def _stem(word: str) -> str:
    """A word crudely stemmed (memoised: every word of every new name is stemmed, and a
    trace's names are made of a few hundred words)."""
    if word in _DEGREES:
        return _DEGREES[word]
    for suffix in ("ies", "ings", "ing", "ed", "s"):  # "earnings" is what "earn" counts
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    return _SYNONYMS.get(word, word)


#: Words that carry no identity of their own in a name ("the value of ...").
_GENERIC_WORDS = (
    "value", "values", "final", "answer", "result", "results", "number", "numbers", "total",
    "amount", "exact", "actual", "possible", "expression", "quantity", "sum", "thing", "one",
    "ones", "given", "required", "desired", "resulting", "real", "vector", "matrix", "fraction",
    "form", "simplified", "decimal", "base", "binary", "octal", "notation", "entire", "whole",
    "original", "overall", "polynomial",
)  # fmt: skip
GENERIC = frozenset(map(_stem, _GENERIC_WORDS))
#: Generic nouns of a kind of object, not of a number: they name the asked one only for a
#: question that names that kind ("Find the polynomial $p(x)$ ...").
_OBJECT_KINDS = frozenset(map(_stem, ("polynomial", "vector", "matrix")))
#: Nouns for the people a problem counts, which a trace uses for one another ("people" for
#: "residents") when the rest of the name says which.
PEOPLE = frozenset(
    map(
        _stem,
        (
            "people", "person", "persons", "resident", "student", "individual", "member",
            "participant", "child", "children", "adult", "worker", "employee", "customer",
            "guest", "player", "voter", "citizen", "pupil", "kid",
        ),
    )
)  # fmt: skip


@lru_cache(maxsize=_MEMO)
def _is_math_name(name: str) -> bool:
    """A name written as math (``x``, ``a+b``, ``g(f(5)-1)``, ``\\tan A``), not as words."""
    plain = _FUNCTION_WORD.sub(" ", _prose(name))
    words = [w for w in _WORD.findall(plain) if len(w) > 1]
    return not words


_FUNCTION_WORD = re.compile(r"\b(?:" + _FUNCTIONS + r")\b")


def _per_name(method: Callable[[Asked, str], bool]) -> Callable[[Asked, str], bool]:
    """``method`` answering each name once per :class:`Asked` (see ``Asked._answered``)."""

    @wraps(method)
    def answer(self: Asked, name: str) -> bool:
        key = (method.__name__, name)
        found = self._answered.get(key)
        if found is None:
            found = self._answered[key] = method(self, name)
        return found

    return answer


@dataclass(frozen=True)
class Asked:
    """The asked quantity's names: math keys and word sets, aliases included; ``direct`` are
    the formulas the question itself names."""

    math: frozenset[str]
    words: tuple[frozenset[str], ...]
    direct: frozenset[str] = frozenset()
    context: frozenset[str] = frozenset()  # the question's own words ("domain", "function")
    #: The positions of the sequence terms the question asks for ("the 2003rd term": 2003),
    #: which a trace names ``a_{2003}``.
    indices: frozenset[str] = frozenset()
    #: The generic word a question's asked phrase opens with, when it names one quantity
    #: ("What is the sum of ...": "sum"), which then names it alone ("the sum is 2107").
    heads: frozenset[str] = frozenset()
    #: Whether the question counts the solutions of an equation ("How many ... satisfy"), so
    #: that "the number of solutions" names the asked count.
    solutions: bool = False
    #: The variables whose values the question counts ("the number of positive integers $n$
    #: ...", "How many integers $k$ ..."), so that "the number of n ... is 809" names the
    #: asked count however the trace qualifies its n.
    counted: frozenset[str] = frozenset()
    #: Whether the question asks how many are left ("How many slices are left?", "... does
    #: April have left over?"), so that a count by its unit alone is not the rest.
    rest: bool = False
    #: What the methods marked :func:`_per_name` answered, by method and name: a trace gives
    #: the same few names in claim after claim and alias after alias, and each answer takes a
    #: dozen look-ups and regex passes.
    _answered: dict[tuple[str, str], bool] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    @_per_name
    def matches(self, name: str) -> bool:
        """Whether ``name`` names the asked quantity: as an asked formula, or in words whose
        head noun is an asked word ("total miles walked" for "the fewest number of miles")
        or that are all asked words; an ordinal the asked name has must be there too ("a
        remainder" is not "the last non-zero remainder")."""
        if self.math and (
            name_key(name) in self.math
            or any(name_key(part) in self.math for part in _math_parts(name))
            or any(symbol in self.math for symbol in _letter_symbols(name))
            # a symbol's command spelt as a word: "Square = S" for ``\square``, "theta"
            or (name.isalpha() and f"\\{name.lower()}" in self.math)
        ):
            return True
        if self.indices and (term := _INDEXED.fullmatch(name_key(name))):
            return term.group(1) in self.indices
        # "the smallest real number in this domain" for "the smallest real number $x$ in the
        # domain of ...": a qualifier that restates the question's own leaves the head
        qualified = _QUALIFIER.match(name) if _PREPOSITION.search(name) else None
        if (
            qualified
            and content_words(qualified["qualifier"]) - GENERIC <= self.context
            and self.matches(qualified["core"])
        ):
            return True
        if spelled := _TEXT_NAME.fullmatch(name):  # "\text{Profit} = 93 - 15 = 78"
            name = spelled["words"]
        if self.misses_rest(name):
            return False
        words = content_words(name)
        if self.solutions and words == _SOLUTIONS:
            return True
        if (
            words - {"only", "unique"} == _SOLUTION
            and self.direct
            and not self.solutions
            and all(_VARIABLE.fullmatch(m) for m in self.direct)
        ):
            return True  # "the solution is 46°" for "Find $x$.": the unknown asked for
        if self.counted and (count := _COUNT_OF.match(name)) and count[1] in self.counted:
            return True
        specific = words - GENERIC
        if not specific:
            # "the sum is 2107" for "What is the sum of all of the multiples of 7 ...?": the
            # asked quantity by its generic head alone
            return bool(words) and words <= self.heads
        if any(specific <= asked and asked & _ORDINALS <= specific for asked in self.words):
            return True  # (an ordinal asked must be said: "Remainder is 21" of Euclid's steps)
        people = specific - PEOPLE - {"who", "whom", "whose"}
        if (
            people
            and people != specific
            and any(people <= asked and asked & PEOPLE for asked in self.words)
        ):
            # "the number of people who own all four things" for "the number of residents of
            # Aimeville who own all four of these things": who they are is said by the rest
            return True
        if (
            len(specific) == 1
            and (way := _EXTREME_OF.get(next(iter(specific))))
            and _EXTREME_WORD.search(name)  # not a comparison: "-9 is smaller than 3"
            and not (_FORMULA_MARK.search(name) or _math_parts(name))
        ):
            # "the maximum is ... = 540" for "Find the largest possible real part": the asked
            # extremum by its kind alone (in words: max(x, m) is a formula; and not the
            # "greatest" of a greatest common divisor)
            return any(asked & way and "common" not in asked for asked in self.words)
        head = head_word(name) if self.words else None  # (read only when it can decide)
        # "the sum of the lengths of all edges" is no length: what it adds up must be asked
        total = _AGGREGATE_OF.match(name)
        return head is not None and any(
            head in asked
            and asked & _ORDINALS <= specific
            and not _opposite_extremes(specific, asked)
            and (total is None or total[1].lower() in asked)
            for asked in self.words
        )

    def misses_rest(self, name: str) -> bool:
        """Whether ``name`` is a count by its unit alone ("3 slices": "number of slices") where
        the question asks what is left ("how many slices are left?"): a count, not the rest
        ("3 slices left" says it)."""
        return (
            self.rest
            and _COUNTED_UNIT.fullmatch(name) is not None
            and not _LEFT & content_words(name)
        )

    @_per_name
    def generic_only(self, name: str) -> bool:
        """Whether ``name`` says only "the expression", "the value", "the result": the asked
        one when the question asks for a formula's value, or for nothing but that generic noun
        ("What is the number?": "So the number is 2"); not a kind said with "a" ("1 is a real
        number") nor one value of several ("one possible value is 1", before the other cases)."""
        words = content_words(name)
        return (  # the formula is looked for last: most names have a specific word
            (bool(self.math) or (not self.words and words <= self.context))
            and bool(words)
            and not words - GENERIC
            and not _A_KIND.match(name)
            and not words & _PARTS
            and not any("digit" in asked for asked in self.words)  # "sum = 5": not its digit
            # "the polynomial becomes x^2 - 18x + 17" when the question asks for |r - s|
            and words & _OBJECT_KINDS <= self.context
            and not (_FORMULA_MARK.search(name) or _math_parts(name))
        )

    @_per_name
    def is_part(self, name: str) -> bool:
        """Whether ``name`` is a proper part of an asked expression (an intermediate), or an
        expression of a variable the question asks for (``2y`` when it asks for y: its value
        is not y's; an alias found in the trace may be mistaken, so only the question's)."""
        key = name_key(name)
        if not key or key in self.math or not _is_math_name(name):
            return False
        if any(len(key) < len(m) and _part_of(key, m) for m in self.math):
            return True
        variables = {m for m in self.direct if _VARIABLE.fullmatch(m)}
        return any(
            _part_of(v, key) or (v in key and re.search(rf"\d{re.escape(v)}(?!\w)", key))
            for v in variables
        )


#: A name that opens with an aggregate of what follows ("the sum of the lengths ...").
_AGGREGATE_OF = re.compile(r"(?i)\s*(?:the\s+)?(sum|product|average|total)\s+of\s")


@lru_cache(maxsize=_MEMO)
def _letter_symbols(name: str) -> tuple[str, ...]:
    """The words of a name that could be a symbol of a few letters (``abc``, ``AB``, ``xyz``:
    "the product \\( abc \\)", whose delimiters the name no longer has)."""
    words = name.split()
    return tuple(w for w in words if 2 <= len(w) <= 4 and w.isalpha() and w.lower() not in _STOP)


#: A question that asks for a sum or a total of something by that generic word.
_TOTAL_ASKED = re.compile(
    r"(?i)\b(?:what|find|compute|determine|calculate|evaluate)\s+(?:is\s+|are\s+|was\s+)?"
    r"the\s+(sum|total)\s+of\b"
)

_FORMULA_MARK = re.compile(r"\d|\\[A-Za-z]")
#: A variable: ``x``, ``a_1``, ``a_{10}``.
_VARIABLE = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?")
#: A sequence's term by its position: ``a_{2003}``, ``t_5``.
_INDEXED = re.compile(r"[A-Za-z]_\{?(\d+)\}?")
#: Positions in words, as questions write small ones: "the eighth term".
_ORDINAL_WORDS = {
    w: str(n)
    for n, w in enumerate(
        (
            "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
            "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth",
        ),
        start=1,
    )
}  # fmt: skip
#: A term the question asks for by its position: "What is the 2003rd term", "find the
#: $100^{\\mathrm{th}}$ term"; not "the remainder when the 100th term is divided by 4".
_ORDINAL_TERM = re.compile(
    r"(?i)\b(?:is|are|find|compute|determine|calculate|evaluate)\s+the\s+(?:\$?(\d+)\s*(?:\^\s*\{?\s*(?:\\(?:mathrm|text|textrm)\s*\{\s*)?)?(?:st|nd|rd|th)\b"
    r"[}\s$]*|(" + "|".join(_ORDINAL_WORDS) + r")\s+)\s*term\b"
)
#: A name in words written as math: ``\text{Profit}``, ``\mathrm{Total cost}``.
_TEXT_NAME = re.compile(
    r"\s*\\(?:text|mathrm|textbf|textit|mbox)\s*\{(?P<words>[A-Za-z][A-Za-z '-]*)\}\s*"
)
#: A noun phrase and the prepositional phrase after it ("the smallest real number | in this
#: domain"); "of" belongs to the head ("the sum of the roots").
_PREPOSITION = re.compile(r"(?i)\s(?:in|on|at|for|from|with|among|between|over|under|within)\s")
_QUALIFIER = re.compile(
    r"(?is)(?P<core>.*?[A-Za-z].*?)\s+(?:in|on|at|for|from|with|among|between|over|under"
    r"|within)\s+"
    r"(?P<qualifier>[^$\\]*[A-Za-z][^$\\]*)$"
)


def _part_of(key: str, whole: str) -> bool:
    """``key`` occurs in ``whole`` as a whole operand (``f(5)`` in ``g(f(5)-1)``, ``a`` in
    ``a+b``, but not ``b`` in ``\\tanb``)."""
    at = whole.find(key)
    while at >= 0:  # each occurrence, not overlapping the one before (as re.finditer finds them)
        end = at + len(key)
        before = whole[at - 1] if at else ""
        after = whole[end] if end < len(whole) else ""
        if (not before or not before.isalnum()) and (not after or not after.isalnum()):
            return True
        at = whole.find(key, max(end, at + 1))
    return False


@lru_cache(maxsize=_MEMO)
def _math_parts(name: str) -> tuple[str, ...]:
    """The formulas a mixed name gives its quantity: one in apposition ("the sum A + B + C +
    D", "the angle θ") or right after "value of" ("the value of g(f(5) - 1)"), not one after
    a preposition, which is an argument ("the image of the line y = 2x + 1")."""
    if not _FORMULA_HINT.search(name):
        return ()  # no word of it can be a formula with a letter: most names are plain words
    return _formula_runs(name)


def _formula_runs(name: str) -> tuple[str, ...]:
    """:func:`_math_parts` word by word: each run of formula words with a letter."""
    parts = []
    run: list[str] = []
    words = _DELIMITERS.sub(" ", name).split()
    arguments = _argument_prepositions(words)
    for i, word in enumerate([*words, ""]):
        if word and _is_formula_word(word):
            run.append(word)
            continue
        named = any(_LETTER.search(w) for w in run) and run not in (["a"], ["I"])
        if named and not arguments[i - len(run)]:
            parts.append(" ".join(run).strip(".,;:"))
        run = []
    return tuple(parts)  # memoised: immutable


def _argument_prepositions(words: Sequence[str]) -> list[bool]:
    """For each ``k``, whether a formula after ``words[:k]`` is an argument: "the image of the
    line y = ...", not "the value of the expression". One pass over the words: asking it of
    every prefix made a name of thousands of words quadratic."""
    out = [False]
    previous = ""
    for j, word in enumerate(words):
        lowered = word.lower().strip(",")
        argument = j > 0 and lowered in _PREPOSITIONS and _stem(previous) not in GENERIC | _STOP
        out.append(out[-1] or argument)
        previous = lowered
    return out


_PREPOSITIONS = frozenset(
    (
        "of", "for", "on", "onto", "under", "in", "at", "to", "from", "with", "by", "between",
        "than", "over", "into", "about",
    )
)  # fmt: skip
_DELIMITERS = re.compile(r"\\[()\[\]]|\$")
_LETTER = re.compile(r"[A-Za-z]")
#: What a formula word with a letter (:func:`_is_formula_word`) holds: a lone letter, a
#: bracket, a command or a function name (the letters of a word are all lone ones, or it has
#: a bracket; a letter it lost went with a command or a function name).
_FORMULA_HINT = re.compile(r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])|[(\\]|\b(?:" + _FUNCTIONS + r")\b")
_LETTERS = re.compile(r"[A-Za-z]+")
_COMMAND_OR_FUNCTION = re.compile(r"\\[A-Za-z]+|\b(?:" + _FUNCTIONS + r")\b")


@lru_cache(maxsize=_MEMO)
def _is_formula_word(word: str) -> bool:
    """A plain-text word that belongs to a formula: operators, numbers, single letters,
    function names (``tan``), and function applications like ``g(f(5)``."""
    plain = _COMMAND_OR_FUNCTION.sub("", word)
    letters = _LETTERS.findall(plain)
    return all(len(w) == 1 or "(" in plain for w in letters)


#: Where the question names what it asks for: the math and the noun phrase after these.
_ASK_VERB = re.compile(
    r"(?i)\b(?:find|compute|determine|calculate|evaluate|simplify|solve\s+for|solve|express"
    r"|enter|give|write|convert|rationalize|factor|expand|what\s+(?:is|are|was|were)"
    r"|by\s+(?:calculating|computing|evaluating|finding)"
    r"|what|^\s*which|how\s+many|how\s+much|how\s+(?:long|far|tall|high|wide|deep|old|heavy|fast)"
    r"\s+(?:is|are|was|were)"
    # a duration: "How long will it take Billy to finish prepping the potatoes?"
    r"|how\s+long(?=\s+(?:will|would|does|did|do|should|can|could)\b[^?]*\btakes?\b))\b"
)
#: "How many" and "how much": a count (not "how long is ...", which asks for what follows).
_HOW_MANY = re.compile(r"(?i)how\s+m")
#: "How long is ...": the measure asked of what follows.
_HOW_MEASURE = re.compile(r"(?i)how\s+(long|far|tall|high|wide|deep|old|heavy|fast)\b")
_MEASURES = {
    "long": "length", "far": "distance", "tall": "height", "high": "height", "wide": "width",
    "deep": "depth", "old": "age", "heavy": "weight", "fast": "speed",
}  # fmt: skip
#: What may stand between the asking verb and an asked formula ("What is the value of $x$").
_ASK_FILLER = re.compile(
    r"(?i)^(?:\s|[,.:]|\b(?:the|a|an|all|value|values|numerical|exact|of|is|are|for|integer|integers"
    r"|length|measure|degree|median|segment|side"
    r"|positive|negative|real|number|numbers|possible|and"
    r"|expression|quantity|sum|product|number|ordered|pair|triple|vector"
    r"|matrix|point|function)\b)*$"
)
#: An extremum before the asked formula: "the smallest possible value of $\\left| m - n
#: \\right|$" asks for that expression's least value, but "the smallest positive integer $n$"
#: names a symbol whose every candidate the trace tries, so only an expression is asked.
_EXTREMUM_FILLER = re.compile(
    r"(?i)^\s*(?:the\s+)?(?:smallest|largest|greatest|least|minimum|maximum)\s+(?:possible\s+)?"
    r"values?\s+of\s*$"
)
#: Words that end the asked noun phrase ("the fewest number of miles | she can walk").
_PHRASE_END = re.compile(
    r"(?i)\b(?:is|are|was|were|will|can|could|would|should|does|do|did|has|have|had|she|he|it"
    r"|they|we|you|i|that|which|who|whose|where|when|if|such\s+that|so|to|for|in|on|at|from|with|as"
    r"|by|given|after|before|if|between|among|into|under|over|using)\b|[?.,;:$\\]"
)


#: What a "which" or "what" question says of the thing it asks for: "Which student has the
#: greatest average speed?", "By what number should he multiply $10$ ...?"
_WHICH_HAS = re.compile(
    r"(?i)\s*(?:has|have|had|is|are|was|were|gets?|got|makes?|made|should|would|must|can|could"
    r"|does|do|did|will)\s+(?P<predicate>[^.?;,$\\]{1,80})"
)
#: A relative clause after a question's noun phrase, to its end: "who own all four of these
#: things", "that change direction exactly four times".
_RELATIVE = re.compile(r"(?i)\s*(?:who|that|which)\s+(?P<clause>[^.?;,$\\]{1,80})")


def noun_phrase(text: str) -> str:
    """``text`` up to where its noun phrase ends ("the fewest number of miles | she can walk",
    "the largest x-value | where the graphs meet")."""
    end = _PHRASE_END.search(text)
    return text[: end.start()] if end else text


#: Words in apposition to a symbol ("Find the unique odd integer $t$ such that ..."): the
#: symbol is the asked quantity's own name. Not after "of" ("the number of integers $n$" asks
#: for a count) nor after "how many".
_APPOSITION = re.compile(
    r"(?i)^\s*(?:the|a|an|all)\s+(?:(?!of\b|and\b|or\b|is\b|are\b|that\b|which\b)"
    r"[A-Za-z][A-Za-z-]*\s+){1,4}$"
)
_EMPHASIS = re.compile(r"\\(?:textbf|textit|emph)\s*\{(?P<word>[A-Za-z ]+)\}")
#: What joins formulas that are asked together ("$a$, $b$ and $c$"), unlike "$f(x)$ for $x$".
_LISTED = re.compile(r"(?i)^\s*(?:,|and|,\s*and)?\s*$")
_SOLVE_FOR = re.compile(
    r"(?i)\bsolv(?:e|ing)\b[^.?]*?\bfor\s+(?:\$(?P<var>[A-Za-z](?:_\{?\w+\}?)?)\$|\\\((?P=var)\\\))".replace(
        "(?P=var)", "[A-Za-z]"
    )
)


def _solved_variable(sentence: str) -> set[str]:
    """The unknown of "Solve <an equation in one variable>" (``\\[\\sqrt{x + 1} = 6.\\]``): what
    the question asks for, as "Solve for $x$" says in so many words. An inequality asks for a
    set, and an equation in several letters names no one unknown."""
    verb = re.match(r"(?i)\s*solve\b(?!\s+for)", sentence)
    spans = math_spans(sentence)
    if not verb or not spans:
        return set()
    span = spans[0]
    if sentence[verb.end() : span.start].strip().strip(":,"):
        return set()
    inner = sentence[span.inner_start : span.inner_end]
    if inner.count("=") != 1 or re.search(r"<|>|\\[lg]eq?\b|≤|≥", inner):
        return set()
    letters = set(
        re.findall(r"(?<![A-Za-z\\])[a-z](?![A-Za-z])", re.sub(r"\\[A-Za-z]+", " ", inner))
    )
    return letters if len(letters) == 1 else set()


def question_names(problem: str) -> tuple[set[str], list[frozenset[str]]]:
    """Math keys and word sets the problem's question gives the asked quantity: the formulas
    right after the asking verb ("find $a + b$", "What is the value of $g(f(5)-1)$", "Solve for
    $x$") and the noun phrase after it ("What is their median", "How many such beakers")."""
    text = re.sub(r"(?i)^\s*return your final response within \\boxed\{\}\.\s*", "", problem)
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", text, flags=re.DOTALL)
    text = _SYMBOL_WORD.sub(r"\g<letter>-", text)  # "How many $y$-intercepts": a word
    text = _UNIT_ASIDE.sub(" ", text)  # "the length, in units, of the radius": of the radius
    math: set[str] = set()
    words: list[frozenset[str]] = []
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    for sentence in [s for s in sentences if _ASKS.search(s)][-2:] or sentences[-1:]:
        verbs = list(_ASK_VERB.finditer(sentence))
        for verb in verbs:  # "If ..., then what is $t(g(16))$?"; "... find all integers $n$"
            at = verb.end()
            taken = False  # a second formula is asked only when listed: "find $a$ and $b$"
            for span in math_spans(sentence):
                if span.start < at:
                    continue
                between = sentence[at : span.start]
                inner = sentence[span.inner_start : span.inner_end].strip().rstrip(".,;:?")
                if _EMPHASIS.fullmatch(inner):
                    continue  # "the unique $\\textbf{odd}$ integer $t$": a word, emphasised
                between = _EMPHASIS.sub(r"\g<word>", _DELIMITERS.sub("", between))
                apposed = (
                    _APPOSITION.match(between)
                    and not verb.group().lower().startswith("how")
                    and _SYMBOL.fullmatch(name_key(inner))
                )
                extremum = (
                    not taken
                    and _EXTREMUM_FILLER.match(between)
                    and not _SYMBOL.fullmatch(name_key(inner))
                )
                if (
                    not (_ASK_FILLER.match(between) or apposed or extremum)
                    or sentence[span.end : span.end + 1] == "-"
                    or (taken and not _LISTED.match(between))
                ):
                    break  # past the asked formula, or "$x$-value": a word, not a formula
                if inner and not _RELATION.search(inner) and len(inner) <= 80:
                    math.add(name_key(inner))
                    taken = True
                at = span.end
        for m in _SOLVE_FOR.finditer(sentence):  # "Solve the following equation for $x$"
            math.add(name_key(m.group("var")))
        math |= _solved_variable(sentence)
        # the noun phrase after the last asking verb, and after a "how many" before it: "In
        # how many ways can he pick 3 boys ... to give a presentation?" asks for a number of
        # ways, not for a presentation
        counted = [v for v in verbs[:-1] if _HOW_MANY.match(v.group())]
        askers: list[re.Match[str] | None] = [*counted[-1:], *verbs[-1:]]
        for asker in askers or [None]:
            phrase = sentence[asker.end() :] if asker else sentence
            stripped = re.sub(r"^\s*(?:is|are|was|were)\b", "", phrase)
            head = noun_phrase(stripped)
            relative = _RELATIVE.match(stripped, len(head))
            if asker and _HOW_MANY.match(asker.group()):
                head = "number of " + head
            found = content_words(head)
            if asker and (how := _HOW_MEASURE.match(asker.group())):
                # "How long is each side of the octagon?": its length ("the side length of
                # the octagon is 12 cm"); "How long will it take ...?": a time
                measure = _MEASURES[how.group(1).lower()]
                found |= content_words("time" if asker.group().endswith("long") else measure)
            asks_which = asker is not None and asker.group().strip().lower() in ("which", "what")
            which = _WHICH_HAS.match(stripped, len(head)) if asks_which else None
            if which and (said := found | content_words(which["predicate"])) - GENERIC:
                # "Which student has the greatest average speed?": the one with it; "By what
                # number should he multiply $10$ ...": the number he should multiply 10 by
                words.append(said)
            if (
                asker
                and not found - GENERIC
                and asker.group().lower().replace(" ", "") == "howmuch"
                and _MONEY_VERB.match(stripped)
            ):
                words.extend(_MONEY_NAMES)
            if found - GENERIC:
                words.append(found)
                if relative and found & PEOPLE:
                    # "the number of residents of Aimeville who own all four of these things":
                    # who they are is said by the clause ("the number of people who own all
                    # four things"); of a thing, the clause is a property to find it by ("the
                    # smallest number which is one less than twice its reciprocal")
                    words.append(found | content_words(relative["clause"]))
        if _LEFT_OVER.search(sentence):  # "the greatest number he could have left over"
            words.append(frozenset({"remainder"}) | content_words(sentence) & EXTREMUM)
        for m in _CONVERT_TO.finditer(sentence):  # "Convert the point ... to polar coordinates"
            found = content_words(m.group("target")) - GENERIC
            if found:
                words.append(found)
    return math, words


#: "How much" and a verb of money with no noun between ("How much did Jean pay?", "How much
#: will she spend?"): the question asks for money, which a trace names as an amount or a cost
#: ("the total cost is 4 * $4 = $16"); :data:`_MONEY_NAMES` are those names' head nouns.
_MONEY_VERB = re.compile(
    r"(?i)\s*(?:did|does|do|will|would|should|must|can|could)\s+(?:[A-Za-z'$]+\s+){1,3}?"
    r"(?:pay|spend|earn|make|save|cost|charge|owe|lose|raise|need|have\s+to\s+pay)\b"
)
_MONEY_NAMES = (frozenset({"money"}), frozenset({"amount"}), frozenset({"cost"}))


#: A "how many" question about what satisfies an equation counts its solutions: "there are 7
#: solutions" answers "How many complex numbers satisfy the equation ...?" (but "the solution"
#: alone names one of them, not their number).
_COUNTS_SOLUTIONS = re.compile(
    r"(?i)\bhow\s+many\b[^.?]*\b(?:satisf(?:y|ies)|solutions?\s+(?:to|of)|solve)\b"
)
_SOLUTIONS = content_words("number of solutions")
_SOLUTION = content_words("the solution")
#: "the maximum" and "the minimum" (as :func:`content_words` gives them), and the words of a
#: question that asks for an extremum of that direction ("largest", "fewest").
_EXTREME_WAYS = {
    "maximum": frozenset(("larg", "great", "maximum", "big", "most")),
    "minimum": frozenset(("small", "minimum", "less", "few")),
}
#: An extremum in so many words: "maximum", "the largest" (not "larger").
_EXTREME_WORD = re.compile(r"(?i)\b(?:maximum|minimum|maximal|minimal|largest|greatest|smallest)\b")
#: The words that name an extremum alone ("the maximum", "the largest"), with their way.
_EXTREME_OF = {
    word: _EXTREME_WAYS[way]
    for way, words in (
        ("maximum", ("maximum", "maximal", "larg", "great")),
        ("minimum", ("minimum", "minimal", "small")),
    )
    for word in words
}


def _opposite_extremes(words: frozenset[str], asked: frozenset[str]) -> bool:
    """Whether a name's extremum is the other way from the asked one's ("the one with the
    smallest average speed" for "Which student has the greatest average speed?")."""
    most, least = _EXTREME_WAYS["maximum"], _EXTREME_WAYS["minimum"]
    return bool((words & most and asked & least) or (words & least and asked & most))


#: A question that counts the values of a variable: "the number of positive integers $n$",
#: "How many ordered pairs $(a, b)$" does not (no one letter), nor "the number of ways".
_COUNTS_VARIABLE = re.compile(
    r"(?i)\b(?:number\s+of|how\s+many)\s+(?:[a-z-]+\s+){0,3}"
    r"(?:\$\s*([a-z])\s*\$|\\\(\s*([a-z])\s*\\\)|(?<!\ba\s)([b-z])(?=[\s,.;]))"
)
#: A name that counts a variable's values: "the total number of n ≤ 2024 where ...", "the
#: number of such \\(k\\)".
_COUNT_OF = re.compile(
    r"(?i)(?:the\s+)?(?:total\s+)?number\s+of\s+(?:(?:such|valid|possible|these|those|all"
    r"|the|good|winning|losing)\s+)?(?:\$|\\\()?\s*([a-z])(?![A-Za-z])"
)

#: What a conversion asks for: "Convert the point $(0,3)$ in rectangular coordinates to polar
#: coordinates" asks for the polar coordinates, not the point.
_CONVERT_TO = re.compile(
    r"(?i)\b(?:convert|express|rewrite|change)\b[^.?]*?\b(?:to|into)\s+(?P<target>(?:[a-z]+\s+)"
    r"{0,2}(?:coordinates|form|notation))\b"
)


#: The unit a question asks its answer in, set off by commas ("What is the length, in units,
#: of the radius of a sphere ...", "the total surface area, in square inches, of a cube"):
#: an aside, which would cut the asked noun phrase from what it is of.
_UNIT_ASIDE = re.compile(r",\s+in\s+(?!each\b|an?\b|the\b)(?:[a-z]+\s+)?[a-z]+,\s*")

#: A letter in math joined to a word: ``$y$-intercepts``, ``\\(x\\)-coordinate``.
_SYMBOL_WORD = re.compile(r"(?:\$|\\\()(?P<letter>[A-Za-z])(?:\$|\\\))-(?=[A-Za-z])")

#: What a question calls a remainder in words.
_LEFT_OVER = re.compile(r"(?i)\bleft\s*over\b|\bleftovers?\b")


#: The model's own statement of its goal ("So I need to find the angle θ such that ...").
_GOAL = re.compile(
    r"(?i)\b(?:need|want|have|asked|going|trying|supposed)\s+to\s+(?:find|compute|determine"
    r"|calculate|evaluate|figure\s+out|solve\s+for|simplify|work\s+out)\s+"
    r"(?P<goal>(?:\\\(.*?\\\)|\$[^$]*\$|[^.;:?\n$\\])+?)"
    r"(?=[.;:?]|,|\s+(?:such\s+that|where|which|given|and\s+express|if|when)\b|\n|$)"
)


#: A sentence that opens with the first of several steps ("First, I need to determine how
#: many cups of flour and milk Mark needs").
_FIRST_STEP = re.compile(
    r"(?i)(?:^|(?<=[.!?])\s+)(?:first(?:ly)?|to\s+(?:start|begin)),?\s+[^.!?]*\Z"
)


def goal_names(reasoning: str, problem: str | None = None) -> list[str]:
    """What the model says it has to find, in its first paragraph (where it restates the
    problem; later "I need to find f(5)" names a step, not the goal). A goal given as the
    first step names the goal only with every word of the question's ("First, I need to
    determine the total cost of grooming the dog" for "How much does the grooming cost?", not
    "how many cups of flour and milk Mark needs" for "how many more bags of flour than bottles
    of milk")."""
    first = reasoning.lstrip()[:2000].split("\n\n", 1)[0]
    goals = []
    for m in _GOAL.finditer(first):
        goal = re.sub(r"^out\s+", "", m.group("goal").strip())
        if _FIRST_STEP.search(first, 0, m.start()) and not (
            problem and _question_words(problem) <= content_words(noun_phrase(goal))
        ):
            continue
        goals.append(goal)
    return goals


def _question_words(problem: str) -> frozenset[str]:
    """The words of the question's noun phrase, or of its last sentence when it has none
    ("How much does the grooming cost?": grooming, cost)."""
    named = question_names(problem)[1]
    if named:
        return named[0]
    sentences = _question_sentences(problem)
    return content_words(sentences[-1]) if sentences else frozenset()


def asked_names(
    problem: str | None,
    final: Sequence[Claim],
    aliases: Iterable[tuple[str, ...]],
    goals: Sequence[str] = (),
) -> Asked:
    """The asked quantity's names from the question, the final statement's names, the goals the
    model set itself (:func:`goal_names`), and the alias chains (tuples of names set equal to
    each other: one step, so aliases of aliases do not spread through a whole trace; never the
    problem's free variables).

    Of the final statement, the subject counts, and the formula just before the value if it is
    named (a letter of their own: ``g(6)``, not ``2 + 2 + 3 + 6``) or written in the
    problem (``129^{34} + 96^{38}``)."""
    math: set[str] = set()
    words: list[frozenset[str]] = []
    problem_key = name_key(problem) if problem else ""
    if problem:
        math, words = question_names(problem)
    direct = frozenset(math)
    named = [
        claim.names[:1] + tuple(n for n in claim.names[-1:] if _is_math_name(n)) for claim in final
    ]
    free = problem_variables(problem) - math if problem else set()
    for name in [n for names in named for n in names] + list(goals):
        if spelled := _TEXT_NAME.fullmatch(name):  # "\\text{Total cost} = 14 \\times 8 = 112"
            name = spelled["words"]
        if _is_math_name(name):
            key = name_key(name)
            if key in free:
                continue  # "x" of "f(x) = ...": the problem's variable, not what it asks
            written = len(key) >= 3 and key in problem_key and re.search(r"[-+*/^\\(]", key)
            if has_letter(name) or written:
                math.add(key)
        else:
            found = content_words(noun_phrase(name)) - GENERIC
            if found:
                words.append(found)
            if not found & EXTREMUM:  # "the maximum value of f(x, y)": f is not asked
                math.update({name_key(p) for p in _math_parts(name)} - free)
    questions = _question_sentences(problem) if problem else []
    context = frozenset().union(*(content_words(s) for s in questions))
    indices = frozenset(
        m.group(1) or _ORDINAL_WORDS[m.group(2).lower()]
        for s in questions
        for m in _ORDINAL_TERM.finditer(s)
    )
    heads = frozenset(m.group(1).lower() for s in questions for m in _TOTAL_ASKED.finditer(s))
    solutions = any(_COUNTS_SOLUTIONS.search(s) for s in questions)
    counted = frozenset(
        next(filter(None, m.groups())) for s in questions for m in _COUNTS_VARIABLE.finditer(s)
    )
    rest = any(_ASKS_REST.search(s) for s in questions)
    asked = Asked(
        frozenset(math), tuple(words), direct, context, indices, heads, solutions, counted, rest
    )
    new_math: set[str] = set()
    new_words: set[frozenset[str]] = set()
    # each distinct chain once (a trace repeats its chains; the sets below are the same), and
    # whether it names the asked quantity only when it would add something (most add nothing)
    for group in dict.fromkeys(tuple(g) for g in aliases if len(g) <= 3):
        symbols = {name_key(n) for n in group if _SYMBOL.fullmatch(name_key(n))} - free
        phrases = set()
        if (
            len(group) == 2
            and not any(_is_math_name(n) for n in group)
            and not any(map(_PARTICIPLE.fullmatch, group))
        ):
            # two names of one thing ("the units digit of s(2023)" is "the units digit of 8 -
            # 3"), not a name and a participle ("The first few rows are given")
            # "the " opens a name's noun phrase just when it opens the name (no phrase end
            # falls inside it), so only those names are cut
            phrases = {
                found
                for n in group
                if _THE.match(n)
                and len((phrase := noun_phrase(n)).split()) <= 4
                and (found := _noun_words(phrase))
            }
        if (symbols or phrases) and any(asked.matches(n) for n in group):
            new_math |= symbols
            new_words |= phrases
    words_all = (*asked.words, *(new_words - set(asked.words)))
    return replace(asked, math=asked.math | new_math, words=words_all)


_THE = re.compile(r"(?i)the\s")
#: A name said with an indefinite article, or as one of several: a kind of thing ("a real
#: number") or one value of several ("one possible value", "another value"), not the value.
_A_KIND = re.compile(r"(?i)\s*(?:an?|one|another)\s")
#: A participle standing alone for a name ("given", "shown", "known"): a verb, no name.
_PARTICIPLE = re.compile(r"(?i)\s*[a-z]+(?:ed|en|wn)\s*")


#: A noun phrase and the symbol the model gives it ("the angle θ between two vectors", "the
#: dot product $\\mathbf{a} \\cdot \\mathbf{b}$ is"): at most three words after "the", the
#: last a noun, not a preposition ("the minimum value of $f$" names no minimum $f$).
_APPOSED = re.compile(
    r"(?i)(?=t)\bthe\s+(?P<words>(?:[a-z][a-z-]+\s+){0,2}"
    r"(?!(?:of|in|on|for|to|at|by|with|from|between|and|or|is|are|as|that)\s)[a-z][a-z-]+)\s+"
    r"(?:\$(?P<m1>[^$<>=]{1,40})\$|\\\((?P<m2>(?:(?!\\\)).){1,40}?)\\\)"
    r"|(?P<greek>[θφαβγψω])(?![\w(]))"
)
#: How far into a trace the model names its symbols: where it sets the problem up.
_SETUP_CHARS = 4000
#: A symbol a sentence gives a quantity: inline math or a lone letter, which may be quoted
#: with the sentence's stop inside the quotes (American style: 'denote the price as "P."').
_DENOTED_SYMBOL = (
    r"(?:\$(?P<{0}1>[^$<>=]{{1,20}})\$|\\\(\s*(?P<{0}2>(?:(?!\\\)).){{1,20}}?)\s*\\\)"
    r"|(?P<q{0}>['‘\"“])?(?P<{0}3>[A-Za-z])(?(q{0})[.,]?['’\"”])(?![\w(]))"
)
#: The model naming a quantity by a symbol of its own in so many words: "Let's denote the
#: total number of students as \( x \)", "Let's call the number of fries Ginger gives as G",
#: "let \( n \) be the number of coins", "Let the smaller integer be x", and in a list of
#: definitions, "Let's define: - \( x \) as the number of questions Frank answered
#: correctly." The words run to the clause's end.
_DENOTED = re.compile(
    r"(?i)(?=[cdl]|-|\*|•)(?:\b(?:denote|call)\s+(?:the\s+)?(?P<w1>[a-z][^.,;:\n$\\]{1,60}?)"
    r"\s+(?:as|by)\s+"
    + _DENOTED_SYMBOL.format("a")
    + r"|\blet\s+"
    + _DENOTED_SYMBOL.format("b")
    + r"\s+(?:be|denote|represent)\s+(?:the\s+)?(?P<w2>[a-z][^.,;:\n$\\]{1,60}?)(?=\s*[.,;:\n])"
    + r"|\blet\s+the\s+(?P<w3>[a-z][^.,;:\n$\\]{1,60}?)\s+be\s+"
    + _DENOTED_SYMBOL.format("c")
    + r"|(?<![^\n \t])[-*•][ \t]*"
    + _DENOTED_SYMBOL.format("d")
    + r"[ \t]+(?:as|is|be|denotes?|represents?|for|:)[ \t]+(?:the\s+)?"
    + r"(?P<w4>[a-z][^.,;:\n$\\]{1,60}?)(?=\s*[.,;:\n])"
    + r")"
)


def apposed_names(reasoning: str, asked: Asked, free: Iterable[str] = ()) -> frozenset[str]:
    """Symbols the model gives the asked quantity in apposition while setting the problem up
    ("the angle θ between two vectors U and V" when the question asks for an angle, "the dot
    product $\\mathbf{a} \\cdot \\mathbf{b}$" for the dot product), and the symbol it
    denotes the asked quantity by ("Let's denote the total number of students as \\( x \\)",
    "Let \\( b \\) be the number of students in both ..."), whose words add none the question
    lacks: the first of each the asked words name, as keys; never a free variable of the
    problem. A question that names nothing but a bare generic noun ("What is the number?")
    gives the symbol denoted by that noun alone ("Let me denote that number as 'x'")."""
    if not asked.words:
        return _denoted_bare(reasoning, asked, free) if asked.context else frozenset()
    skip = set(free)
    question = asked.context.union(*asked.words)
    found: set[str] = set()
    for m in _APPOSED.finditer(reasoning, 0, _SETUP_CHARS):
        symbol = m.group("m1") or m.group("m2") or m.group("greek")
        key = name_key(symbol.strip())
        if not key or key in skip or _RELATION.search(symbol) or not asked.matches(m["words"]):
            continue
        found.add(key)
        break
    for key, words in _denotations(reasoning):
        if not _SYMBOL.fullmatch(key) or key in skip or not asked.matches(words):
            continue
        if content_words(words) - GENERIC - question - _STOP:  # "gives": the question's "give"
            continue  # "Let m be the number of students in MATHCOUNTS only": a part of it
        found.add(key)
        break
    return frozenset(found)


def _denoted_bare(reasoning: str, asked: Asked, free: Iterable[str]) -> frozenset[str]:
    """The symbol the model denotes the question's bare noun by (:func:`apposed_names`): the
    words of its denotation are the question's words and no more ("that number" for "What is
    the number?", not "the number of coins")."""
    for key, said in _denotations(reasoning):
        words = content_words(said)
        if words and words <= asked.context and _SYMBOL.fullmatch(key) and key not in free:
            return frozenset((key,))
    return frozenset()


def _denotations(reasoning: str) -> Iterator[tuple[str, str]]:
    """Each symbol the set-up of ``reasoning`` denotes a quantity by (:data:`_DENOTED`), as
    its key and the words it denotes ("Let me denote that number as 'x'": ``x``, "that
    number")."""
    for m in _DENOTED.finditer(reasoning, 0, _SETUP_CHARS):
        symbol = next(m[f"{g}{i}"] for g in "abcd" for i in "123" if m[f"{g}{i}"])
        yield name_key(symbol.strip()), m["w1"] or m["w2"] or m["w3"] or m["w4"]


def _question_sentences(problem: str) -> list[str]:
    """The problem's question sentences (see :func:`question_names`)."""
    text = re.sub(r"\[asy\].*?\[/asy\]", " ", problem, flags=re.DOTALL)
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    return [s for s in sentences if _ASKS.search(s)][-2:] or sentences[-1:]


#: A question whose task is to rewrite a given formula ("Simplify ...", "Express $555_{10}$ in
#: base 5", "Write the expression ... as a single fraction", "Rewrite the function $f(t) =
#: \cos(2t) + \sin(2t)$ in the form $A \cos(\omega t - \phi)$"): every step of the rewriting
#: equals the gold, so only the gold's form counts. "Express your answer as ..." only says
#: how to write an answer that is computed; "factor" as a noun ("an integrating factor")
#: asks no rewriting.
_FORM_TASK = re.compile(
    r"(?i)\b(?:simplify|rationalize|expand|(?<!integrating\s)(?<!common\s)(?<!an\s)(?<!a\s)"
    r"(?<!the\s)(?<!scale\s)(?<!prime\s)factor)\b|rational\s+denominator"
    r"|\b(?:express|write|rewrite|convert)\s+"
    r"(?:the\s+(?:expression|number|fraction|function|formula|polynomial)\s+)?(?=\$|\\\(|\\\[)"
)


def form_task(problem: str | None) -> bool:
    """Whether the problem asks to rewrite a formula it gives (see ``_FORM_TASK``)."""
    return bool(problem and _FORM_TASK.search(problem))


#: A name that aliases the asked quantity: a symbol (``b``, ``a_1``, ``\\theta``) or a symbol
#: applied to arguments (``g(6)``, ``f^{-1}(2)``), never an expression like ``x + 3``.
_SYMBOL = re.compile(
    r"(?:[A-Za-z]|\\[A-Za-z]+)(?:_\{?\w+\}?|\^\{-1\})?(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?"
)


@lru_cache(maxsize=1 << 10)
def problem_variables(problem: str) -> frozenset[str]:
    """The single-letter variables of the problem's formulas (``x`` in ``f(x) = 2x - 3``):
    the problem's own free variables, which a trace uses everywhere, so they are no alias of
    the asked quantity unless the question asks for them. Memoised for a run's problems (a
    few hundred): each response to a problem reads them twice (``asked_names`` and the
    locator), and a run holds several responses to each."""
    found: set[str] = set()
    for span in math_spans(problem):
        inner = re.sub(r"\\[A-Za-z]+", " ", problem[span.inner_start : span.inner_end])
        found.update(re.findall(r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])", inner))
    return frozenset(found)
