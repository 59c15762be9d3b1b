"""Answer equivalence: verdicts on MATH-500-style pairs, and the isolation layer under abuse."""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lm_eval_thinkbench.math import verify as verify_module
from lm_eval_thinkbench.math.grader import WALL_BACKSTOP, FirstMatch, Grader, Verdict
from lm_eval_thinkbench.math.verify import braces_balanced, normalize

REPO = Path(__file__).resolve().parent.parent
DEADLINE = 2.0

#: The verdict table: (gold as MATH-500 writes it, candidate as extracted from a response,
#: equivalent?), each right by hand, grouped by what it tests. ``benchmarks/grading_differences.py``
#: prints how plain math-verify fares on the same table, so it lives in the benchmarks' data.
PAIRS = [
    (r["gold"], r["candidate"], r["equivalent"])
    for r in map(
        json.loads,
        (REPO / "benchmarks" / "data" / "grader_verdicts.jsonl")
        .read_text(encoding="utf-8")
        .splitlines(),
    )
]


def _pair_id(pair: tuple[str, str, bool]) -> str:
    return f"{pair[0]} ~ {pair[1]} -> {pair[2]}"


@pytest.fixture(scope="module")
def grader():
    with Grader(deadline=DEADLINE) as g:
        g.start()  # worker start-up belongs to no test's timing
        yield g


def test_table_is_varied() -> None:
    assert len(PAIRS) >= 60
    assert len({(g, c) for g, c, _ in PAIRS}) == len(PAIRS)
    assert sum(expected for *_, expected in PAIRS) >= 30
    assert sum(not expected for *_, expected in PAIRS) >= 30


@pytest.mark.parametrize("pair", PAIRS, ids=_pair_id)
def test_verdicts(grader: Grader, pair: tuple[str, str, bool]) -> None:
    gold, candidate, expected = pair
    verdict = grader.equivalent(gold, candidate)
    assert verdict.equivalent is expected
    # an unbalanced candidate is refused before any check; everything else gets a real verdict
    assert verdict.status in (
        {"fast", "checked", "cached"} if braces_balanced(candidate) else {"error"}
    )


@pytest.mark.slow
def test_at_least_as_accurate_as_math_verify_used_directly(grader: Grader) -> None:
    """Wherever math-verify, called the documented way, gets a pair right, so do we.

    Two direct usages are compared: the README's (both answers wrapped in ``$``) and the
    candidate passed bare (as ``parse(model_output)`` would see an extracted answer).
    """
    from math_verify import parse, verify

    usages = {
        "readme": lambda g, c: verify(parse(f"${g}$"), parse(f"${c}$")),
        "bare": lambda g, c: verify(parse(f"${g}$"), parse(c)),
    }
    for name, direct in usages.items():
        theirs = ours = 0
        for gold, candidate, expected in PAIRS:
            direct_right = direct(gold, candidate) is expected
            our_right = grader.equivalent(gold, candidate).equivalent is expected
            assert our_right or not direct_right, (name, gold, candidate)
            theirs += direct_right
            ours += our_right
        assert ours >= theirs, name


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("5", "500"),
        ("(1,2)", "[1,2]"),
        ("1,000", "1000"),
        ("[0,1]", "(0,1)"),
        ("x=5", "5"),
        (r"10\%", "10"),
        (r"\frac{1}{2}", r"\frac{1}{3}"),
        ("-2", "2"),
        (r"\{1,2\}", "(1,2)"),
    ],
)
def test_normalize_never_merges_different_strings(a: str, b: str) -> None:
    assert normalize(a) != normalize(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (r"\left( 3, \frac{\pi}{2} \right)", r"(3,\frac{\pi}{2})"),
        (r"\dfrac{1}{2}", r"\frac{1}{2}"),
        (r"\tfrac{1}{2}", r"\frac{1}{2}"),
        (r"30^\circ", "30"),
        (r"30^{\circ}", "30"),
        (r"\text{(C)}", "(C)"),
        (r"10,\!080", "10,080"),
        ("$5$.", "5"),
        (r"2\,\sqrt{5}", r"2\sqrt{5}"),
    ],
)
def test_normalize_fast_path(grader: Grader, a: str, b: str) -> None:
    assert normalize(a) == normalize(b)
    assert grader.equivalent(a, b) == Verdict(True, "fast")


