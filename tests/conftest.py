"""Shared fixtures. Data comes from the local copies in ../shared/data (see README, Testing)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# The tests need no network: without these, every tokenizer or dataset name that is not a
# local folder waits out a Hub lookup first (twice as long a run on a machine without one).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
# The README's data paths are relative to the checkout (``../shared/...``); some tests run
# commands from other working directories, so they get absolute paths.
for _key in (
    "THINKBENCH_MATH500_PATH",
    "THINKBENCH_PROCESSBENCH_PATH",
    "THINKBENCH_DELTABENCH_PATH",
):
    if os.environ.get(_key):
        os.environ[_key] = os.path.abspath(os.environ[_key])


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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--scale",
        action="store_true",
        help="also run the checks at full scale (10,000 items per logic subclass: many minutes)",
    )


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every e2e or scale test is slow too, so the fast lane is one marker:
    ``pytest -m "not slow"``. Scale tests take many minutes, more than CI's whole budget, so
    they run only when asked for (``pytest --scale -m scale``); CI runs the same checks at a
    smaller size."""
    skip_scale = pytest.mark.skip(reason="full-scale check: run with --scale")
    for item in items:
        if item.get_closest_marker("e2e") or item.get_closest_marker("scale"):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("scale") and not config.getoption("--scale"):
            item.add_marker(skip_scale)


@pytest.fixture(scope="session")
def demo_runs(tmp_path_factory, math500_path) -> dict:
    """Simulated lm-eval runs (label -> output folder), made once: see tests/demo_runs.py."""
    from demo_runs import make_runs

    return make_runs(tmp_path_factory.mktemp("demo-runs"), math500_path)
