"""An OpenAI-compatible chat completions server on loopback, answering from the prompt's facts.

It serves `POST /v1/chat/completions` as Ollama, vLLM, llama.cpp and hosted APIs do: the
request must name a model and carry messages and a `json_schema` response format; the answer
is a `chat.completion` whose content is JSON built from the facts in the prompt, with `usage`.
Faults from `LlmFaults` are injected where a real server or model would produce them;
`refuse_strict_lengths` makes it refuse length keywords in strict mode as some hosted services
do; `replay` answers from recorded answers instead of templates (`replay.py`). Every request
is kept in `requests`, so tests count what the client asked.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from orchestration.narrative.client import estimate_tokens
from orchestration.testing.llm_emulator.answers import (
    CLAIMS_MARK,
    facts_of,
    hostile_pr_answer,
    hostile_week_answer,
    pr_answer,
    verdicts,
    week_answer,
)
from orchestration.testing.llm_emulator.faults import LlmFault, LlmFaults, parse_fault_spec
from orchestration.testing.stand_in import LoopbackServer, add_fault_arguments

PATH = "/v1/chat/completions"
FOREIGN_OFFSET = 1_000_000  # a PR number no week holds
UNKNOWN_FIGURE = "9876.5%"
LENGTH_KEYWORDS = ("minLength", "maxLength", "minItems", "maxItems")


class LlmEmulator(LoopbackServer):
    """A chat completions endpoint on loopback; a context manager that starts and stops it."""

    def __init__(
        self, *, host: str = "127.0.0.1", port: int = 0, api_key: str | None = None, seed: int = 0
    ) -> None:
        self.api_key = api_key
        self.faults = LlmFaults(seed)
        self.refuse_strict_lengths = False
        self.replay: Callable[[str, dict], dict | None] | None = None
        super().__init__(_handler_for(self), host, port)

    @property
    def url(self) -> str:
        """The base URL, as `PRWEEKLY_LLM_URL` takes it."""
        return f"{self.address}/v1"

    def answer(self, request: Any, fault: LlmFault | None) -> tuple[int, dict]:
        """The status and body a server would send for this request."""
        if not isinstance(request, dict) or not request.get("model"):
            return 400, _error("the request names no model", "invalid_request_error")
        messages = request.get("messages")
        fmt = request.get("response_format") or {}
        if not isinstance(messages, list) or fmt.get("type") != "json_schema":
            return 400, _error("messages and a json_schema response_format are required")
        schema = fmt.get("json_schema") or {}
        name = schema.get("name")
        if self.refuse_strict_lengths and schema.get("strict"):
            used = [k for k in LENGTH_KEYWORDS if f'"{k}"' in json.dumps(schema.get("schema"))]
            if used:
                return 400, _error(
                    f"Invalid schema for response_format '{name}': In strict mode, "
                    f"'{used[0]}' is not permitted."
                )
        try:
            if name == "claim_verdicts":
                claims = facts_of(messages, CLAIMS_MARK)
                answer = verdicts(claims, supported=fault is not LlmFault.REFUTE)
                return 200, self._completion(request, messages, json.dumps(answer), fault)
            facts = facts_of(messages)
        except (ValueError, TypeError):
            return 400, _error("the prompt holds no facts to answer from")
        recorded = self.replay(name, facts) if self.replay else None
        if recorded is not None:
            answer = recorded
        elif name == "pr_narrative":
            answer = (hostile_pr_answer if fault is LlmFault.HOSTILE else pr_answer)(facts)
        elif name == "week_narrative":
            answer = (hostile_week_answer if fault is LlmFault.HOSTILE else week_answer)(facts)
        else:
            return 400, _error(f"unknown schema {name!r}")
        return 200, self._completion(request, messages, _spoil(answer, fault), fault)

    def _completion(self, request: dict, messages: list, content: str, fault) -> dict:
        prompt = sum(estimate_tokens(str(m.get("content") or "")) for m in messages)
        completion = estimate_tokens(content)
        body = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }
        if fault is LlmFault.NO_USAGE:
            del body["usage"]
        elif fault is LlmFault.BAD_USAGE:
            body["usage"] = {"prompt_tokens": "n/a", "completion_tokens": None, "total_tokens": {}}
        return body


def _spoil(answer: dict, fault: LlmFault | None) -> str:
    """The answer's content, spoilt as the fault says (in every sentence of its summary, so
    that the part itself fails)."""
    if fault is LlmFault.INVALID_JSON:
        return json.dumps(answer, ensure_ascii=False)[:-7] + " …"
    if fault is LlmFault.BREAK_SCHEMA:
        del answer["summary"]
    for claim in answer.get("summary") or []:
        if fault is LlmFault.FOREIGN_PR:
            number = answer.get("number") or 0
            claim["zh"] = claim["zh"][:120] + f"另见 #{number + FOREIGN_OFFSET}。"
            claim["en"] = claim["en"][:300] + f" See #{number + FOREIGN_OFFSET}."
        elif fault is LlmFault.UNKNOWN_FIGURE:
            claim["zh"] = claim["zh"][:120] + f"性能提升 {UNKNOWN_FIGURE}。"
            claim["en"] = claim["en"][:300] + f" It is {UNKNOWN_FIGURE} faster."
        elif fault is LlmFault.ENGLISH:
            claim["zh"] = claim["en"][:150]
    return json.dumps(answer, ensure_ascii=False)


def _error(message: str, kind: str = "invalid_request_error") -> dict:
    return {"error": {"message": message, "type": kind}}


def _handler_for(emulator: LlmEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "llm-emulator"
        sys_version = ""
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            self._send(404, _error("not found", "not_found"))

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            entry = {"path": self.path, "body": body, "fault": None, "status": None}
            emulator.record(entry)
            if self.path.split("?")[0] != PATH:
                return self._send(404, _error(f"no route {self.path}", "not_found"))
            fault = emulator.faults.next_fault()
            entry["fault"] = fault
            if fault is LlmFault.UNAUTHORIZED or not self._authorised():
                return self._send(401, _error("invalid API key", "authentication_error"))
            if fault is LlmFault.TIMEOUT:
                time.sleep(emulator.faults.delay_seconds)
            if fault is LlmFault.RATE_LIMIT:
                headers = {"retry-after": str(emulator.faults.retry_after_seconds)}
                return self._send(429, _error("rate limit reached", "rate_limit"), headers)
            if fault is LlmFault.SERVER_ERROR:
                return self._send(500, _error("the model crashed", "server_error"))
            try:
                request = json.loads(body or b"null")
            except ValueError:
                return self._send(400, _error("the body is not JSON"))
            try:
                status, payload = emulator.answer(request, fault)
            except Exception as error:  # a bug of the emulator shows as the server's error
                status, payload = 500, _error(f"{type(error).__name__}: {error}", "server_error")
            entry["status"] = status
            if fault is LlmFault.TRICKLE:
                return self._trickle(status, payload, emulator.faults.trickle_seconds)
            headers = (
                {"x-ratelimit-remaining-tokens": "lots"} if fault is LlmFault.BAD_USAGE else None
            )
            self._send(status, payload, headers)

        def _authorised(self) -> bool:
            if emulator.api_key is None:
                return True
            return self.headers.get("authorization") == f"Bearer {emulator.api_key}"

        def _trickle(self, status: int, payload: Any, seconds: float) -> None:
            """The answer a byte at a time: every read returns, the whole never arrives."""
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            with contextlib.suppress(OSError):
                self.send_response(status)
                self.send_header("content-type", "application/json; charset=utf-8")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.flush()
                for index in range(len(data)):
                    self.wfile.write(data[index : index + 1])
                    self.wfile.flush()
                    time.sleep(seconds)

        def _send(self, status: int, payload: Any, headers: dict | None = None) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            with contextlib.suppress(OSError):  # the client may have timed out and gone
                self.send_response(status)
                self.send_header("content-type", "application/json; charset=utf-8")
                self.send_header("content-length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

    return Handler


def main(argv: list[str] | None = None) -> int:
    """`prweekly llm-emulator [--port N]`: serve until interrupted."""
    parser = argparse.ArgumentParser(
        prog="prweekly llm-emulator",
        description="Serve an OpenAI-compatible chat completions endpoint on loopback that "
        "answers prweekly's narrative requests from the facts in their prompts.",
    )
    parser.add_argument("--port", type=int, default=8788, help="0 picks a free port")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--api-key", help="accept only this key (default: any or none)")
    add_fault_arguments(parser, LlmFault)
    args = parser.parse_args(argv)
    try:
        faults = [parse_fault_spec(spec) for spec in args.fault]
        emulator = LlmEmulator(host=args.host, port=args.port, api_key=args.api_key, seed=args.seed)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    for fault, probability in faults:
        emulator.faults.fail_randomly(fault, probability)
    print("language model emulator: OpenAI-compatible chat completions", flush=True)
    print(f"PRWEEKLY_LLM_URL={emulator.url}", flush=True)
    try:
        emulator.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        emulator._server.server_close()
    return 0
