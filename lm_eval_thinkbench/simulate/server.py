"""``thinkbench-sim-server``: an OpenAI-compatible chat server that answers with simulated traces.

The chat model and the offline demo talk to real servers (vLLM, SGLang, DeepSeek's API) over
HTTP; this stand-in lets them be tested without weights or network. It speaks the parts of the
OpenAI chat API they use (``POST /v1/chat/completions``, ``GET /v1/models``), recognises the
MATH-500 problem in the last user message and replies with ``simulate(doc, seed)``.

``--reasoning-field none`` returns the trace inline (``<think>...</think>`` in ``content``), like
a server without a reasoning parser; ``reasoning_content`` or ``reasoning`` puts the chain of
thought in that message field and only the answer section in ``content``, like vLLM's reasoning
parser. ``usage`` token counts are approximate (characters // ``CHARS_PER_TOKEN``): there is no
tokenizer here, and the metrics must not depend on a server's counts anyway. ``max_tokens`` and
``stop`` are ignored so the ground truth stays intact; the ``truncated`` scenario stands in for
the token limit and is reported with ``finish_reason: "length"``.

``--processbench DIR`` and ``--deltabench FILE`` also answer the critic tasks' prompts;
``--critic-style plain`` makes that critic one that does not reason (GPT-4o-like): replies
with no thought markers and no reasoning field.

``--port 0`` picks a free port and prints ``READY <port>`` on stdout once listening, so a test
can start the server as a subprocess and read where to connect. Every request is logged as one
line on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from lm_eval_thinkbench.math500.data import read_math500
from lm_eval_thinkbench.simulate import respond
from lm_eval_thinkbench.simulate.critic import REASONING, STYLES, respond_critic
from lm_eval_thinkbench.simulate.traces import CHARS_PER_TOKEN, SimTrace

REASONING_FIELDS = ("none", "reasoning_content", "reasoning")
UNKNOWN_REPLY = "I don't know."
_BOX_INSTRUCTION = "Return your final response within \\boxed{}."


class SimServer(ThreadingHTTPServer):
    """Holds what the handlers share: the problems, the seed and the reply format."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        docs: list[dict[str, Any]],
        seed: int,
        reasoning_field: str,
        model_name: str,
        by_prompt: dict[str, dict[str, Any]] | None = None,
        critic_style: str = REASONING,
    ) -> None:
        super().__init__(address, _Handler)
        self.docs = docs
        self.by_prompt = by_prompt or {}
        self.seed = seed
        self.reasoning_field = reasoning_field
        self.model_name = model_name
        self.critic_style = critic_style

    def respond(self, doc: dict[str, Any], seed: int) -> SimTrace:
        """The simulated reply to ``doc``: a critique in the server's critic style for a
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


class _Handler(BaseHTTPRequestHandler):
    server: SimServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            name = self.server.model_name
            body = {"object": "list", "data": [{"id": name, "object": "model", "owned_by": "sim"}]}
            self._reply(200, body, "models")
        else:
            self._error(404, f"no route GET {self.path}")

    def do_POST(self) -> None:
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._error(404, f"no route POST {self.path}")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) if length > 0 else b"")
        except ValueError:
            self._error(400, "request body is not valid JSON")
            return
        messages = request.get("messages") if isinstance(request, dict) else None
        if not isinstance(messages, list) or not messages:
            self._error(400, "'messages' must be a non-empty list")
            return
        if request.get("stream"):
            self._error(400, "streaming is not supported by the simulator")
            return
        try:
            self._complete(request, messages)
        except Exception as exc:  # a broken doc must cost one request, not the server
            self._error(500, f"simulation failed: {exc!r}")

    def _complete(self, request: dict[str, Any], messages: list[Any]) -> None:
        prompt = _last_user_text(messages)
        seed = request.get("seed")
        seed = seed if isinstance(seed, int) else self.server.seed
        doc = self.server.find_doc(prompt)
        if doc is None:
            message: dict[str, Any] = {"role": "assistant", "content": UNKNOWN_REPLY}
            finish, note = "stop", "doc=unknown"
        else:
            trace = self.server.respond(doc, seed)
            message = _message(trace, self.server.reasoning_field)
            finish = "length" if trace.truth.truncated else "stop"
            note = f"doc={doc.get('unique_id')} scenario={trace.truth.scenario} seed={seed}"
        completion_chars = sum(
            len(value) for key, value in message.items() if key != "role" and isinstance(value, str)
        )
        prompt_tokens = sum(len(_content_text(m)) for m in messages) // CHARS_PER_TOKEN
        completion_tokens = completion_chars // CHARS_PER_TOKEN
        body = {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(request.get("model") or self.server.model_name),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        self._reply(200, body, note)

    def _error(self, status: int, text: str) -> None:
        body = {"error": {"message": text, "type": "invalid_request_error", "code": status}}
        # An unread or malformed body would be parsed as the next request on a kept-alive socket.
        self.close_connection = True
        self._reply(status, body, text)

    def _reply(self, status: int, body: dict[str, Any], note: str) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        sys.stderr.write(f"{self.command} {self.path} {status} {note}\n")
        sys.stderr.flush()

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """Silenced: ``_reply`` writes the one log line per request, with more to say."""


def _message(trace: SimTrace, reasoning_field: str) -> dict[str, Any]:
    """The assistant message as a server with (or without) a reasoning parser sends it."""
    if not trace.reasoning:  # a model that does not reason: its answer, and nothing else
        return {"role": "assistant", "content": trace.content}
    if reasoning_field == "none":
        return {"role": "assistant", "content": trace.inline()}
    # vLLM sends null content when generation stopped inside the reasoning.
    content = None if trace.truth.truncated else trace.content
    return {"role": "assistant", "content": content, reasoning_field: trace.reasoning}


def _last_user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return _content_text(message)
    return ""


def _content_text(message: object) -> str:
    """Message content as text: a string, or the text parts of a content-part list."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


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


def main(argv: Sequence[str] | None = None) -> None:
    """Console script ``thinkbench-sim-server``."""
    parser = argparse.ArgumentParser(
        prog="thinkbench-sim-server",
        description="OpenAI-compatible chat server answering MATH-500 with simulated traces.",
    )
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument(
        "--data",
        default=os.environ.get("THINKBENCH_MATH500_PATH"),
        help="MATH-500 JSONL (default: $THINKBENCH_MATH500_PATH)",
    )
    parser.add_argument(
        "--processbench", metavar="DIR", help="also answer ProcessBench critic prompts from DIR"
    )
    parser.add_argument(
        "--deltabench", metavar="FILE", help="also answer DeltaBench critic prompts from FILE"
    )
    parser.add_argument(
        "--critic-style",
        choices=STYLES,
        default=REASONING,
        help="plain: the critic writes no reasoning (a GPT-4o-like reply, no <think>)",
    )
    parser.add_argument("--seed", type=int, default=0, help="used when a request has no seed")
    parser.add_argument("--reasoning-field", choices=REASONING_FIELDS, default="none")
    parser.add_argument("--model-name", default="thinkbench-sim")
    args = parser.parse_args(argv)
    if not args.data:
        parser.error("no data: pass --data or set THINKBENCH_MATH500_PATH")
    server = SimServer(
        (args.host, args.port),
        read_math500(Path(args.data)),
        seed=args.seed,
        reasoning_field=args.reasoning_field,
        model_name=args.model_name,
        by_prompt=critic_prompts(args.processbench, args.deltabench),
        critic_style=args.critic_style,
    )
    print(f"READY {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
