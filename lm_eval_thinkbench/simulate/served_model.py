"""The simulated model as a rule set of ``thinkbench-sim-server``: its reply to a chat request.

The chat model and the offline demo talk to real servers (vLLM, SGLang, DeepSeek's API) over
HTTP; the server (:mod:`.server`) stands in for them, and this is what it answers when no
scripted rule does: it recognises the MATH-500 problem in the last user message (or a critic
task's exact prompt) and replies with ``simulate(doc, seed)`` (or the critique).

``reasoning_field="none"`` returns the trace inline (``<think>...</think>`` in ``content``), like
a server without a reasoning parser; ``reasoning_content`` or ``reasoning`` puts the chain of
thought in that message field and only the answer section in ``content``, like vLLM's reasoning
parser. ``usage`` token counts are approximate (characters // ``CHARS_PER_TOKEN``): there is no
tokenizer here, and the metrics must not depend on a server's counts anyway. ``max_tokens`` and
``stop`` are ignored so the ground truth stays intact; the ``truncated`` scenario stands in for
the token limit and is reported with ``finish_reason: "length"``.

Kept apart from the server so that a scripted test server loads none of it (nor the data stack).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lm_eval_thinkbench.simulate import respond
from lm_eval_thinkbench.simulate.critic import REASONING, respond_critic
from lm_eval_thinkbench.simulate.traces import CHARS_PER_TOKEN, SimTrace

UNKNOWN_REPLY = "I don't know."
_BOX_INSTRUCTION = "Return your final response within \\boxed{}."


class ServedModel:
    """The problems it knows, its seed (for requests without one) and its reply format."""

    def __init__(
        self,
        docs: list[dict[str, Any]],
        seed: int,
        reasoning_field: str,
        by_prompt: dict[str, dict[str, Any]] | None = None,
        critic_style: str = REASONING,
    ) -> None:
        self.docs = docs
        self.by_prompt = by_prompt or {}
        self.seed = seed
        self.reasoning_field = reasoning_field
        self.critic_style = critic_style

    @classmethod
    def load(
        cls,
        data: Path,
        seed: int,
        reasoning_field: str,
        processbench: str | None = None,
        deltabench: str | None = None,
        critic_style: str = REASONING,
    ) -> ServedModel:
        """The model answering the MATH-500 file ``data`` and the critic sets given."""
        from lm_eval_thinkbench.math500.data import read_math500  # (it loads ``datasets``)

        return cls(
            read_math500(data),
            seed,
            reasoning_field,
            critic_prompts(processbench, deltabench),
            critic_style,
        )

    def respond(self, doc: dict[str, Any], seed: int) -> SimTrace:
        """The simulated reply to ``doc``: a critique in the model's critic style for a
        critic task's doc, a MATH-500 trace otherwise."""
        critique = respond_critic(doc, seed, self.critic_style)
        return critique if critique is not None else respond(doc, seed=seed)

    def find_doc(self, prompt: str) -> dict[str, Any] | None:
        """The doc whose rendered prompt is ``prompt`` (critic tasks), else the MATH-500 doc
        whose problem occurs in ``prompt``; the longest wins if several do.

        Prompts may drop the "Return your final response within \\boxed{}." prefix our copy of
        the problems carries, so the problem without it is looked for too.
        """
        exact = self.by_prompt.get(prompt.strip())
        if exact is not None:
            return exact
        best: dict[str, Any] | None = None
        best_len = -1
        for doc in self.docs:
            problem = doc["problem"].strip()
            for needle in (problem, problem.removeprefix(_BOX_INSTRUCTION).strip()):
                if needle and len(needle) > best_len and needle in prompt:
                    best, best_len = doc, len(needle)
        return best

    def reply(
        self, request: dict[str, Any], prompt: str, prompt_chars: int
    ) -> tuple[dict[str, Any], str, dict[str, int], str]:
        """(message, finish_reason, usage, log note) for a request whose last user message
        is ``prompt`` and whose messages hold ``prompt_chars`` characters."""
        seed = request.get("seed")
        seed = seed if isinstance(seed, int) else self.seed
        doc = self.find_doc(prompt)
        if doc is None:
            message: dict[str, Any] = {"role": "assistant", "content": UNKNOWN_REPLY}
            finish, note = "stop", "doc=unknown"
        else:
            trace = self.respond(doc, seed)
            message = assistant_message(trace, self.reasoning_field)
            finish = "length" if trace.truth.truncated else "stop"
            note = f"doc={doc.get('unique_id')} scenario={trace.truth.scenario} seed={seed}"
        completion_chars = sum(
            len(value) for key, value in message.items() if key != "role" and isinstance(value, str)
        )
        prompt_tokens = prompt_chars // CHARS_PER_TOKEN
        completion_tokens = completion_chars // CHARS_PER_TOKEN
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        return message, finish, usage, note


def assistant_message(trace: SimTrace, reasoning_field: str) -> dict[str, Any]:
    """The assistant message as a server with (or without) a reasoning parser sends it."""
    if not trace.reasoning:  # a model that does not reason: its answer, and nothing else
        return {"role": "assistant", "content": trace.content}
    if reasoning_field == "none":
        return {"role": "assistant", "content": trace.inline()}
    # vLLM sends null content when generation stopped inside the reasoning.
    content = None if trace.truth.truncated else trace.content
    return {"role": "assistant", "content": content, reasoning_field: trace.reasoning}


def critic_prompts(
    processbench: str | None, deltabench: str | None = None
) -> dict[str, dict[str, Any]]:
    """Every ProcessBench doc of the folder ``processbench`` and every DeltaBench doc of the
    file ``deltabench``, keyed by the prompt the task renders for it, so the server answers
    the critic tasks as ``thinkbench-sim`` does."""
    from lm_eval_thinkbench.critic.data import (
        PROCESSBENCH_SUBSETS,
        deltabench_docs,
        processbench_docs,
    )
    from lm_eval_thinkbench.critic.prompts import deltabench_prompt, processbench_prompt

    prompts: dict[str, dict[str, Any]] = {}
    if processbench:
        for subset in PROCESSBENCH_SUBSETS:
            for doc in processbench_docs(subset, processbench):
                prompts[processbench_prompt(doc).strip()] = doc
    if deltabench:
        for doc in deltabench_docs(deltabench):
            prompts[deltabench_prompt(doc).strip()] = doc
    return prompts
