"""End to end: hostile critic replies never cost a run.

As ``test_e2e_hostile.py`` does for MATH-500: a scripted OpenAI-compatible server on 127.0.0.1
answers each ProcessBench GSM8K document and each document of the DeltaBench fixture with one
hostile reply (a 5,000-digit index, a million spaces inside a verdict, 100,000 ``Conclusion:``
labels or ``\\boxed{`` openings, a lone surrogate, null content, deeply nested braces, ...), and
plain ``lm_eval --model local-chat-completions`` runs ``thinkbench_processbench_gsm8k`` and
``thinkbench_deltabench`` under each reading. The run must finish in a bounded time and write
one record per document, each with a verdict status and nothing but printable numbers.

The critic writes no reasoning markers (a hostile reply inside a thought is
``test_e2e_hostile.py``'s) and the token limit is past every reply, so every reply is read:
none may be taken for a cut-off thought.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from support import lm_eval_runs
from support.lm_eval_runs import read_results

from lm_eval_thinkbench.critic import data
from lm_eval_thinkbench.critic.parse import BEYOND
from lm_eval_thinkbench.critic.prompts import deltabench_prompt, processbench_prompt
from lm_eval_thinkbench.simulate.server import FakeOpenAIServer

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "deltabench_sample.jsonl"
HUGE = "9" * 5000  # beyond Python's 4,300-digit limit for int()
#: Seconds of scoring per hostile sample allowed at most (a quadratic reader takes hours).
BUDGET_S = 10.0

PROCESSBENCH_HOSTILE: list[object] = [
    f"\\boxed{{{HUGE}}}",
    "The earliest error is in paragraph" + " " * 1_000_000 + "\\boxed{1}",
    "\\boxed{3" + " " * 1_000_000 + "x}",
    "\\boxed{-" + " " * 1_000_000 + "1}",
    "Conclusion:" * 100_000 + "\\boxed{-1}",
    "x\ud800 \\boxed{\ud800}",
    None,
    "\\boxed{" + "{" * 50_000 + "}" * 50_000 + "}",
    "\\boxed{" * 100_000,
    "section " * 100_000 + "\\boxed{2}",
    '{"thinkbench_response": 1, "content": ' + "[" * 100_000,
    "\\boxed{0" + "}" * 100_000,
    "\\boxed{\\text{" * 50_000,
]
DELTABENCH_HOSTILE: list[object] = [
    f"Conclusion: yes\nError Section Number: {HUGE}\nExplanation: x",
    "Conclusion: yes\nError Section Number: 1" + " " * 1_000_000 + "x",
    "Conclusion:" * 100_000,
    "Conclusion: yes\nError Section Number: 2\ud800\nExplanation: \ud800",
    None,
    "Conclusion: yes\nError Section Number: " + "{" * 50_000 + "}" * 50_000,
    "section " * 100_000,
    "Error Section Number:" + " " * 1_000_000 + "3",
    "There is a mistake in section 1" + " and" * 250_000,
    "Conclusion: yes\nError Section Number: [" + " " * 1_000_000 + "x",
    "no" + " " * 1_000_000 + "error",
]


def _processbench_folder() -> Path:
    path = Path(
        os.environ.get(data.PROCESSBENCH_ENV) or REPO.parent / "shared" / "data" / "processbench"
    )
    if not (path / "gsm8k.json").is_file():
        pytest.fail(f"ProcessBench data not found at {path}; set {data.PROCESSBENCH_ENV}")
    return path


def _rules(docs: list[dict], prompts: list[str], replies: list[object], key: str) -> list[dict]:
    """One rule per document, matched by a text only its own prompt holds."""
    rules = []
    for doc, reply in zip(docs, replies, strict=True):
        match = doc[key] if isinstance(doc[key], str) else max(doc[key], key=len)
        assert [match in p for p in prompts].count(True) == 1, doc["id"]
        rules.append({"match": match, "content": reply, "reasoning_field": None})
    return rules


@pytest.mark.parametrize("reading", ["official", "tolerant"])
def test_hostile_critic_replies_are_read_and_logged(tmp_path, reading):
    folder = _processbench_folder()
    gsm8k = data.processbench_docs("gsm8k", folder)
    pb_docs = gsm8k[: len(PROCESSBENCH_HOSTILE)]
    db_docs = data.deltabench_docs(FIXTURE)
    rules = _rules(
        pb_docs, [processbench_prompt(d) for d in gsm8k], PROCESSBENCH_HOSTILE, "steps"
    ) + _rules(db_docs, [deltabench_prompt(d) for d in db_docs], DELTABENCH_HOSTILE, "question")
    metadata = {"deltabench_path": str(FIXTURE)}
    if reading == "tolerant":
        metadata |= {"processbench_reading": "tolerant", "deltabench_reading": "tolerant"}
    env = {data.PROCESSBENCH_ENV: str(folder)}
    with FakeOpenAIServer(tmp_path / "server", rules, reasoning_field="none") as server:
        start = time.monotonic()
        lm_eval_runs.run(
            *lm_eval_runs.local_chat(server.base_url, num_concurrent=4),
            *("--tasks", "thinkbench_processbench_gsm8k,thinkbench_deltabench"),
            *("--log_samples", "--output_path", str(tmp_path / "out")),
            *("--limit", str(len(PROCESSBENCH_HOSTILE))),
            # Past every reply's length: a reply longer than the limit would be taken for
            # one the limit cut off (the harness's rule when a backend gives no finish
            # reason), and never read.
            *("--gen_kwargs", "max_gen_toks=100000000"),
            *("--metadata", json.dumps(metadata)),
            env=env,
        )
        elapsed = time.monotonic() - start
    results, samples = read_results(tmp_path / "out")
    by_task: dict[str, dict[str, dict]] = {}
    for sample in samples:
        task = "processbench" if "error_acc" in sample else "deltabench"
        record = json.loads(sample["filtered_resps"][0][0])
        assert record["reading"] == reading
        by_task.setdefault(task, {})[sample["doc"]["id"]] = record
    # One record per document, read into a status and plain numbers.
    assert sorted(by_task["processbench"]) == sorted(d["id"] for d in pb_docs)
    assert sorted(by_task["deltabench"]) == sorted(d["id"] for d in db_docs)
    pb = [by_task["processbench"][d["id"]] for d in pb_docs]
    assert {r["status"] for r in pb} == {"ok", "unparsed"}
    db = [by_task["deltabench"][d["id"]] for d in db_docs]
    assert {r["status"] for r in db} <= {"error", "no_error", "unparsed"}
    assert all(abs(n) <= BEYOND for r in db for n in r["sections"] + r["listed"])
    # The 5,000-digit verdicts: ProcessBench's script reads no index (its int() refuses), the
    # tolerant reading an index beyond every step; DeltaBench's a section beyond every one.
    assert pb[0]["prediction"] == (None if reading == "official" else BEYOND)
    assert db[0]["sections"] == [BEYOND]
    assert results["results"]["thinkbench_processbench_gsm8k"]["unparsed,critic"] > 0
    assert results["results"]["thinkbench_deltabench"]["f1_macro,critic"] >= 0
    assert elapsed < 30 + BUDGET_S * (len(pb_docs) + len(db_docs))
