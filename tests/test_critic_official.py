"""Our default ProcessBench reading against ProcessBench's own evaluation script, replayed.

``extract_answer``, the ``int()`` after it and the F1 lines below are copied verbatim from
``QwenLM/ProcessBench``, ``code/run_eval.py`` at commit e8024636bcabdf8bd514440551b531d3f90dd18b
(the repository states no licence; these few lines are quoted only to test that our figures are
computed the same way). Published ProcessBench F1s come from this code, so on the same replies
our predictions and our F1 must equal its, edge cases included.
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import numpy as np
import pytest

from lm_eval_thinkbench.critic import data
from lm_eval_thinkbench.critic.filters import processbench_record
from lm_eval_thinkbench.critic.parse import official_step_index, parse_step_index
from lm_eval_thinkbench.critic.scoring import processbench_summary
from lm_eval_thinkbench.simulate.critic import PLAIN, respond_processbench

# ----- verbatim from QwenLM/ProcessBench code/run_eval.py ------------------------------------


def extract_answer(solution_text: str):
    boxed_pattern = r'\\boxed\{([^}]*)\}'  # fmt: skip
    matches = re.findall(boxed_pattern, solution_text)
    if matches:
        return matches[-1].strip()
    return None


def official_prediction(generated_critique: str):
    """The lines of ``main()`` that turn one critique into ``pred`` (no voting)."""
    pred = extract_answer(generated_critique)
    try:
        pred = int(pred)
    except:  # noqa: E722 - verbatim
        pred = None
    return pred


def official_f1(res_data: list[dict]) -> float:
    """The lines of ``main()`` that compute a subset's F1 (in percent) from its records."""
    error_data = [e for e in res_data if e['label'] != -1]  # fmt: skip
    correct_data = [e for e in res_data if e['label'] == -1]  # fmt: skip
    acc1 = np.mean([e['match'] for e in error_data]) * 100  # fmt: skip
    acc2 = np.mean([e['match'] for e in correct_data]) * 100  # fmt: skip
    f1 = 2 * acc1 * acc2 / (acc1 + acc2)
    return f1


# ----- replies -------------------------------------------------------------------------------

EDGE_CASES = [
    "\\boxed{paragraph 3}",
    "\\boxed{3.}",
    "\\boxed{3}",
    "\\boxed{ 3 }",
    "\\boxed{+3}",
    "\\boxed{-1}",
    "\\boxed{ - 1}",
    "\\boxed{−1}",
    "\\boxed{３}",
    "\\boxed{1_0}",
    "\\boxed{1}\\boxed{2}",
    "\\boxed{2} then \\boxed{}",
    "\\boxed{}",
    "\\boxed{\\text{3}}",
    "$\\boxed{\\text{paragraph } 3}$",
    "\\boxed{{3}}",
    "\\boxed{3} and text after the box, 5.",
    "no box at all, paragraph 3",
    "\\boxed{3",
    "\\boxed 3",
    "\\\\boxed{3}",
    "\\boxed{\n3\n}",
    "",
]
#: Text around boxes, and what goes inside them: signs, digits, words, braces, dots.
_TEXT = ["Paragraph 2 is wrong. ", "\n", " ", "$", "index ", "\\", "boxed", "}", "{", "-1", "."]
_INNER = [
    "0",
    "1",
    "3",
    "12",
    " ",
    "-",
    "+",
    "−",
    ".",
    "_",
    "３",
    "paragraph ",
    "\\text{",
    "{",
    "}",
]


def random_replies(n: int, seed: int = 0) -> list[str]:
    """Replies of text and boxes at random; a box's content is one to four inner pieces."""
    rng = random.Random(seed)
    replies = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(0, 3)):
            parts += rng.choices(_TEXT, k=rng.randint(0, 4))
            if rng.random() < 0.8:
                inner = "".join(rng.choices(_INNER, k=rng.randint(0, 4)))
                parts.append("\\boxed{" + inner + ("}" if rng.random() < 0.9 else ""))
        replies.append("".join(parts))
    return replies


def _processbench_folder() -> Path:
    return Path(
        os.environ.get(data.PROCESSBENCH_ENV)
        or Path(__file__).resolve().parents[2] / "shared" / "data" / "processbench"
    )


# ----- tests ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_official_reading_matches_the_script_on_edge_cases_and_random_replies():
    replies = EDGE_CASES + random_replies(20_000)
    readable = differs = 0
    for reply in replies:
        want = official_prediction(reply)
        assert official_step_index(reply).index == want, repr(reply)
        # The same through the filter's record, for a critic that writes no reasoning.
        assert processbench_record(reply, "none")["prediction"] == want, repr(reply)
        readable += want is not None
        differs += parse_step_index(reply).index != want
    # Both outcomes occur, and many replies are ones the tolerant reading reads otherwise.
    assert readable > 1000 and len(replies) - readable > 1000 and differs > 1000


def _edge_reply(rng: random.Random, index: int) -> str:
    """A plain critic reply boxing ``index`` in one of the forms the readings disagree on."""
    form = rng.choice(
        [
            "\\boxed{{{i}}}",
            "\\boxed{{ {i} }}",
            "\\boxed{{+{i}}}",
            "\\boxed{{{i}.}}",
            "\\boxed{{paragraph {i}}}",
            "$\\boxed{{\\text{{paragraph }} {i}}}$",
            "\\boxed{{{i}}} (the answer goes in \\boxed{{}})",
            "First \\boxed{{0}}, finally \\boxed{{{i}}}.",
            "The earliest error is in paragraph {i}.",
        ]
    )
    return "I checked each paragraph.\n\n" + form.format(i=index)


@pytest.mark.parametrize("subset", data.PROCESSBENCH_SUBSETS)
def test_processbench_f1_equals_the_official_scripts_on_the_same_replies(subset):
    docs = data.processbench_docs(subset, _processbench_folder())
    rng = random.Random(subset)
    # Half the simulated GPT-4o-style critiques, half edge-case boxes of a right or wrong index.
    replies = [
        respond_processbench(d, 3, PLAIN).content
        if k % 2
        else _edge_reply(rng, rng.choice([d["label"], d["label"], -1, 0, 1]))
        for k, d in enumerate(docs)
    ]
    res_data = []
    for doc, reply in zip(docs, replies, strict=True):
        pred = official_prediction(reply)
        res_data.append({"label": doc["label"], "prediction": pred, "match": pred == doc["label"]})
    ours = processbench_summary(
        (doc["label"], processbench_record(reply, "auto")["prediction"])
        for doc, reply in zip(docs, replies, strict=True)
    )
    assert 0 < ours["f1"] < 1
    assert ours["f1"] * 100 == pytest.approx(official_f1(res_data), rel=1e-12)
