"""``thinkbench-replay``: answer requests from an earlier run's ``--log_samples`` output.

Generating is the expensive part of an evaluation. When the grader or a metric changes, the old
responses are still valid, so this model serves them back and lets the new task version score
them: ``--model thinkbench-replay --model_args samples=<output folder>``.

A request is matched to a logged one by its prompt, hashed exactly as lm-eval hashes
``prompt_hash`` (``lm_eval.utils.hash_string`` of the context), so the replaying run must build
the same prompts (same ``--apply_chat_template``, few-shot setting and system instruction). The
task name does not matter, which is what lets a renamed task version reuse old runs. Repeats of a
request get the logged repeats in order.
"""

from __future__ import annotations

import glob
import json
import logging
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_eval.api.instance import Instance
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from lm_eval.models.api_models import JsonChatStr
from lm_eval.utils import handle_non_serializable, hash_string
from tqdm import tqdm

from lm_eval_thinkbench.datafiles import file_problem, read_json_lines
from lm_eval_thinkbench.flags import as_bool
from lm_eval_thinkbench.models.chat import (
    CHAT_TOKENIZER_NAME,
    render_chat,
    warn_ignored_args,
)
from lm_eval_thinkbench.models.repeats import repeat_indices

eval_logger = logging.getLogger(__name__)

#: How lm-eval's evaluation tracker names per-task sample logs.
SAMPLES_GLOB = "samples_*.jsonl"


class SampleLogError(ValueError):
    """A samples file is not in the format lm-eval 0.4.13 writes."""


class ReplayMissingError(LookupError):
    """``strict=true`` and a request has no logged response."""


@dataclass(frozen=True)
class LoggedRequest:
    """One logged request: its responses (one per repeat) and the doc it came from.

    Equal values are one request: the copies lm-eval writes for each filter pipeline, or the
    same run given twice, collapse into one.
    """

    doc_id: Any
    doc_hash: str | None
    resps: tuple[str, ...]


def find_sample_files(spec: str) -> list[Path]:
    """The sample logs named by ``spec``: ``:``-separated folders, files or glob patterns.

    A folder contributes every ``samples_*.jsonl`` below it (lm-eval puts them in a per-model
    subfolder of ``--output_path``).
    """
    files: list[Path] = []
    for part in (p.strip() for p in spec.split(":")):
        if not part:
            continue
        path = Path(part).expanduser()
        if path.exists():
            matches = [path]
        else:
            matches = [Path(m) for m in sorted(glob.glob(str(path), recursive=True))]
        found = []
        for m in matches:
            for f in sorted(m.rglob(SAMPLES_GLOB)) if m.is_dir() else [m]:
                problem = file_problem(f)
                if problem is None:
                    found.append(f)
                else:  # a folder, a FIFO (reading it would hang), a broken link
                    eval_logger.warning("thinkbench-replay: skipping %s: %s", f, problem)
        if not found:
            raise FileNotFoundError(f"samples={part!r} names no {SAMPLES_GLOB} file")
        files.extend(f for f in found if f not in files)
    if not files:
        raise ValueError("samples= is empty; give an lm-eval output folder or samples file")
    return files


def prompt_hash(context: object) -> str:
    """lm-eval's ``prompt_hash`` of a request context (a str or a ``JsonChatStr``)."""
    return hash_string(context.prompt if isinstance(context, JsonChatStr) else str(context))


def doc_hash(doc: object) -> str:
    """lm-eval's ``doc_hash`` (``evaluator.evaluate`` serialises the doc exactly so)."""
    return hash_string(
        json.dumps(doc, indent=2, default=handle_non_serializable, ensure_ascii=False)
    )


def load_samples(files: list[Path]) -> dict[str, list[LoggedRequest]]:
    """Index every logged request by prompt hash, earlier files first.

    Raises:
        SampleLogError: naming the file (and line) that cannot be read or is not a sample log.
    """
    index: dict[str, list[LoggedRequest]] = defaultdict(list)
    for path in files:
        for lineno, record in read_json_lines(path, SampleLogError, "lm-eval sample records"):
            where = f"{path}:{lineno}"
            for context, resps in _logged_requests(record, where):
                logged = LoggedRequest(
                    doc_id=_field(record, "doc_id", (int, str), where),
                    doc_hash=_field(record, "doc_hash", (str,), where),
                    resps=resps,
                )
                same_prompt = index[prompt_hash(context)]
                if logged not in same_prompt:
                    same_prompt.append(logged)
    return dict(index)


def _field(record: dict[str, Any], key: str, types: tuple[type, ...], where: str) -> Any:
    """An optional field of the given types (None when absent): a doc id lm-eval logs as a
    number, its hash as a string."""
    value = record.get(key)
    if value is None or (isinstance(value, types) and not isinstance(value, bool)):
        return value
    expected = " or ".join(t.__name__ for t in types)
    raise SampleLogError(f"{where}: {key} is {type(value).__name__}, expected {expected}")


