"""What the benchmark scripts share: timing a command as a separate process.

The scripts run as ``python benchmarks/<name>.py``, so this folder is on ``sys.path`` and they
import it as ``timing``.
"""

from __future__ import annotations

import resource
import subprocess
import time


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run ``cmd``: (wall seconds, CPU seconds of it and the children it waited for). A failed
    run stops the benchmark with the end of its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:3]} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu
