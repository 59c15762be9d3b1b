"""The tasks as a harness user meets them: listed, validated, loaded from local data."""

from pathlib import Path

import pytest
from support import lm_eval_runs

from lm_eval_thinkbench import TASKS_DIR
from lm_eval_thinkbench.cli import tasks_installed, with_task_path
from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.math500.data import DatasetError, load_math500, read_math500

TASKS = ["thinkbench_math500"] + [f"thinkbench_math500_level{i}" for i in range(1, 6)]


@pytest.mark.e2e
def test_lm_eval_finds_the_group_and_its_levels():
    """The plain ``lm_eval`` CLI finds every task (``validate`` checks the names against the
    same index ``ls tasks`` prints); one command, as each builds lm-eval's whole index."""
    proc = lm_eval_runs.run("validate", "--tasks", ",".join(TASKS))
    assert "All tasks found and valid" in proc.stdout


def test_thinkbench_eval_adds_the_task_path_only_when_needed():
    argv = ["--tasks", "thinkbench_math500"]
    if tasks_installed():
        assert with_task_path(argv) == argv
    else:
        assert with_task_path(argv) == [*argv, "--include_path", TASKS_DIR]


def test_levels_have_the_published_sizes(math500_path):
    sizes = [
        len(load_math500(level=i, math500_path=str(math500_path))["test"]) for i in range(1, 6)
    ]
    assert sizes == [43, 90, 105, 128, 134]


def test_a_named_tokenizer_that_cannot_load_stops_the_run_before_generation(math500_path, tmp_path):
    """lm-eval loads the data before it generates and scores after: the named
    ``thinkbench_tokenizer`` is loaded with the data, so a typo stops the run at once."""
    missing = str(tmp_path / "no-such-tokenizer")
    try:
        with pytest.raises(ValueError, match=f"cannot load tokenizer '{missing}'"):
            load_math500(level=1, math500_path=str(math500_path), thinkbench_tokenizer=missing)
        assert len(load_math500(level=1, math500_path=str(math500_path))["test"]) == 43
    finally:
        settings.configure({})


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("{not json\n", ":1: not valid JSON"),
        ('{"problem": "p", "answer": "1"}\n', "record 1 lacks level, unique_id"),
        ('{"problem": "p", "answer": "1", "level": 9, "unique_id": "u"}\n', "level 9 is not 1-5"),
        ("\n\n", "holds no records"),
        (b"\xff\xfe\x00", "cannot read"),
    ],
)
def test_bad_local_file_gives_one_clear_error(tmp_path, content, message):
    path = tmp_path / "math.jsonl"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(DatasetError, match=message) as err:
        read_math500(path)
    assert str(path) in str(err.value)
    assert "problem, answer, level, unique_id" in str(err.value)


def test_the_wheel_lists_every_package_of_the_code():
    """``[tool.setuptools] packages`` is a list written by hand: a package missing from it is
    missing from the wheel (its imports fail only after a real install, as in CI)."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    setuptools = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    found = {
        ".".join(init.parent.relative_to(root).parts)
        for init in (root / "lm_eval_thinkbench").rglob("__init__.py")
    }
    assert found <= listed, sorted(found - listed)
