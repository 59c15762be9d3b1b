"""Our default DeltaBench reading and scores against DeltaBench's own evaluation script, replayed.

``extract_first_number``, ``parse_output`` and ``calculate_accuracies_v2`` below are copied
verbatim (trailing spaces removed) from ``OpenStellarTeam/DeltaBench``, ``evaluation.py`` at
commit 6b67c64ad177553ec73f85ff98b18b0e6627341f (the repository states no licence; these few
lines are quoted only to test that our figures are computed the same way). Published DeltaBench
figures come from this code, so on the same replies our predictions (after its filter), our
per-sample counts and our macro and micro figures must equal its, edge cases included.

Where the script cannot give a figure we do not follow it, and the README says so: an integer
of more than 4,300 digits makes its ``int()`` raise and the row lose its scores (we read a number
beyond every section, which its filter drops), and a sample without true error sections makes
``max()`` raise (we exclude such samples, and count them in ``excluded``).
"""

# ruff: noqa: E501, F841
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pandas as pd
import pytest

from lm_eval_thinkbench.critic import data, filters, metrics
from lm_eval_thinkbench.critic.parse import TOLERANT
from lm_eval_thinkbench.harness import settings
from lm_eval_thinkbench.simulate.critic import PLAIN, REASONING, respond_deltabench

FIXTURE = Path(__file__).parent / "fixtures" / "deltabench_sample.jsonl"

# ----- verbatim from OpenStellarTeam/DeltaBench evaluation.py --------------------------------


# fmt: off
def extract_first_number(s):
    """
    Extract the first number from a string using regex.
    Args:
        s (str): Input string
    Returns:
        str: First number found in string, or None if no number exists
    """
    match = re.search(r'\d+', s)
    return match.group() if match else None


def parse_output(critic, all_error_section_indexs):
    """
    Parse the model's critique output and calculate evaluation metrics.

    Args:
        critic (str): Model's critique text
        all_error_section_indexs (list): List of all error section indices

    Returns:
        dict: Dictionary containing parsing results and evaluation metrics
    """
    # Initialize variables
    judge = -1
    parsing_success = 0
    precision = recall = f1_score = 0
    tp_step = fp_step = fn_step = 0
    try:
        # Extract conclusion and determine if there are errors
        result = critic.split("Error Section Number:")[0].split("Conclusion:")[-1].strip()
        has_errors = "yes" in result.lower()

        if has_errors:
            # Parse error sections and explanations
            model_judges = critic.split("Error Section Number:")[1:]
            error_sections_nums = []
            explanation = []

            for cur_error in model_judges:
                # Extract error number and explanation
                cur_error_number = extract_first_number(cur_error.split("Explanation:")[0].strip())
                cur_error_number = int(cur_error_number) if cur_error_number else -1
                cur_error_explanation = cur_error.split("Explanation:")[-1].strip()

                error_sections_nums.append(cur_error_number)
                explanation.append(cur_error_explanation)

            judge = 1
            parsing_success = 1
        else:
            judge = 0
            error_sections_nums = []
            explanation = []
            parsing_success = 1

        # Filter error sections based on max label
        max_label_error_section = max(all_error_section_indexs)
        error_sections_nums = [x for x in error_sections_nums if x <= max_label_error_section]

        # Calculate true positives, false positives, and false negatives
        true_positives = len(set(error_sections_nums) & set(all_error_section_indexs))
        false_positives = len(set(error_sections_nums) - set(all_error_section_indexs))
        false_negatives = len(set(all_error_section_indexs) - set(error_sections_nums))

        # Calculate precision, recall and F1 score
        precision = true_positives / (true_positives + false_positives) if (true_positives + false_positives) > 0 else 0
        recall = true_positives / (true_positives + false_negatives) if (true_positives + false_negatives) > 0 else 0
        f1_score = (2 * precision * recall) / (precision + recall) if (precision + recall) > 0 else 0

        tp_step = true_positives
        fp_step = false_positives
        fn_step = false_negatives

        return {
            "result": result,
            "error_sections_nums": error_sections_nums,
            "explanation": explanation,
            "all_info": critic,
            "parsing_success": parsing_success,
            "judge": judge,
            "precision": precision,
            "recall": recall,
            "f1_score": f1_score,
            "tp_step": tp_step,
            "fp_step": fp_step,
            "fn_step": fn_step,
        }

    except (json.JSONDecodeError, KeyError) as e:
        print(f"Error parsing the model output: {e}")
        return {
            "all_info": critic,
            "parsing_success": 0,
            "judge": judge,
            "precision": precision,
            "recall": recall,
            "f1_score": f1_score
        }