def _logged_requests(record: object, where: str) -> list[tuple[str, tuple[str, ...]]]:
    """(context, responses) per request of one sample line.

    lm-eval 0.4.13 logs ``arguments`` as ``{"gen_args_<i>": {"arg_0": context, ...}}`` and
    ``resps`` as one list of repeat responses per request; a ``JsonChatStr`` context is a
    one-element list after JSON serialisation.
    """
    if not isinstance(record, dict):
        raise SampleLogError(f"{where}: expected a JSON object, got {type(record).__name__}")
    arguments, resps = record.get("arguments"), record.get("resps")
    if not isinstance(arguments, dict) or not isinstance(resps, list):
        raise SampleLogError(f"{where}: needs an 'arguments' object and a 'resps' list")
    try:
        keys = sorted(arguments, key=lambda k: int(k.removeprefix("gen_args_")))
    except ValueError:
        raise SampleLogError(f"{where}: 'arguments' keys must be gen_args_<i>") from None
    if len(keys) != len(resps):
        raise SampleLogError(f"{where}: {len(keys)} arguments but {len(resps)} resps")
    out = []
    for key, repeats in zip(keys, resps, strict=True):
        args = arguments[key]
        context = args.get("arg_0") if isinstance(args, dict) else None
        if isinstance(context, list) and len(context) == 1:
            context = context[0]
        if not isinstance(context, str):
            raise SampleLogError(f"{where}: {key}.arg_0 is not a prompt string")
        if not isinstance(repeats, list) or not all(isinstance(r, str) for r in repeats):
            raise SampleLogError(f"{where}: resps must be lists of strings")
        out.append((context, tuple(repeats)))
    return out


@register_model("thinkbench-replay")
class ReplayLM(LM):
    """Serves the responses of earlier ``--log_samples`` runs instead of generating.

    Model args: ``samples`` (an lm-eval output folder, a ``samples_*.jsonl`` file or a glob;
    several joined by ``:``; earlier ones win when runs disagree) and ``strict`` (default false:
    a request with no logged response gets ``""``, counted in a warning; true: raise
    :class:`ReplayMissingError` naming the doc).

    Chat templating renders the messages as JSON like ``thinkbench-chat`` and lm-eval's
    ``local-chat-completions``, so runs of those models replay with ``--apply_chat_template``.
    """

    def __init__(
        self, samples: str | None = None, strict: bool | str = False, **kwargs: Any
    ) -> None:
        super().__init__()
        if not samples:
            raise ValueError("thinkbench-replay needs samples=<lm-eval output folder or file>")
        warn_ignored_args("thinkbench-replay", kwargs)
        self.strict = as_bool(strict, "strict")
        self.files = find_sample_files(str(samples))
        self._index = load_samples(self.files)
        conflicts = sum(
            1
            for logged in self._index.values()
            if len(logged) != len({(s.doc_id, s.doc_hash) for s in logged})
        )
        if conflicts:
            eval_logger.warning(
                "%d prompts have different logged responses in different files; the first "
                "file listed wins: %s",
                conflicts,
                ", ".join(map(str, self.files)),
            )
        eval_logger.info(
            "thinkbench-replay: %d logged prompts from %d files", len(self._index), len(self.files)
        )

    @property
    def tokenizer_name(self) -> str:
        """The same request-cache fingerprint as ``thinkbench-chat``, whose prompts we replay."""
        return CHAT_TOKENIZER_NAME

    def apply_chat_template(
        self, chat_history: list[dict[str, Any]], add_generation_prompt: bool = True
    ) -> JsonChatStr:
        """Render as the chat models did, so prompt hashes match their logs."""
        return render_chat(chat_history)

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float, bool]]:
        raise NotImplementedError("thinkbench-replay replays generate_until responses only")

    def loglikelihood_rolling(self, requests: list[Instance]) -> list[float]:
        raise NotImplementedError("thinkbench-replay replays generate_until responses only")

    def generate_until(self, requests: list[Instance], disable_tqdm: bool = False) -> list[str]:
        """The logged response for each request, in order ("" where none was logged)."""
        results: list[str] = []
        missing: list[str] = []
        numbered = zip(requests, repeat_indices(requests), strict=True)
        for request, repeat in tqdm(
            numbered, total=len(requests), desc="thinkbench-replay", disable=disable_tqdm
        ):
            response = self._lookup(request, repeat)
            if response is not None:
                results.append(response)
                self.cache_hook.add_partial("generate_until", request.args, response)
                continue
            what = (
                f"task {request.task_name!r} doc_id {request.doc_id} repeat {repeat} "
                f"(prompt_hash {prompt_hash(request.args[0])})"
            )
            if self.strict:
                raise ReplayMissingError(
                    f"no logged response for {what} in {', '.join(map(str, self.files))}"
                )
            missing.append(what)
            results.append("")
        if missing:
            eval_logger.warning(
                "%d of %d requests had no logged response and were answered with '' (first: "
                "%s). Same --apply_chat_template, num_fewshot and system instruction as the "
                "logged run? strict=true makes this an error.",
                len(missing),
                len(requests),
                missing[0],
            )
        return results

    def _lookup(self, request: Instance, repeat: int) -> str | None:
        candidates = self._index.get(prompt_hash(request.args[0]), [])
        if len(candidates) > 1:
            # Several docs share this prompt: prefer the same doc, by content, then by id.
            wanted = doc_hash(request.doc)
            same_doc = [c for c in candidates if c.doc_hash == wanted]
            same_id = [c for c in same_doc or candidates if c.doc_id == request.doc_id]
            candidates = same_id or same_doc or candidates
        if candidates and repeat < len(candidates[0].resps):
            return candidates[0].resps[repeat]
        return None
