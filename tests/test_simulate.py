"""The simulated reasoner must tell the truth about its own traces.

Every end-to-end metric assertion rests on ``TraceTruth``, so these tests recheck it for all 500
MATH-500 problems and every scenario with *independent* rules (written here from the metric
definitions, not imported from the generator): answer statements, step offsets, switch counts,
truncation. They also drive the lm-eval model and the HTTP server the way the harness does.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.data import SHARED_DATA

from lm_eval_thinkbench.simulate import (
    CHARS_PER_TOKEN,
    SCENARIOS,
    SimTrace,
    simulate,
    wrong_answer,
)
from lm_eval_thinkbench.simulate.served_model import assistant_message
from lm_eval_thinkbench.simulate.server import start_ready, stop_process

DATA = Path(os.environ.get("THINKBENCH_MATH500_PATH") or SHARED_DATA / "math500" / "test.jsonl")

_PHRASES = (
    "alternatively",
    "but wait",
    "wait,",
    "let me reconsider",
    "another approach",
    "another way",
    "another method",
    "on second thought",
    "hmm, wait",
)
# Longest first, so "But wait," is one switch and not also a "wait,".
SWITCH = re.compile(
    r"(?<!\w)(?:"
    + "|".join(re.escape(p) for p in sorted(_PHRASES, key=len, reverse=True))
    + r")(?!\w)",
    re.IGNORECASE,
)
_MATH = r"((?:\\\$|[^$])+)"  # the inside of $...$, allowing an escaped dollar
ANSWER_IS = re.compile(r"(?i)\banswer is \$" + _MATH + r"\$")
ANSWER_COLON = re.compile(r"(?i)\banswer:\s*\$" + _MATH + r"\$")
CONCLUDING = re.compile(r"^(?:So|Thus|Therefore|Hence)\b")
ENDS_IS = re.compile(r"\bis \$" + _MATH + r"\$\.?$")
ENDS_EQ = re.compile(r"=\s*((?:\\\$|[^$=])+)\$\.?$")


def boxed_values(text: str) -> list[str]:
    """Contents of every ``\\boxed{...}``, braces balanced."""
    out = []
    for match in re.finditer(r"\\boxed\{", text):
        depth, i = 1, match.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.append(text[match.end() : i - 1])
    return out


def _unbox(value: str) -> str:
    inner = boxed_values(value)
    return inner[0] if value.startswith("\\boxed{") and inner else value.strip()


def sentences(step: str) -> list[str]:
    """Split at newlines and at . ! ? + space outside $...$ (golds contain "\\! " thin spaces)."""
    out, start, in_math = [], 0, False
    for i, ch in enumerate(step):
        if ch == "$" and (i == 0 or step[i - 1] != "\\"):
            in_math = not in_math
        end_here = ch == "\n" or (
            not in_math and ch in ".!?" and (i + 1 == len(step) or step[i + 1].isspace())
        )
        if end_here:
            out.append(step[start : i + 1].strip())
            start = i + 1
    out.append(step[start:].strip())
    return [s for s in out if s]


def answer_values(step: str) -> list[str]:
    """Values of all answer statements in a step, by the rules the locator implements."""
    values = boxed_values(step)
    values += [_unbox(m.group(1)) for m in ANSWER_IS.finditer(step)]
    values += [_unbox(m.group(1)) for m in ANSWER_COLON.finditer(step)]
    for sentence in sentences(step):
        if CONCLUDING.match(sentence):
            # "is $X$" first: in "... is $x = 5$." the value is "x = 5", not "5".
            found = ENDS_IS.search(sentence) or ENDS_EQ.search(sentence)
            if found:
                values.append(_unbox(found.group(1)))
    return values


def is_wrong_value(value: str) -> bool:
    return value.isdigit() and (int(value) - 13) % 7919 == 0


def split_inline(text: str) -> tuple[str, str | None]:
    """A minimal splitter: (reasoning between the tags, stripped; answer part or None)."""
    body = text.removeprefix("<think>")
    if "</think>" not in body:
        return body.strip(), None
    reasoning, content = body.split("</think>", 1)
    return reasoning.strip(), content.strip()


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    if not DATA.exists():
        pytest.skip(f"MATH-500 not found at {DATA}")
    with DATA.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def check_truth(doc: dict[str, Any], trace: SimTrace) -> None:
    gold, truth, reasoning = doc["answer"].strip(), trace.truth, trace.reasoning
    assert reasoning == reasoning.strip() and "\n\n\n" not in reasoning
    steps = reasoning.split("\n\n")
    assert len(steps) == truth.steps and 5 <= truth.steps <= 40
    assert all(s.strip() == s and s for s in steps)

    values = [answer_values(s) for s in steps]
    for step_values in values:
        # Only the gold and the distinctive wrong integers are ever stated as answers.
        assert all(v == gold or is_wrong_value(v) for v in step_values), step_values
    gold_steps = [i for i, vs in enumerate(values) if gold in vs]
    first = gold_steps[0] if gold_steps else None
    assert truth.first_correct_step == first
    if first is None:
        assert truth.first_correct_char_end is None
    else:
        end = truth.first_correct_char_end
        assert end == len("\n\n".join(steps[: first + 1]))
        assert reasoning[:end].endswith(steps[first])
        assert reasoning[end:] == "" or reasoning[end:].startswith("\n\n")

    assert truth.thought_num == len(SWITCH.findall(reasoning))

    inline = trace.inline()
    split_reasoning, split_content = split_inline(inline)
    assert split_reasoning == reasoning
    if truth.truncated:
        assert "</think>" not in inline and trace.content == "" and split_content is None
        assert truth.final_answer is None and not truth.final_correct
    else:
        assert inline.count("</think>") == 1 and split_content == trace.content
        assert not SWITCH.search(trace.content)
        if truth.scenario == "no_box":
            assert "\\boxed" not in inline
            assert trace.content.endswith(f"The final answer is ${gold}$.")
        else:
            assert boxed_values(trace.content)[-1] == truth.final_answer
        assert truth.final_correct == (truth.final_answer == gold)


EXPECTED = {
    # scenario: (first correct exists, final correct); None = either
    "direct": (True, True),
    "overthink": (True, True),
    "late": (True, True),
    "abandon": (True, False),
    "wrong": (False, False),
    "truncated": (None, False),
    "no_box": (True, True),
}


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.slow
def test_truth_holds_for_every_problem(docs: list[dict[str, Any]], scenario: str) -> None:
    for doc in docs:
        trace = simulate(doc, seed=0, scenario=scenario)
        assert trace.truth.scenario == scenario
        check_truth(doc, trace)
        has_first, final_ok = EXPECTED[scenario]
        if has_first is not None:
            assert (trace.truth.first_correct_step is not None) == has_first
        assert trace.truth.final_correct == final_ok
        if scenario == "late":
            assert trace.truth.thought_num >= 2
        if scenario == "overthink":
            # The answer comes early; the re-checking is what makes the trace long.
            assert trace.truth.first_correct_step < trace.truth.steps - 3


def test_truth_holds_for_drawn_scenarios(docs: list[dict[str, Any]]) -> None:
    drawn = set()
    for doc in docs[:100]:
        for seed in (1, 2):
            trace = simulate(doc, seed=seed)
            drawn.add(trace.truth.scenario)
            check_truth(doc, trace)
    assert drawn == set(SCENARIOS)


@pytest.mark.slow
def test_truncated_covers_both_cases(docs: list[dict[str, Any]]) -> None:
    firsts = {simulate(d, scenario="truncated").truth.first_correct_step is None for d in docs}
    assert firsts == {True, False}


def test_deterministic_and_seed_sensitive(docs: list[dict[str, Any]]) -> None:
    for doc in docs[:50]:
        a, b = simulate(doc, seed=7), simulate(dict(doc), seed=7)
        assert a == b
        assert simulate(doc, seed=8).inline() != a.inline()


def test_wrong_answers_never_match_gold(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        gold = doc["answer"].strip()
        wrongs = {wrong_answer(gold, k) for k in range(8)}
        assert len(wrongs) == 8
        assert all(w != gold and w not in gold for w in wrongs)


def test_length_knobs(docs: list[dict[str, Any]]) -> None:
    def mean_tokens(level: int) -> float:
        lengths = [
            len(simulate(d, scenario="direct").reasoning) for d in docs if d["level"] == level
        ]
        return sum(lengths) / len(lengths) / CHARS_PER_TOKEN

    assert mean_tokens(1) < mean_tokens(3) < mean_tokens(5)
    for doc in docs[:40]:
        tokens = len(simulate(doc, scenario="overthink", target_tokens=4000).reasoning)
        assert 3800 <= tokens / CHARS_PER_TOKEN <= 4400


def test_unknown_scenario_is_rejected(docs: list[dict[str, Any]]) -> None:
    with pytest.raises(ValueError, match="unknown scenario"):
        simulate(docs[0], scenario="nonsense")


# ----- lm-eval model ---------------------------------------------------------------------------


def test_model_answers_requests_with_distinct_repeats(docs: list[dict[str, Any]]) -> None:
    from lm_eval.api.instance import Instance
    from lm_eval.api.registry import get_model

    from lm_eval_thinkbench.models.sim import SimulatedReasoner
    from lm_eval_thinkbench.response import from_wire

    cls = get_model("thinkbench-sim")
    assert cls is SimulatedReasoner
    first, second = (
        Instance("generate_until", doc, ("prompt", {"until": []}), 0, ("t", i, 3))
        for i, doc in enumerate(docs[:2])
    )
    lm = cls.create_from_arg_string("seed=5", {"batch_size": 1, "device": None})
    out = lm.generate_until([first] * 3 + [second] * 3)
    assert out[0] == simulate(docs[0], seed=5).inline()
    assert out[1] == simulate(docs[0], seed=6).inline()
    assert len(set(out[:3])) == 3 and out[3] == simulate(docs[1], seed=5).inline()

    lm = cls.create_from_arg_string("reasoning_field=true,scenario=truncated")
    response = from_wire(lm.generate_until([first])[0])
    trace = simulate(docs[0], scenario="truncated")
    assert response.reasoning == trace.reasoning and response.content == ""
    assert response.finish_reason == "length"
    with pytest.raises(NotImplementedError, match="generate_until"):
        lm.loglikelihood([first])


# ----- HTTP server -----------------------------------------------------------------------------


#: A scripted rule the simulated model's server tries first.
SCRIPTED_RULES = [{"match": "SCRIPTED_HELLO", "content": "scripted {seed}", "reasoning": None}]


@pytest.fixture(scope="module", params=["none", "reasoning_content"])
def server(
    request: pytest.FixtureRequest, docs: list[dict[str, Any]], tmp_path_factory
) -> Iterator[tuple[str, str]]:
    """(base URL, reasoning-field mode) of a server running as a subprocess."""
    rules = tmp_path_factory.mktemp("rules") / "rules.json"
    rules.write_text(json.dumps(SCRIPTED_RULES))
    cmd = [sys.executable, "-m", "lm_eval_thinkbench.simulate.server", "--port", "0"]
    cmd += ["--data", str(DATA), "--reasoning-field", request.param, "--rules", str(rules)]
    proc, port = start_ready(cmd, subprocess.DEVNULL, timeout=20)
    try:
        yield f"http://127.0.0.1:{port}", request.param
    finally:
        stop_process(proc)


def _post(url: str, body: bytes) -> dict[str, Any]:
    req = urllib.request.Request(
        url + "/v1/chat/completions", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=20) as resp:
        return json.loads(resp.read())


def _chat(url: str, text: str, seed: int) -> dict[str, Any]:
    body = {"model": "sim", "seed": seed, "messages": [{"role": "user", "content": text}]}
    return _post(url, json.dumps(body).encode())


@pytest.mark.slow
def test_server_replies_with_the_simulated_trace(
    server: tuple[str, str], docs: list[dict[str, Any]]
) -> None:
    url, mode = server
    doc = docs[3]
    prompt = "Solve the problem below.\n\n" + doc["problem"] + "\n\nThink step by step."
    reply = _chat(url, prompt, seed=11)
    trace = simulate(doc, seed=11)  # also proves determinism across processes
    message = reply["choices"][0]["message"]
    if mode == "none":
        assert message["content"] == trace.inline()
    else:
        assert message["reasoning_content"] == trace.reasoning
        assert message["content"] == trace.content
    assert reply["usage"]["completion_tokens"] > 0

    seed = next(s for s in range(200) if simulate(doc, seed=s).truth.truncated)
    reply = _chat(
        url, doc["problem"].removeprefix("Return your final response within \\boxed{}. "), seed
    )
    assert reply["choices"][0]["finish_reason"] == "length"
    if mode != "none":
        assert reply["choices"][0]["message"]["content"] is None

    unknown = _chat(url, "What is the capital of France?", 0)["choices"][0]["message"]
    assert unknown["content"] == "I don't know."


@pytest.mark.slow
def test_rules_come_before_the_simulated_model(
    server: tuple[str, str], docs: list[dict[str, Any]]
) -> None:
    """One server, scripted by rules: the ``--rules`` file first, then the fault keywords, then
    the simulated model (which answers the same problem once no rule matches)."""
    url, mode = server
    scripted = _chat(url, "SCRIPTED_HELLO " + docs[3]["problem"], seed=7)["choices"][0]
    assert scripted["message"] == {"role": "assistant", "content": "scripted 7"}
    with pytest.raises(urllib.error.HTTPError) as err:
        _chat(url, "FAULT:400 " + docs[3]["problem"], seed=7)
    assert err.value.code == 400
    simulated = _chat(url, docs[3]["problem"], seed=7)["choices"][0]["message"]
    assert simulated == assistant_message(simulate(docs[3], seed=7), mode)


@pytest.mark.slow
def test_server_rejects_bad_requests(server: tuple[str, str]) -> None:
    url, _ = server
    for body in (b"{not json", b"[1, 2]", b'{"messages": []}'):
        with pytest.raises(urllib.error.HTTPError) as err:
            _post(url, body)
        assert err.value.code == 400
    with urllib.request.urlopen(url + "/v1/models", timeout=20) as resp:
        assert json.loads(resp.read())["data"][0]["id"] == "thinkbench-sim"
    # Still serving after the bad requests.
    assert _chat(url, "hello", 0)["choices"][0]["message"]["content"] == "I don't know."


def test_a_server_that_does_not_announce_itself_fails_clearly():
    """A process that prints something other than ``READY <port>`` is stopped and named."""
    cmd = [sys.executable, "-c", "print('hello', flush=True); import time; time.sleep(30)"]
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"did not start \(got 'hello\\n'\)"):
        start_ready(cmd, subprocess.DEVNULL, timeout=20)
    assert time.monotonic() - start < 10  # stopped, not waited out


def _background(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "lm_eval_thinkbench.simulate.server", "--port", "0", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def test_background_returns_once_the_server_answers():
    """``--background`` (the shell's way to start and wait, as .ci/run does) returns with
    ``READY <port> <pid>`` once the server answers; ``kill <pid>`` stops it."""
    done = _background("--scripted", "--model-name", "bg-model", "--back")  # abbreviated
    assert done.returncode == 0, done.stderr
    word, port, pid = done.stdout.split()
    assert word == "READY"
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=10) as resp:
            assert json.loads(resp.read())["data"][0]["id"] == "bg-model"
    finally:
        os.kill(int(pid), 15)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            break
        try:  # our grandchild: reaped by init, or a zombie until then
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the background server outlived kill")


def test_background_server_that_cannot_start_fails_the_command(tmp_path):
    """A port already taken: the command fails, saying why, instead of printing READY."""
    with tmp_path.joinpath("stderr").open("w") as stderr:
        proc, port = start_ready(
            [sys.executable, "-m", "lm_eval_thinkbench.simulate.server", "--scripted", "--port=0"],
            stderr,
            timeout=20,
        )
    try:
        cmd = [sys.executable, "-m", "lm_eval_thinkbench.simulate.server", "--scripted"]
        done = subprocess.run(
            [*cmd, "--port", str(port), "--background"], capture_output=True, text=True, timeout=60
        )
    finally:
        stop_process(proc)
    assert done.returncode == 1 and not done.stdout
    assert "did not start" in done.stderr and "Address already in use" in done.stderr