def calculate_accuracies_v2(group):

    total_questions = len(group)

    total_predicted_errors = group[group['judge'] == 1].shape[0]
    total_predicted_correct = group[group['judge'] == 0].shape[0]

    precision_macro = group['precision'].mean()
    recall_macro = group['recall'].mean()
    f1_score_macro = group['f1_score'].mean()


    sum_tp = group['tp_step'].sum()
    sum_fp = group['fp_step'].sum()
    sum_fn = group['fn_step'].sum()

    precision_micro = sum_tp / (sum_tp + sum_fp) if (sum_tp + sum_fp) > 0 else 0
    recall_micro = sum_tp / (sum_tp + sum_fn) if (sum_tp + sum_fn) > 0 else 0
    f1_micro = 2 * (precision_micro * recall_micro) / (precision_micro + recall_micro) if (precision_micro + recall_micro) > 0 else 0

    return pd.Series({
        'recall_macro': recall_macro,
        'precision_macro': precision_macro,
        'f1_score_macro': f1_score_macro,
        'recall_micro': recall_micro,
        'precision_micro': precision_micro,
        'f1_micro': f1_micro,
    })
# fmt: on


# ----- replies -------------------------------------------------------------------------------

EDGE_CASES = [
    "Conclusion: no error",
    "Conclusion: yes\nError Section Number: 4\nExplanation: x\nError Section Number: 2\nExplanation: y",
    "**Conclusion:** Yes\n**Error Section Number:** 9\n**Explanation:** x",
    "Conclusion: yes\nError Section Number: [3, 5]\nExplanation: x",
    "Conclusion: yes\nError Section Number: sections 3 and 7",
    "Conclusion: yes\nError Section Number: 3, 5",
    "Conclusion: yes\nError Section Number: see below\nExplanation: section 4",
    "Conclusion: yes\nError Section Number: see section 4",
    "Conclusion: yes\nError Section Number: [section number]\nExplanation: [explanation]",
    "Conclusion: yes\nError Section Number: ٣\nExplanation: x",
    "Conclusion: yes\nError Section Number: 007",
    "Conclusion: yes\nError Section Number: 0",
    "Conclusion: the eyes have it\nError Section Number: 2",
    "Conclusion: there are errors\nError Section Number: 5",
    "Conclusion: no error\nError Section Number: 4",
    "Conclusion: no error\nOn reflection:\nConclusion: yes\nError Section Number: 2",
    "Conclusion: yes\nConclusion: no error\nError Section Number: 2",
    "Conclusion: yes\nError Section Numbers: 3, 5",
    "conclusion: yes\nerror section number: 3",
    "CONCLUSION: YES\nError Section Number: 3",
    "Yes, section 4 is wrong.",
    "Error Section Number: 2\nExplanation: x",
    "Error Section Number: 2\nExplanation: yes",
    "Conclusion: yes",
    "Conclusion: yes\nError Section Number: 12\nExplanation: beyond the last true section",
    "Conclusion: yes\nError Section Number: 1\nError Section Number: 1\nExplanation: twice",
    "Conclusion: yes\nError Section Number: 2 Explanation: 3\nExplanation: 4",
    "I believe the mistake is in section 4.",
    "<think>Conclusion: yes\nError Section Number: 2</think>\nConclusion: no error",
    "",
]
#: Labels exact and near, conclusions, numbers in every form the script reads or skips.
_PIECES = [
    "Conclusion:",
    "Conclusion: ",
    "conclusion:",
    "**Conclusion:**",
    "Error Section Number:",
    "Error Section Number: ",
    "**Error Section Number:** ",
    "Error Section Numbers:",
    "error section number:",
    "Explanation:",
    " Explanation: ",
    "yes",
    "Yes",
    "YES",
    "eyes",
    "no error",
    "no",
    "there are errors",
    " ",
    "\n",
    "\n\n",
    "[",
    "]",
    ", ",
    " and ",
    "section",
    "sections ",
    "[section number]",
    "0",
    "1",
    "2",
    "3",
    "4",
    "7",
    "12",
    "007",
    "٣",
    "-",
    "**",
    "step 5",
    "The reasoning here is flawed.",
]


