"""Shared fixtures. Data comes from the local copies in ../shared/data (see README, Testing)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def math500_path() -> Path:
    """The local MATH-500 JSONL: $THINKBENCH_MATH500_PATH, else ../shared/data/math500."""
    path = Path(
        os.environ.get("THINKBENCH_MATH500_PATH")
        or REPO.parent / "shared" / "data" / "math500" / "test.jsonl"
    )
    if not path.is_file():
        pytest.fail(f"MATH-500 test data not found at {path}; set THINKBENCH_MATH500_PATH")
    return path
