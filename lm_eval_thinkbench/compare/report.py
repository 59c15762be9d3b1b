"""``compare.md``, ``compare.json``, ``compare.csv``: pure functions of the comparison.

The markdown answers "why does my number differ from the harness's?": each grader's accuracy
per model and task, then every document where they disagree with the strings each grader
compared. The JSON holds the same plus every row (the board reads its accuracies); the CSV one
line per response with each verdict.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.analyze.report import write_atomic
from lm_eval_thinkbench.compare.core import LOGGED, Row, Summary
from lm_eval_thinkbench.compare.graders import GRADERS

COMPARE_JSON = "compare.json"
#: What each grader column means, for the reports.
GRADER_NOTES = {
    "thinkbench": "this project's checker on the answer after the reasoning (math-verify)",
    "hendrycks_math500": "lm-eval hendrycks_math500 is_equiv (text between the first and "
    "last $ vs the solution's last box, strip_string)",
    "minerva_math500": "lm-eval minerva_math500 exact_match ('Final Answer: The final answer "
    "is X. I hope it is correct.', sympy via the lark LaTeX parser)",
    "minerva_math500_math_verify": "lm-eval minerva_math500 math_verify (math-verify, whole "
    "solution vs whole response)",
    "math_verify": "plain math-verify: verify(parse('$gold$'), parse(response))",
    LOGGED: "the verdict the producing run logged (its task's own metric)",
}


def write_compare(output: Path, rows: Sequence[Row], summaries: Sequence[Summary]) -> list[Path]:
    output.mkdir(parents=True, exist_ok=True)
    files = {
        "compare.md": compare_markdown(summaries),
        COMPARE_JSON: compare_json(rows, summaries),
        "compare.csv": compare_csv(rows),
    }
    for name, text in files.items():
        write_atomic(output / name, text.encode("utf-8"))
    return [output / name for name in files]


def summary_dict(s: Summary) -> dict[str, Any]:
    return {
        "model": s.model,
        "task": s.task,
        "samples": s.samples,
        "accuracy": s.accuracy,
        "logged_accuracy": s.logged,
        "logged_samples": s.logged_n,
        "disagreements": [_key(r) for r in s.disagreements],
    }


def compare_json(rows: Sequence[Row], summaries: Sequence[Summary]) -> str:
    payload = {
        "graders": {g: GRADER_NOTES[g] for g in (*GRADERS, LOGGED)},
        "summaries": [summary_dict(s) for s in summaries],
        "rows": [r.to_dict() for r in rows],
    }
    return json.dumps(payload, indent=1, ensure_ascii=False) + "\n"


def compare_csv(rows: Sequence[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["model", "task", "subset", "id", "repeat", *GRADERS, LOGGED, "disagree"])
    for r in rows:
        s = r.sample
        verdicts = [int(r.verdicts[g].correct) for g in GRADERS]
        logged_cell = "" if s.logged_correct is None else int(s.logged_correct)
        writer.writerow(
            [
                s.model,
                s.task,
                s.subset,
                s.sample_id,
                s.repeat,
                *verdicts,
                logged_cell,
                int(r.disagree),
            ]
        )
    return out.getvalue()


def compare_markdown(summaries: Sequence[Summary]) -> str:
    lines = ["# Graders compared on the same responses", ""]
    lines += [f"- `{g}`: {note}" for g, note in GRADER_NOTES.items()]
    lines += [
        "",
        "| model | task | samples | " + " | ".join(GRADERS) + f" | {LOGGED} | disagree |",
        "|---|---|---:|" + "---:|" * (len(GRADERS) + 2),
    ]
    for s in summaries:
        cells = [f"{s.accuracy[g]:.3f}" for g in GRADERS]
        logged = "–" if s.logged is None else f"{s.logged:.3f} ({s.logged_n})"
        lines.append(
            f"| {s.model} | {s.task} | {s.samples} | "
            + " | ".join(cells)
            + f" | {logged} | {len(s.disagreements)} |"
        )
    for s in summaries:
        if not s.disagreements:
            continue
        lines += ["", f"## {s.model} · {s.task}: {len(s.disagreements)} documents disagree", ""]
        for r in s.disagreements:
            right = [g for g in GRADERS if r.verdicts[g].correct]
            verdict = r.sample.logged_correct
            lines.append(
                f"- **{_key(r)}** ({r.sample.subset}): correct for "
                f"{', '.join(right) or 'none'}"
                + ("" if verdict is None else f"; logged {'correct' if verdict else 'wrong'}")
            )
            lines += [f"  - {g}: {_cell(r.verdicts[g].saw)}" for g in GRADERS]
    return "\n".join(lines) + "\n"


def _key(r: Row) -> str:
    s = r.sample
    return s.sample_id if s.repeat == 0 else f"{s.sample_id}#{s.repeat}"


def _cell(text: str) -> str:
    return text.replace("\n", " ").replace("|", "\\|")