def random_replies(n: int, seed: int = 0) -> list[str]:
    """Replies of template pieces at random, half of them opened as the template is."""
    rng = random.Random(seed)
    replies = []
    for _ in range(n):
        parts = rng.choices(_PIECES, k=rng.randint(0, 16))
        if rng.random() < 0.5:
            parts = ["Conclusion: ", rng.choice(["yes", "no error", "Yes"]), "\n", *parts]
        replies.append("".join(parts))
    return replies


# ----- replay --------------------------------------------------------------------------------


def _ours(replies: list[str], truths: list[list[int]]) -> tuple[list[dict], dict[str, float]]:
    """Each reply through the DeltaBench filter's record and ``process_results`` with the
    default settings (as a run without --metadata has them), and the task's aggregations."""
    settings.configure({})
    items = []
    for i, (reply, truth) in enumerate(zip(replies, truths, strict=True)):
        doc = {"id": str(i), "truth_sections": truth, "n_sections": 8, "data_error": ""}
        record = filters.deltabench_record(reply, "none")
        items.append(metrics.deltabench_results(doc, [json.dumps(record)])["f1_macro"])
    figures = {name: getattr(metrics, name)(items) for name in metrics.DELTABENCH_METRICS}
    return [item for per_doc in items for item in per_doc], figures


def _assert_same(replies: list[str], truths: list[list[int]]) -> pd.DataFrame:
    """Ours equal the script's on every reply and over all of them; the script's rows."""
    reference = [parse_output(reply, truth) for reply, truth in zip(replies, truths, strict=True)]
    items, figures = _ours(replies, truths)
    for reply, truth, want, got in zip(replies, truths, reference, items, strict=True):
        where = repr(reply), truth
        assert (got["tp"], got["fp"], got["fn"]) == (
            want["tp_step"],
            want["fp_step"],
            want["fn_step"],
        ), where
        assert (got["precision"], got["recall"], got["f1"]) == (
            want["precision"],
            want["recall"],
            want["f1_score"],
        ), where
        flagged = got["status"] == "error"
        assert want["judge"] == int(flagged), where
    frame = pd.json_normalize(reference)
    script = calculate_accuracies_v2(frame)
    names = {"f1_score_macro": "f1_macro"}
    for key, value in script.items():
        assert figures[names.get(key, key)] == pytest.approx(value, rel=1e-12, abs=1e-15), key
    return frame


def _sections(reply: str, truth: list[int]) -> set[int]:
    """The sections the script counts for a reply (after its filter), from its own output."""
    return set(parse_output(reply, truth)["error_sections_nums"])


@pytest.mark.slow
def test_official_reading_matches_the_script_on_edge_cases_and_random_replies():
    replies = EDGE_CASES + random_replies(20_000)
    rng = random.Random(1)
    truths = [sorted(rng.sample(range(1, 9), rng.randint(1, 4))) for _ in replies]
    frame = _assert_same(replies, truths)
    # The predictions themselves (not only their counts), through the filter's record.
    settings.configure({})
    for reply, truth in zip(replies, truths, strict=True):
        record = filters.deltabench_record(reply, "none")
        kept = {n for n in record["sections"] if n <= max(truth)}
        assert kept == _sections(reply, truth), repr(reply)
    # Both verdicts occur often, and so do replies the tolerant reading reads otherwise.
    assert 2000 < frame["judge"].sum() < len(replies) - 2000
    differs = sum(
        filters.deltabench_record(r, "none")["sections"]
        != filters.deltabench_record(r, "none", TOLERANT)["sections"]
        for r in replies
    )
    assert differs > 2000


@pytest.mark.parametrize("style", [PLAIN, REASONING])
def test_deltabench_figures_equal_the_scripts_on_simulated_critiques(style):
    """The simulated critic's answers on the fixture, over many seeds: what a chat API returns
    as ``content`` (a reasoning critic's thought is not part of it)."""
    docs = [d for d in data.deltabench_docs(FIXTURE) if d["truth_sections"]]
    replies, truths = [], []
    for seed in range(60):
        for doc in docs:
            trace = respond_deltabench(doc, seed, style)
            if not trace.truth.truncated:
                replies.append(trace.content)
                truths.append(doc["truth_sections"])
    _assert_same(replies, truths)
