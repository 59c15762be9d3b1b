"""The local copies of shared data the tests read (see ../shared/data/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
#: The real DeepSeek-R1 traces: ``problem, gtruth_answer, message_thinking, message_content``.
R1_TRACE_NAMES = ("r1_openrouter_math_train", "r1_8b_ollama_math_train")


def r1_traces(name: str) -> list[dict[str, Any]]:
    """The traces of one file of :data:`R1_TRACE_NAMES`."""
    return json.loads((SHARED_DATA / "traces" / f"{name}.json").read_text())


def r1_reasonings() -> list[str]:
    """The reasoning of every real R1 trace."""
    return [t["message_thinking"] for name in R1_TRACE_NAMES for t in r1_traces(name)]
