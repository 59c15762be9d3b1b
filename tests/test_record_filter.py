"""The shared lm-eval filter glue (``harness.records.RecordFilter``): marker detection per run
and the length limit, driven through lm-eval's own ``FilterEnsemble`` and ``Instance``."""

from __future__ import annotations

import gc
import json
import threading
import time

import pytest
from lm_eval.api.filter import FilterEnsemble
from lm_eval.api.instance import Instance

from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.harness.records import RecordFilter
from lm_eval_thinkbench.lifetime import collecting_rarely
from lm_eval_thinkbench.math500.filters import ThinkEfficiencyFilter
from lm_eval_thinkbench.response import ModelResponse
from lm_eval_thinkbench.turns import in_order

DOC = {"problem": "What is 1 + 1?", "answer": "2"}


@pytest.fixture(autouse=True)
def default_settings():
    settings.configure({})
    yield
    settings.configure({})


def run(resps: list[str], max_gen_toks: int = 32768, **metadata) -> list[dict]:
    """``resps`` through lm-eval's FilterEnsemble, one document each; their records."""
    settings.configure(metadata)
    instances = [
        Instance(
            request_type="generate_until",
            doc=DOC,
            arguments=("prompt", {"until": [], "max_gen_toks": max_gen_toks}),
            idx=0,
            metadata=("thinkbench_math500", i, 1),
            resps=[r],
        )
        for i, r in enumerate(resps)
    ]
    FilterEnsemble("thinkbench", [ThinkEfficiencyFilter]).apply(instances)
    return [json.loads(i.filtered_resps["thinkbench"][0]) for i in instances]


def test_a_run_that_thinks_reads_an_unmarked_cut_response_as_truncated():
    records = run(["1+1.\n</think>\n\\boxed{2}", "1+1 is, hmm, let me see whether \\boxed{2}"])
    assert [r["markers"] for r in records] == ["think", "think"]
    assert [r["truncated"] for r in records] == [False, True]
    assert records[1]["correct"]  # lenient: the last box of the unfinished thought


def test_a_run_of_plain_answers_is_complete_and_measured_whole():
    records = run(["We add: \\boxed{2}", "It is \\boxed{3}"])
    assert [(r["markers"], r["truncated"]) for r in records] == [("none", False)] * 2
    assert records[0]["correct"] and records[0]["answer_tokens"] == 0
    assert records[0]["reasoning_tokens"] > 0


def test_a_response_at_max_gen_toks_is_cut_by_the_length_limit():
    long = "one plus one " * 20  # 60 tokens, no box
    records = run(["We add: \\boxed{2}", long], max_gen_toks=60)
    assert [r["truncated"] for r in records] == [False, True]
    assert [r["truncated"] for r in run(["We add: \\boxed{2}", long], max_gen_toks=100)] == [
        False,
        False,
    ]


def test_set_markers_skip_detection_and_custom_markers_split():
    assert run(["We add: \\boxed{2}"], markers="think")[0]["truncated"] is True
    (record,) = run(["<r>1+1</r> \\boxed{2}"], think_start="<r>", think_end="</r>")
    assert (record["markers"], record["truncated"], record["correct"]) == ("custom", False, True)
    with pytest.raises(ValueError, match="think_end"):
        settings.configure({"think_start": "<r>"})
    with pytest.raises(ValueError, match="unknown marker set"):
        settings.configure({"markers": "qwen9"})


def test_in_order_overlaps_items_keeps_their_order_and_serialises_shared_keys():
    running: set[int] = set()
    overlapped: list[tuple[int, int]] = []
    lock = threading.Lock()

    def work(i: int) -> int:
        with lock:
            overlapped.extend((i, j) for j in running)
            running.add(i)
        time.sleep(0.02 if i % 3 else 0.05)  # uneven: later items finish first
        with lock:
            running.discard(i)
        return i * i

    keys = [frozenset({"a"}) if i in (0, 1, 4) else frozenset({i}) for i in range(8)]
    assert list(in_order(work, range(8), keys, threads=2)) == [i * i for i in range(8)]
    pairs = {frozenset(p) for p in overlapped}
    assert pairs, "two threads never ran at once"
    assert not pairs & {frozenset(p) for p in ((0, 1), (0, 4), (1, 4))}
    assert all(max(p) - min(p) < 4 for p in pairs)  # at most 2 x threads in flight


def test_in_order_raises_at_the_failing_item_and_starts_no_more():
    started: list[int] = []

    def work(i: int) -> int:
        started.append(i)
        if i == 2:
            raise ValueError("bad document")
        return i

    results = in_order(work, range(50), [frozenset()] * 50, threads=2)
    assert [next(results), next(results)] == [0, 1]
    with pytest.raises(ValueError, match="bad document"):
        next(results)
    assert max(started) < 2 + 4


def test_threads_take_turns_and_hand_over_only_while_waiting():
    """One document scores at a time; another runs only while one waits on a worker."""
    busy: list[int] = []  # documents scoring outside a wait
    waiting: set[int] = set()
    seen: list[tuple[int, bool]] = []  # (documents busy, another waiting) at each start
    lock = threading.Lock()

    class Turns(RecordFilter):
        threads = 2

        def score(self, raw: ModelResponse, doc: dict) -> dict:
            def work() -> None:
                with lock:
                    busy.append(doc["i"])
                    seen.append((len(busy), bool(waiting - {doc["i"]})))
                time.sleep(0.01)
                with lock:
                    busy.remove(doc["i"])

            work()
            with self.handing_over():  # as the grader does around a worker call
                waiting.add(doc["i"])
                time.sleep(0.03)
                waiting.discard(doc["i"])
            work()
            return {"i": doc["i"]}

    docs = [{"i": i} for i in range(6)]
    out = Turns().apply([["x"]] * 6, docs)
    assert [json.loads(r[0])["i"] for r in out] == list(range(6))
    assert max(n for n, _ in seen) == 1  # never two at once outside a wait
    assert any(overlapped for _, overlapped in seen)  # but beside another's wait


def test_threaded_scoring_gives_the_records_of_one_by_one_scoring():
    """The default threads against one: same records, in order, with documents that share a
    gold (scored one after another) and others (overlapped)."""
    golds = ["2", "5", "2", "\\frac{1}{2}", "2", "7"]
    docs = [{"problem": f"Problem {i}?", "answer": g} for i, g in enumerate(golds)]
    resps = [
        [f"Try 3. So x = 1.5. Wait, {g} works.\n</think>\n\\boxed{{{g}}}", "It is \\boxed{0.5}"]
        for g in golds
    ]
    serial = ThinkEfficiencyFilter()
    serial.threads = 1
    assert ThinkEfficiencyFilter.threads > 1
    assert ThinkEfficiencyFilter().apply(resps, docs) == serial.apply(resps, docs)


def test_documents_are_scored_collecting_garbage_rarely():
    """The filter scores in lm-eval's process, whose full collections walk lm-eval's whole
    heap: while it scores, what was loaded before is frozen out of them and the youngest
    generation is collected rarely; afterwards the process collects as it did."""
    seen: list[tuple[int, bool]] = []

    class Seen(RecordFilter):
        def score(self, raw: ModelResponse, doc: dict) -> dict:
            seen.append((gc.get_threshold()[0], gc.get_freeze_count() > 0))
            return {}

    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    Seen().apply([["x"]] * 2, [{}, {}])
    assert seen == [(20_000, True)] * 2
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_host_that_froze_its_heap_keeps_it_frozen():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with collecting_rarely():
            assert gc.get_threshold()[0] == 20_000
        # frozen objects freed meanwhile by their reference counts leave the permanent
        # generation (a CI run saw 778,911 become 778,909); an unfreeze would empty it
        assert gc.get_freeze_count() > frozen // 2
    finally:
        gc.unfreeze()