def test_cache(grader: Grader) -> None:
    first = grader.equivalent(r"\frac{1}{4}", "2^{-2}")
    assert first == Verdict(True, "checked")
    assert grader.equivalent(r"\frac{1}{4}", "2^{-2}") == Verdict(True, "cached")
    # keyed by the text less surrounding space: a respelling is checked again
    assert grader.equivalent(r"\frac{1}{4}", " 2^{-2} ") == Verdict(True, "cached")
    assert grader.equivalent(r"\dfrac{1}{4}", "2^{-2}") == Verdict(True, "checked")
    with Grader(deadline=DEADLINE, cache_size=0) as uncached:
        assert uncached.equivalent(r"\frac{1}{4}", "2^{-2}") == Verdict(True, "checked")
        assert uncached.equivalent(r"\frac{1}{4}", "2^{-2}") == Verdict(True, "checked")


@pytest.mark.parametrize(
    ("gold", "first", "then"),
    [
        # texts that normalise alike but that math-verify reads apart: the verdict of one is
        # not the other's, whichever a run checks first (an annotated Minerva trace read 12.4
        # eV as 12.4 after a run had checked 12.4\text{ eV})
        ("12.4", r"12.4\text{ eV}", "12.4 eV"),
        ("12.4", "12.4 eV", r"12.4\text{ eV}"),
        # ``3 pi`` (plain pi) and ``\text{3pi}`` (a word): only one is 3π
        (r"3\pi", "3 pi", r"\text{3pi}"),
        (r"3\pi", r"\text{3pi}", "3 pi"),
    ],
)
def test_a_verdict_does_not_depend_on_what_was_checked_before(gold, first, then) -> None:
    with Grader(deadline=DEADLINE, cache_size=0) as fresh:
        expected = fresh.equivalent(gold, then).equivalent
    with Grader(deadline=DEADLINE) as g:
        g.equivalent(gold, first)
        assert g.equivalent(gold, then).equivalent is expected
        assert g.first_equivalent(gold, [first, then]).index == (
            0 if g.equivalent(gold, first).equivalent else 1 if expected else None
        )


@pytest.mark.slow
def test_power_tower_times_out_and_the_grader_recovers() -> None:
    with Grader(deadline=DEADLINE) as g:
        start = time.monotonic()
        verdict = g.equivalent("5", "5^{5^{5^{5^5}}}")
        elapsed = time.monotonic() - start
        assert verdict == Verdict(False, "timeout")
        assert elapsed < WALL_BACKSTOP * DEADLINE + 1.0  # about DEADLINE on an idle machine
        # the killed worker was replaced: the next checks are right
        assert g.equivalent(r"\frac{1}{2}", "2^{-1}") == Verdict(True, "checked")
        assert g.equivalent(r"\sin x", r"\cos x") == Verdict(False, "checked")
        # the timeout is cached: asking again costs nothing
        start = time.monotonic()
        assert g.equivalent("5", "5^{5^{5^{5^5}}}") == Verdict(False, "cached")
        assert time.monotonic() - start < 0.1


_real_first_equivalent = verify_module.first_equivalent


def _hang_in_c(gold, candidates, on_progress=None):
    """Stand-in for the worker's check: on one marker candidate, spin inside a single C call."""
    if "hang-in-c" in candidates:
        if on_progress is not None:
            on_progress(candidates.index("hang-in-c"))
        return sum(range(10**13))  # no Python-level signal handler can run until this returns
    return _real_first_equivalent(gold, candidates, on_progress)


@pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork", reason="workers inherit the patch only by fork"
)
@pytest.mark.slow
def test_a_worker_stuck_in_one_c_call_is_replaced_promptly(monkeypatch) -> None:
    """pebble stops a worker with SIGTERM and waits 3 s before SIGKILL; a Python-level handler
    cannot run inside one long C call, so without the default disposition the replacement
    worker (and the next check) would be 3 s late."""
    monkeypatch.setattr(verify_module, "first_equivalent", _hang_in_c)
    with Grader(deadline=1.0) as g:
        assert g.equivalent("1", "1^{2}") == Verdict(True, "checked")  # workers are up
        assert g.equivalent("5", "hang-in-c") == Verdict(False, "timeout")
        start = time.monotonic()
        assert g.equivalent(r"\frac{1}{2}", "2^{-1}") == Verdict(True, "checked")
        assert time.monotonic() - start < 1.5


