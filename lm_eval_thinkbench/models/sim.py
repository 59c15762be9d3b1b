"""lm-eval model ``thinkbench-sim``: a simulated reasoning model with exactly known output.

Tests, the offline demo and CI have no model weights, yet an end-to-end run has to exercise the
whole pipeline (requests, filters, metrics, sample logs) and check every number it reports.
This model answers each ``generate_until`` request with ``simulate(instance.doc, seed)``, so the
ground truth of every response can be recomputed from the logged doc alone.

Model args: ``seed`` (int, default 0), ``scenario`` (force one of ``SCENARIOS``),
``target_tokens`` (approximate reasoning length), ``reasoning_field`` (bool: return the
``ModelResponse`` JSON envelope with the reasoning separate, as a server with a reasoning
parser would, instead of inline ``<think>`` text).
"""

from __future__ import annotations

# lm-eval's built-in models must be registered before ours: in lm-eval 0.4.13, a plugin that
# registers a model before lm_eval.models is imported leaves the built-in models unloaded.
import lm_eval.models  # noqa: F401
from lm_eval.api.instance import Instance
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

import lm_eval_thinkbench.simulate.critic  # noqa: F401  registers the critic responders
from lm_eval_thinkbench.flags import as_bool
from lm_eval_thinkbench.models.repeats import repeat_indices
from lm_eval_thinkbench.response import ModelResponse
from lm_eval_thinkbench.simulate import SCENARIOS, SimTrace, respond
from lm_eval_thinkbench.simulate import logic as _logic  # noqa: F401  registers the logic responder


@register_model("thinkbench-sim")
class SimulatedReasoner(LM):
    """Answers MATH-500 requests with simulated R1-style traces; the prompt itself is ignored.

    Stop sequences and ``max_gen_toks`` are ignored on purpose: cutting a trace would silently
    invalidate its ground truth (the ``truncated`` scenario models the token limit instead).
    """

    def __init__(
        self,
        seed: int = 0,
        reasoning_field: bool = False,
        scenario: str | None = None,
        target_tokens: int | None = None,
        **_harness_args: object,
    ) -> None:
        """``_harness_args`` absorbs what the harness passes every model (batch_size, device)."""
        super().__init__()
        if scenario is not None and scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}; expected one of {SCENARIOS}")
        self.seed = int(seed)
        self.reasoning_field = as_bool(reasoning_field, "reasoning_field")
        self.scenario = scenario
        self.target_tokens = None if target_tokens is None else int(target_tokens)

    def generate_until(self, requests: list[Instance], disable_tqdm: bool = False) -> list[str]:
        """One simulated response per request.

        Repeat k (``models.repeats``) gets seed ``seed + k``: repeats differ, and repeat 0 is
        what a run without repeats produces.
        """
        out = []
        for request, repeat in zip(requests, repeat_indices(requests), strict=True):
            trace = respond(
                request.doc,
                seed=self.seed + repeat,
                scenario=self.scenario,
                target_tokens=self.target_tokens,
            )
            out.append(self._render(trace))
        return out

    def _render(self, trace: SimTrace) -> str:
        if not self.reasoning_field:
            return trace.inline()
        return ModelResponse(
            content=trace.content,
            reasoning=trace.reasoning,
            finish_reason="length" if trace.truth.truncated else "stop",
        ).to_wire()

    def loglikelihood(self, requests: list[Instance], disable_tqdm: bool = False) -> list:
        raise NotImplementedError(
            "thinkbench-sim only generates text (generate_until); it has no log-likelihoods, "
            "so multiple-choice and perplexity tasks cannot run on it"
        )

    def loglikelihood_rolling(self, requests: list[Instance], disable_tqdm: bool = False) -> list:
        raise NotImplementedError(
            "thinkbench-sim only generates text (generate_until); it has no log-likelihoods, "
            "so perplexity tasks cannot run on it"
        )

    @property
    def tokenizer_name(self) -> str:
        """Lets ``--apply_chat_template`` runs fingerprint their request cache."""
        return "thinkbench-sim"

    def apply_chat_template(
        self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True
    ) -> str:
        """A plain transcript: the simulator ignores the prompt, but the harness must build one."""
        text = "\n\n".join(f"{m['role']}: {m['content']}" for m in chat_history)
        return text + "\n\nassistant:" if add_generation_prompt else text
