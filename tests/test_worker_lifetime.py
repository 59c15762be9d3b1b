"""A killed ``thinkbench analyze`` leaves no process behind.

SIGKILL runs no cleanup, so only the kernel can stop the workers: the scoring processes and
the grading (math-verify) worker they share, all forked by analyze, must all be gone seconds
after the parent is.

Orphans are adopted by the nearest "subreaper", normally PID 1; some sandboxes' PID 1 kills
whatever it adopts, which would hide the leak. So a watcher process declares itself the
subreaper (it adopts the orphans itself and leaves them alone), runs analyze, kills it and
reports which of its workers are still running.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support.data import SHARED_DATA

SKY_T1 = SHARED_DATA / "traces" / "skythought_sky-t1-27b_math500.jsonl"

pytestmark = [
    pytest.mark.skipif(
        not sys.platform.startswith("linux"),
        reason="subreapers and parent-death signals are Linux's",
    ),
    pytest.mark.slow,  # each test starts, kills and watches process trees
]

WATCHER = r"""
import ctypes, json, os, signal, subprocess, sys, time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
expected, settle, command = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]


def parents():
    # pid -> parent pid of every live (not zombie) process
    out = {}
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:  # ended meanwhile
            continue
        if stat:
            state, ppid = stat[stat.rindex(")") + 2 :].split()[:2]
            if state != "Z":
                out[int(entry.name)] = int(ppid)
    return out


def descendants(pid):
    tree, found, frontier = parents(), set(), {pid}
    while frontier:
        frontier = {child for child, parent in tree.items() if parent in frontier}
        found |= frontier
    return found


analyze = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
seen, deadline = set(), time.monotonic() + 120
while len(seen) < expected and analyze.poll() is None and time.monotonic() < deadline:
    seen = descendants(analyze.pid)
    time.sleep(0.2)
time.sleep(settle)
analyze.kill()
analyze.wait()
deadline = time.monotonic() + 5
while seen & set(parents()) and time.monotonic() < deadline:
    time.sleep(0.1)
alive = seen & set(parents())
print(json.dumps({"seen": sorted(seen), "alive": sorted(alive)}))
for pid in alive:
    os.kill(pid, signal.SIGKILL)
"""


def test_sigkill_of_analyze_ends_every_worker(tmp_path):
    """Two scoring workers and the grading worker they share: three processes below analyze
    (left running for good before: each blocked writing a result no one reads)."""
    if not SKY_T1.is_file():
        pytest.fail(f"shared data missing: {SKY_T1}")
    expected = 3
    analyze = [sys.executable, "-m", "lm_eval_thinkbench.thinkbench", "analyze", str(SKY_T1)]
    options = ["-o", str(tmp_path), "--workers", "2", "--no-plots", "--no-progress"]
    report = _watch([*analyze, *options], expected)
    assert len(report["seen"]) >= expected, f"only {report['seen']} started"
    assert report["alive"] == [], f"{report['alive']} outlived the killed analyze"


def test_sigkill_ends_a_grader_worker_stuck_in_a_check():
    """A worker deep in a hostile check (a power tower: C big-integer code for as long as the
    deadline allows) ends with the process that owns its grader, not when the check ends."""
    grading = (
        "from lm_eval_thinkbench.math.grader import Grader\n"
        "Grader(deadline=120).equivalent('1', '5^{5^{5^{5^{5}}}}')"
    )
    report = _watch([sys.executable, "-c", grading], expected=1, settle=2)
    assert len(report["seen"]) == 1
    assert report["alive"] == [], "the grader worker outlived its owner"


def _watch(command: list[str], expected: int, settle: float = 0) -> dict[str, list[int]]:
    """Run ``command`` under the watcher: once ``expected`` processes run below it (and
    ``settle`` seconds more), SIGKILL it; which of them ran, which are still alive 5 s later."""
    watcher = subprocess.run(
        [sys.executable, "-c", WATCHER, str(expected), str(settle), *command],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        check=True,
    )
    return json.loads(watcher.stdout)