@pytest.mark.slow
def test_first_equivalent_finds_the_answer_after_a_hostile_candidate() -> None:
    candidates = [r"\ln 2", "7^{7^{7^{7^7}}}", r"\cos 1", "2^{-1}", "1/2"]
    with Grader(deadline=DEADLINE) as g:  # a fresh cache, so every candidate needs a worker
        start = time.monotonic()
        match = g.first_equivalent(r"\frac{1}{2}", candidates)
        elapsed = time.monotonic() - start
    # "\ln 2" checked, the tower killed at its deadline, then "\cos 1" and "2^{-1}" in a new call
    assert match == FirstMatch(index=3, timeouts=1, checked=3)
    # the default budget of worker CPU; in wall time within the backstop, plus a restart
    assert elapsed < WALL_BACKSTOP * 2 * DEADLINE + 1.0


@pytest.mark.slow
def test_first_equivalent_budget_bounds_the_call() -> None:
    candidates = ["3^{3^{3^{3^{3^3}}}}", "8^{8^{8^8}}", "9^{9^{9^9}}", "2^{-1}"]
    with Grader(deadline=DEADLINE) as g:
        start = time.monotonic()
        match = g.first_equivalent("0.5", candidates, budget=1.0)
        elapsed = time.monotonic() - start
    assert elapsed < WALL_BACKSTOP * 1.0 + 1.0
    # cut by the budget before any deadline expired: nothing found, nothing cached as timeout
    assert match.index is None
    assert match.timeouts == 1


def test_first_equivalent_plain_cases(grader: Grader) -> None:
    gold = r"\frac{3}{5}"
    assert grader.first_equivalent(gold, ["1", "2", "0.6", "3/5"]).index == 2
    assert grader.first_equivalent(gold, ["1", "2"]) == FirstMatch(None, 0, 0)  # cached now
    dedup = [r"\ln 2", r"\ln 2", r"\cos 1"]  # outside the screen: a worker checks them
    assert grader.first_equivalent(gold, dedup) == FirstMatch(None, 0, 2)
    assert grader.first_equivalent(gold, ["x", "2\\sqrt{3}"]) == FirstMatch(None, 0, 0)  # screen
    assert grader.first_equivalent(gold, ["7", "8"]) == FirstMatch(None, 0, 0)  # plainly not
    assert grader.first_equivalent(gold, [r"\dfrac{3}{5}", "0.6"]) == FirstMatch(0, 0, 0)  # fast
    assert grader.first_equivalent(gold, []) == FirstMatch(None, 0, 0)
    assert grader.first_equivalent(gold, "0.6").index == 0  # a bare string is one candidate
    assert grader.first_equivalent(gold, [None, 3, "", "0.6"]).index == 3  # type: ignore[list-item]
    assert grader.first_equivalent(None, ["0.6"]) == FirstMatch(None, 0, 0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("gold", "candidate"),
    [
        (None, "5"),
        ("5", None),
        ("", ""),
        ("5", ""),
        ("5", 5),
        ("5", "5" * 1_000_000),
        ("5", "x" * 1_000_000),
        ("5", "{" * 100_000),
        (r"\frac{1}{2}", r"\frac{1}{2"),
        ("5", "5}}"),
        ("5", "\ufffd\ufffd5"),
        ("5", "\udcff5"),
        ("\ufffd", "\ufffd\ufffd"),
    ],
    ids=[
        "none-gold",
        "none-cand",
        "empty",
        "empty-cand",
        "int",
        "1MB-digits",
        "1MB-letters",
        "open-braces",
        "unbalanced",
        "close-braces",
        "replacement-chars",
        "surrogate",
        "replacement-gold",
    ],
)
def test_bad_input_is_not_equivalent_and_never_raises(grader: Grader, gold, candidate) -> None:
    start = time.monotonic()
    verdict = grader.equivalent(gold, candidate)
    assert verdict.equivalent is False
    assert verdict.status in {"error", "checked"}
    assert time.monotonic() - start < 1.0


