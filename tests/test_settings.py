"""One settings object from the CLI, --metadata and the Python API to scoring.

Every setting is a field of ``settings.Settings`` (plus the run's own fields of
``AnalyzeOptions`` and ``JudgeSettings``) that names its CLI flag and metadata keys; these tests
fail when a field is reachable from neither, when the CLI or the docs offer an option or key
that no field declares, or when a value set one way does not reach the object scoring reads.
"""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from lm_eval_thinkbench.analyze.api import AnalyzeOptions
from lm_eval_thinkbench.analyze.subcommand import options_from_args
from lm_eval_thinkbench.efficiency import ScoringConfig
from lm_eval_thinkbench.harness import settings as harness_settings
from lm_eval_thinkbench.judge.settings import JudgeSettings
from lm_eval_thinkbench.options import default_of, option, options
from lm_eval_thinkbench.settings import Settings
from lm_eval_thinkbench.thinkbench import build_parser
from lm_eval_thinkbench.trace import MarkerSet

ROOT = Path(__file__).resolve().parents[1]

#: One non-default value per metadata key of ``Settings`` and where it lands.
METADATA_EXAMPLES = {
    "markers": ("kimi", "markers", "kimi"),
    "step_separator": ("\n---\n", "separator", "\n---\n"),
    "switch_phrases": ("wait|hmm", "switch_phrases", ("wait", "hmm")),
    "truncated": ("zero", "truncated", "zero"),
    "thinkbench_tokenizer": ("/models/x", "tokenizer", "/models/x"),
    "processbench_reading": ("tolerant", "processbench_reading", "tolerant"),
    "deltabench_reading": ("tolerant", "deltabench_reading", "tolerant"),
    "deltabench_reference_filter": ("false", "deltabench_reference_filter", False),
}
#: Metadata keys documented in docs/models.md that are run inputs, not settings: data paths and
#: the logic set, read by the loaders that use them.
NOT_SETTINGS = {"math500_path", "logic_seed", "logic_items", "processbench_path", "deltabench_path"}


def subcommand_parser(name: str):
    commands = next(a for a in build_parser()._actions if a.dest == "command")
    return commands.choices[name]


def analyze_parser():
    return subcommand_parser("analyze")


#: The options ``thinkbench compare`` and ``thinkbench leaderboard`` take from analyze's
#: declarations (``options.add_shared``), and those whose help says what that command does.
SHARED = {"compare": {"--format", "--gold", "--limit"}, "leaderboard": {"--no-plots", "--workers"}}
OWN_HELP = {"compare": {"--gold"}, "leaderboard": {"--workers"}}


def test_every_setting_is_reachable_from_the_cli_or_the_metadata():
    for f, spec in options(Settings):
        assert spec.flags or spec.keys, f"Settings.{f.name}: give it a CLI flag or a metadata key"
        assert spec.help, f"Settings.{f.name}: its help text is its documentation"
    assert {f.name for f in fields(Settings)} == {f.name for f, _ in options(Settings)}


def test_the_cli_offers_exactly_the_flagged_fields_with_their_defaults():
    dests = {a.dest for a in analyze_parser()._actions if a.dest != "help"}
    declared = {f.name for f, spec in options(AnalyzeOptions) if spec.flags}
    declared |= {"judge_" + f.name for f, spec in options(JudgeSettings) if spec.flags}
    assert dests == declared  # an option added by hand, or a flag that is not generated
    # (the judge's own settings are plain fields: the API key never comes from the CLI)
    assert {f.name for f in fields(AnalyzeOptions) if option(f) is None} == set()
    parsed = options_from_args(build_parser().parse_args(["analyze", "run.jsonl"]))
    assert parsed == AnalyzeOptions(runs=["run.jsonl"])  # every default, the CLI's too


@pytest.mark.parametrize("command", sorted(SHARED))
def test_other_commands_share_analyzes_option_declarations(command):
    """Every option of compare and leaderboard that analyze also has is analyze's: the same
    destination, default, type, choices and metavar (and help, unless the command reads it
    differently), so a default cannot drift between the commands."""

    def by_flag(parser):
        return {s: a for a in parser._actions for s in a.option_strings if s.startswith("--")}

    ours, theirs = by_flag(analyze_parser()), by_flag(subcommand_parser(command))
    assert set(ours) & set(theirs) - {"--output", "--help"} == SHARED[command]
    for flag in SHARED[command]:
        mine, other = ours[flag], theirs[flag]
        for attr in ("option_strings", "dest", "default", "type", "choices", "metavar", "const"):
            assert getattr(other, attr) == getattr(mine, attr), (flag, attr)
        assert type(other) is type(mine), flag  # store, store_false, ...
        assert (other.help == mine.help) is (flag not in OWN_HELP[command]), flag
    parsed = build_parser().parse_args([command, "run"])
    defaults = AnalyzeOptions(runs=["run"])
    for flag in SHARED[command]:
        name = ours[flag].dest
        assert getattr(parsed, name) == getattr(defaults, name), flag


def test_judge_flags_reach_the_judge_settings_with_its_defaults(monkeypatch):
    monkeypatch.setenv("THINKBENCH_JUDGE_API_KEY", "k")
    argv = ["analyze", "r", "--locator", "judge", "--judge-model", "m", "--judge-base-url", "u"]
    judge = options_from_args(build_parser().parse_args(argv)).judge
    assert judge == JudgeSettings(model="m", base_url="u", api_key="k")
    argv += ["--judge-retries", "7", "--judge-seed", "3", "--seed", "5", "--judge-max-tokens", "9"]
    parsed = options_from_args(build_parser().parse_args(argv))
    assert (parsed.judge.max_retries, parsed.judge.seed, parsed.judge.max_tokens) == (7, 3, 9)
    assert parsed.seed == 5  # the analysis's seed is not the judge's


def test_cli_values_reach_the_object_scoring_reads():
    argv = ["analyze", "a=x", "b=y", "-o", "out", "--split", "keywords", "--switch-phrases",
            "hmm|wait", "--truncated", "zero", "--max-tokens", "9", "--confidence", "0.9",
            "--no-plots", "--workers", "2", "--markers", "think"]  # fmt: skip
    parsed = options_from_args(build_parser().parse_args(argv))
    assert parsed.runs == ["a=x", "b=y"] and parsed.output == Path("out")
    assert (parsed.split, parsed.switch_phrases, parsed.truncated) == (
        "keywords",
        ("hmm", "wait"),
        "zero",
    )
    assert (parsed.max_tokens, parsed.confidence, parsed.plots, parsed.workers) == (
        9,
        0.9,
        False,
        2,
    )
    assert parsed.judge is None and parsed.use_judge_cache and parsed.progress
    # the object is a Settings: it splits as it was told, with its own phrases
    assert [s.start for s in parsed.split_steps("so hmm then wait")] == [0, 3, 12]


def test_metadata_keys_reach_the_settings():
    declared = {spec.keys[0] for _, spec in options(Settings) if spec.keys}
    assert set(METADATA_EXAMPLES) == declared, "give a new metadata setting an example here"
    for key, (value, name, expected) in METADATA_EXAMPLES.items():
        run = harness_settings.configure({key: value})
        assert getattr(run.scoring, name) == expected, key
        assert expected != default_of(next(f for f in fields(Settings) if f.name == name)), key
    custom = harness_settings.configure({"think_start": "<r>", "think_end": "</r>"}).scoring
    assert isinstance(custom.markers, MarkerSet)
    assert harness_settings.configure({"deltabench_reading": "tolerant"}).reference_filter is False
    harness_settings.configure({})
    assert harness_settings.current().scoring == Settings() == ScoringConfig()


def test_metadata_and_cli_give_the_same_settings():
    metadata = {"markers": "think", "step_separator": "\n#\n", "switch_phrases": ["hmm", "wait"],
                "truncated": "zero", "thinkbench_tokenizer": "tok"}  # fmt: skip
    meta = harness_settings.configure(metadata).scoring
    harness_settings.configure({})
    argv = ["analyze", "r", "--markers", "think", "--separator", "\n#\n", "--switch-phrases",
            "hmm|wait", "--truncated", "zero", "--tokenizer", "tok"]  # fmt: skip
    cli = options_from_args(build_parser().parse_args(argv))
    assert Settings(**{f.name: getattr(cli, f.name) for f in fields(Settings)}) == meta


def test_the_docs_list_every_flag_and_metadata_key():
    analyze_doc = (ROOT / "docs" / "analyze.md").read_text(encoding="utf-8")
    table = analyze_doc.split("## Options", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"--[a-z][a-z-]*", table))
    flags = {s for a in analyze_parser()._actions for s in a.option_strings if s.startswith("--")}
    assert documented - {"--help"} == flags - {"--help"}
    models_doc = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    section = models_doc.split("## Settings (`--metadata`)", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    keys = {k for row in rows for k in re.findall(r"`([a-z0-9_]+)`", row)}
    declared = {k for _, spec in options(Settings) for k in spec.keys}
    assert keys - NOT_SETTINGS == declared


def test_a_python_callers_typo_fails_before_any_work():
    with pytest.raises(ValueError, match="locator must be one of"):
        AnalyzeOptions(runs=["r"], locator="rules")
    with pytest.raises(ValueError, match="qwen9"):
        Settings(markers="qwen9")
    with pytest.raises(ValueError, match="at least one phrase"):
        Settings(switch_phrases=("",))


def test_summary_records_the_settings_as_before():
    options_ = AnalyzeOptions(runs=["r"], output=Path("o"), gold=Path("g.jsonl"))
    assert options_.settings() == {
        "runs": ["r"], "locator": "rule", "split": "separator", "separator": r"\n[ \t]*\n",
        "switch_phrases": "|".join(Settings().switch_phrases), "markers": "auto",
        "truncated": "lenient", "tokenizer": "auto", "gold": "g.jsonl", "correctness": "checker",
        "limit": None, "sample": None, "seed": 0, "max_tokens": None, "bootstrap": 1000,
        "confidence": 0.95, "metrics_version": options_.settings()["metrics_version"],
    }  # fmt: skip
    assert list(options_.settings())[:3] == ["runs", "locator", "split"]