def test_concurrent_callers_share_workers() -> None:
    pairs = [(g, c, e) for g, c, e in PAIRS[:24]]
    results: dict[int, bool] = {}
    with Grader(deadline=DEADLINE, workers=2) as g:

        def run(i: int) -> None:
            gold, candidate, _ = pairs[i]
            results[i] = g.equivalent(gold, candidate).equivalent

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(pairs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
    assert results == {i: e for i, (_, _, e) in enumerate(pairs)}


def test_closed_grader_still_answers() -> None:
    g = Grader(deadline=DEADLINE)
    g.close()
    assert g.equivalent("5", "5") == Verdict(True, "fast")
    assert g.equivalent("5", "x") == Verdict(False, "fast")  # the screen needs no worker
    assert g.equivalent("5", r"\ln x") == Verdict(False, "error")


def _run_python(code: str, **env: str) -> str:
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **env}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=full_env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.slow
def test_fast_path_needs_no_math_verify_and_exit_does_not_hang() -> None:
    out = _run_python(
        "import sys\n"
        "from lm_eval_thinkbench.math.grader import Grader\n"
        "g = Grader()\n"
        "v = g.equivalent(r'\\dfrac{1}{2}', r'\\frac{1}{2}')\n"
        "print(v.status, 'math_verify' in sys.modules)\n"
        "print(g.equivalent('1', '1^{2}').status)\n"  # starts a worker; exit without close()
    )
    assert out.splitlines() == ["fast False", "checked"]


@pytest.mark.slow
def test_default_grader_reads_its_deadline_from_the_environment() -> None:
    out = _run_python(
        "from lm_eval_thinkbench.math.grader import default_grader\n"
        "g = default_grader()\n"
        "print(g.deadline, g is default_grader(), g.equivalent('2', '1+1').equivalent)\n",
        THINKBENCH_GRADE_DEADLINE="0.75",
    )
    assert out == "0.75 True True"


def test_plainly_different_numbers_need_no_worker() -> None:
    with Grader(deadline=DEADLINE) as g:
        assert g.equivalent("7", "8") == Verdict(False, "fast")
        assert g.equivalent(r"\frac{1}{3}", "0.25") == Verdict(False, "fast")
        # close decimals and anything not a plain number still go to math-verify
        assert g.equivalent(r"\frac{1}{3}", "0.333333").status != "fast"
        assert g.equivalent(r"5\%", "0.05").status != "fast"


def _sympy(latex: str):
    """The first sympy object math-verify makes of a gold-style answer."""
    return verify_module.parse_gold(latex)[0]


@pytest.mark.parametrize(
    ("a", "b", "settled"),
    [
        # plainly different: settled without simplify
        ("(a+5)(b+2)", "7932", True),
        (r"\cot x", "15851", True),
        (r"3\sqrt{13}", "7932", True),
        ("x^2+1", "x^2", True),
        # hostile forms are evaluated at once too (never left to grind)
        (r"\sin(10^{100} x)", "7", True),
        ("e^{e^{e^{x}}}", "2", True),
        ("2000", r"2\%", True),  # a percentage: its value, as simplify evaluates it
        (r"\frac{1}{50}", r"2\%", False),
        # equal, or equal at the point but not identically: left to simplify
        ("1", r"\sin^2 x + \cos^2 x", False),
        (r"\frac{x^2-1}{x-1}", "x+1", False),
        (r"\sqrt{x^2}", "x", False),
        (r"\frac{1}{x-x}", "1", False),
        (r"\frac{1}{3}", r"\frac{2}{6}", False),
        # matrices of one shape, entry by entry
        (r"\begin{pmatrix} v \\ 2 \end{pmatrix}", r"\begin{pmatrix} -1/3 \\ 2 \end{pmatrix}", True),
        (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", False),
        (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", r"\begin{pmatrix} 1 & 2 \end{pmatrix}", False),
        # not scalar expressions
        (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", "7", False),
        ("(1, 2)", "3", False),
    ],
)
def test_numeric_witness_settles_only_plain_differences(a: str, b: str, settled: bool) -> None:
    assert verify_module.plainly_nonzero_difference(_sympy(a), _sympy(b)) is settled


def _same_verdicts(monkeypatch, step: str, guard, pairs) -> None:
    """math-verify's verdict on each (gold, candidate) is the same with its comparison step
    ``step`` as it is and with ``guard`` of it."""
    from math_verify import grader as math_verify_grader
    from math_verify import verify

    plain = getattr(math_verify_grader, step)
    for gold, candidate in pairs:
        parsed_gold = verify_module.parse_gold(gold)
        parsed = verify_module.parse_candidate(candidate)
        verdicts = []
        for compare in (plain, guard(plain)):
            monkeypatch.setattr(math_verify_grader, step, compare)
            verdicts.append(verify(parsed_gold, parsed, timeout_seconds=None))
        assert verdicts[0] == verdicts[1], (gold, candidate)


@pytest.mark.slow
def test_numeric_witness_keeps_every_verdict(monkeypatch) -> None:
    """The witness only skips ``simplify`` where it would say "not equal": the verdict table,
    checked with math-verify's own symbolic step and with the witnessed one, agrees pair by pair
    (benchmarks/numeric_witness.py does the same on 4,600 pairs)."""
    extra = [("1", r"\sin^2 x + \cos^2 x", True), ("x+1", r"\frac{x^2-1}{x-1}", True)]
    column = r"\begin{{pmatrix}} {} \\ {} \end{{pmatrix}}"
    extra += [(column.format("v", 2), column.format(-1, 2), False),
              (column.format("2x", 1), column.format("x+x", 1), True)]  # fmt: skip
    extra += [("2000", "2%", False), ("10", r"10\%", True), (r"\frac{1}{50}", "2%", True),
              ("0.02", r"2\%", True), ("2", r"200\%", True), ("3", r"200\%", False)]  # fmt: skip
    pairs = [(g, c) for g, c, _ in PAIRS + extra if braces_balanced(c)]
    _same_verdicts(monkeypatch, "sympy_symbolic_eq", verify_module.with_numeric_witness, pairs)


@pytest.mark.parametrize(
    ("gold", "candidate", "settled"),
    [
        ("y = 2x + 3", "2a - b = 9", True),  # the gold solves for x; the candidate has none
        ("y = 2x + 3", "y = 4t + 1", True),
        ("5x - 7y + 11z + 4 = 0", "c = 2", True),
        ("y = 2x + 3", "x = 2t - 1", False),  # an x: math-verify solves and decides
        ("y = 2x + 3", "y = 2x + 3", False),
        ("x^2 = 4", "t = 2", False),  # a single symbol solves to values, not dicts
        ("y = 2x + 3", "2", False),  # not an equation
    ],
)
def test_solved_gold_settles_only_equations_in_other_symbols(gold, candidate, settled) -> None:
    assert verify_module.solves_for_other_symbols(_sympy(gold), _sympy(candidate)) is settled


def _settled(shortcut, pairs: list[tuple[str, str]]) -> int:
    """How many of ``pairs`` (gold, candidate) ``shortcut`` settles on their first readings."""
    return sum(
        bool(shortcut(verify_module.parse_gold(g)[0], verify_module.parse_candidate(c)[0]))
        for g, c in pairs
    )


@pytest.mark.slow
def test_solved_gold_keeps_every_verdict(monkeypatch) -> None:
    """Equations against equations: math-verify's own solve-and-compare and the shortcut agree
    pair by pair (the identity dumps of the real runs do the same on every equation there)."""
    equations = ["y = 2x + 3", "2y = 4x + 6", "2a - b = 9", "y = 4t + 1", "x = 2t - 1",
                 "x^2 = 4", "x + y = 1", "c = 3d - 1"]  # fmt: skip
    pairs = [(gold, candidate) for gold in equations for candidate in equations]
    _same_verdicts(monkeypatch, "sympy_solve_and_compare", verify_module.with_solved_gold, pairs)
    settled = _settled(verify_module.solves_for_other_symbols, pairs)
    assert settled >= 15


@pytest.mark.parametrize(
    ("a", "b", "settled"),
    [
        (r"\left[ \frac{\pi^2}{8}, \frac{5 \pi^2}{4} \right]", r"\frac{\pi}{2} - \arccos x", True),
        ("(2, \\infty)", "3", True),
        ("1,-2", "2axy - xy - 1", True),  # two different numbers: no one value is that set
        (r"3 \pm 2 \sqrt{2}", r"\tan^{-1}(x)", True),
        ("x", "(0, 1)", True),  # either way round
        ("(1, 2)", "(1, 2)", False),  # two sets: math-verify compares them
        ("[2, 2]", "2", False),  # a one-point interval is that point's set
        ("(a, b)", "3", False),  # ends that may coincide
        ("x, y", "3", False),  # elements that may coincide
        (r"\{1, \frac{2}{2}\}", "1", False),
    ],
)
def test_set_shortcut_settles_only_sets_of_several_reals_against_one_value(a, b, settled) -> None:
    assert verify_module.set_against_one_value(_sympy(a), _sympy(b)) is settled


@pytest.mark.slow
def test_set_shortcut_keeps_every_verdict(monkeypatch) -> None:
    """Sets, intervals and tuples against single values and against each other: math-verify's
    own set comparison and the shortcut agree pair by pair."""
    answers = [r"\left[ \frac{\pi^2}{8}, \frac{5 \pi^2}{4} \right]", "(2, \\infty)", "1,-2",
               r"3 \pm 2 \sqrt{2}", "[2, 2]", "(1, 2)", "x", "3", r"\frac{\pi^2}{8}",
               "2axy - xy - 1", "-2", r"\{1, 1\}", "1", "x, y"]  # fmt: skip
    pairs = [(gold, candidate) for gold in answers for candidate in answers]
    _same_verdicts(monkeypatch, "sympy_compare_sets", verify_module.with_set_shortcut, pairs)
    settled = _settled(verify_module.set_against_one_value, pairs)
    assert settled >= 40


def test_grading_workers_run_with_the_numeric_witness_and_two_stage_parsing() -> None:
    """... and with math-verify's warmed heap frozen out of the cyclic collector (its full
    collections walked all of sympy again: a third of a second per real run), collecting
    rarely (``lifetime.collect_rarely``)."""
    with Grader(deadline=DEADLINE) as g:
        g.start()
        pool, _ = g._pool()
        assert (
            pool.schedule(_guarded, args=("sympy_symbolic_eq", "numeric_witness")).result(
                timeout=30
            )
            is True
        )
        assert pool.schedule(_two_stage_installed).result(timeout=30) is True
        assert (
            pool.schedule(_guarded, args=("sympy_solve_and_compare", "solved_gold")).result(
                timeout=30
            )
            is True
        )
        assert (
            pool.schedule(_guarded, args=("sympy_compare_sets", "set_shortcut")).result(timeout=30)
            is True
        )
        assert pool.schedule(gc.get_freeze_count).result(timeout=30) > 10_000
        assert pool.schedule(gc.get_threshold).result(timeout=30)[0] == 20_000


def _guarded(step: str, mark: str) -> bool:
    """Whether math-verify's comparison step ``step`` carries the guard ``mark`` names."""
    from math_verify import grader as math_verify_grader

    return getattr(getattr(math_verify_grader, step), mark, False)


def _two_stage_installed() -> bool:
    from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy

    return getattr(_Latex2Sympy.create_parser, "two_stage", False)


def test_two_stage_parsing_reads_every_answer_as_ll_parsing_does(monkeypatch) -> None:
    """SLL first, LL on a syntax error: the same readings, including those only LL parses
    (``x^2``, ``z_0``: SLL reports an error there), and the same failures for junk
    (benchmarks/parse_modes.py compares 7,000 pairs of the real traces)."""
    from antlr4.atn.PredictionMode import PredictionMode
    from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy

    answers = [
        "x^2",
        "z_0",
        "-7i - 5i^2",
        r"\frac{\sqrt{ab + a}}{b}",
        "2, +3",
        "(3, 4]",
        "}{",
        "5 (",
    ]

    def readings() -> list[str]:
        out = []
        for answer in answers:
            try:
                out.append(repr(_Latex2Sympy().parse(answer)))
            except Exception as exc:
                out.append(type(exc).__name__)
        return out

    plain = readings()
    assert plain.count("Exception") == 2  # the junk, in both modes
    monkeypatch.setattr(_Latex2Sympy, "create_parser", _Latex2Sympy.create_parser)
    verify_module.install_two_stage_parsing()
    verify_module.install_two_stage_parsing()  # idempotent: still one wrapper
    assert _Latex2Sympy().create_parser("1")._interp.predictionMode == PredictionMode.SLL
    assert readings() == plain


def _child_grades(queue) -> None:
    from lm_eval_thinkbench.math.grader import default_grader

    grader = default_grader()
    queue.put((grader._resources["owner"] == os.getpid(), grader.equivalent("x^2", "x*x")))


def test_a_forked_process_gets_its_own_default_grader() -> None:
    """A process forked from one with a running default grader (analyze's scoring workers, a
    notebook's second run) grades with workers of its own, and leaves the parent's alone."""
    from lm_eval_thinkbench.math.grader import default_grader

    parent = default_grader()
    assert parent.equivalent("y^2", "y*y") == Verdict(True, "checked")
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_grades, args=(queue,))
    child.start()
    owned, verdict = queue.get(timeout=60)
    child.join(timeout=60)
    assert owned and verdict == Verdict(True, "checked")
    assert child.exitcode == 0
    # the parent's workers and progress directory survived the child
    assert parent.equivalent("z^3", "z*z*z") == Verdict(True, "checked")
    assert os.path.isdir(parent._resources["dir"])


#: CPU seconds the stand-in check below burns: 80% of the deadline of the tests under load.
_LOADED_DEADLINE = 1.0
_BURN = 0.8 * _LOADED_DEADLINE


def _burn_cpu(gold, candidates, on_progress=None):
    """Stand-in for the worker's check: on one marker candidate, burn ``_BURN`` seconds of CPU
    and call it equivalent."""
    if "burn-cpu" in candidates:
        index = candidates.index("burn-cpu")
        if on_progress is not None:
            on_progress(index)
        start = time.process_time()
        while time.process_time() - start < _BURN:
            pass
        return index
    return _real_first_equivalent(gold, candidates, on_progress)


def _spin() -> None:
    while True:
        pass


@pytest.fixture
def loaded_machine():
    """A CPU-burning process per core for the test's duration."""
    context = multiprocessing.get_context("fork")
    burners = [context.Process(target=_spin, daemon=True) for _ in range(os.cpu_count() or 1)]
    for burner in burners:
        burner.start()
    yield
    for burner in burners:
        burner.terminate()
    for burner in burners:
        burner.join(timeout=5)


@pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork", reason="workers inherit the patch only by fork"
)
@pytest.mark.slow
def test_a_check_within_its_cpu_deadline_passes_on_a_loaded_machine(
    monkeypatch, loaded_machine
) -> None:
    """Item 11: the deadline counts the worker's CPU, so a check that needs 80% of it is
    equivalent however busy the machine is, even when it takes longer than the deadline in
    wall time (which a wall-clock deadline turned into a timeout)."""
    monkeypatch.setattr(verify_module, "first_equivalent", _burn_cpu)
    with Grader(deadline=_LOADED_DEADLINE) as g:
        g.start()
        start = time.monotonic()
        verdict = g.equivalent("5", "burn-cpu")
        elapsed = time.monotonic() - start
    assert elapsed > _LOADED_DEADLINE, "the machine was not loaded: the test shows nothing"
    assert verdict == Verdict(True, "checked"), f"{elapsed:.1f} s"


@pytest.mark.slow
def test_a_power_tower_times_out_within_the_bound_on_a_loaded_machine(loaded_machine) -> None:
    with Grader(deadline=_LOADED_DEADLINE) as g:
        g.start()
        start = time.monotonic()
        verdict = g.equivalent("5", "5^{5^{5^{5^5}}}")
        elapsed = time.monotonic() - start
        assert verdict == Verdict(False, "timeout")
        assert elapsed < WALL_BACKSTOP * _LOADED_DEADLINE + 1.0
        assert g.equivalent(r"\frac{1}{2}", "2^{-1}") == Verdict(True, "checked")


@pytest.mark.slow
def test_the_budget_counts_worker_cpu_across_calls() -> None:
    """After a tower used up its deadline, the next call gets what is left of the budget: a
    second tower then runs out of the budget (not cached as a timeout)."""
    towers = ["7^{7^{7^{7^7}}}", "8^{8^{8^{8^8}}}", "2^{-1}"]
    with Grader(deadline=1.0) as g:
        match = g.first_equivalent("0.5", towers, budget=1.5)
        assert match == FirstMatch(None, 2, 0)
        # the first tower timed out on its own deadline and is cached; the second was cut by
        # the budget and is not, so a call with budget to spare checks it (and times out)
        assert g.equivalent("0.5", towers[0]) == Verdict(False, "cached")
        assert g.first_equivalent("0.5", towers[1:]) == FirstMatch(1, 1, 1)
