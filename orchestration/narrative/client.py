"""Chat completions over httpx, surviving the ways a model server really fails.

- timeouts, resets and 5xx: retried with backoff (a few times);
- 429: waited out for its `Retry-After`, within `PRWEEKLY_MAX_WAIT_SECONDS` for the whole run;
- a deadline per request (`PRWEEKLY_LLM_REQUEST_DEADLINE_SECONDS`, the whole answer
  included, so a server trickling bytes is cut off) and one per build
  (`PRWEEKLY_LLM_BUILD_DEADLINE_SECONDS`): past either, the part is `Unavailable`;
- a strict-mode refusal of the schema's length keywords (some hosted services): the build
  falls back once, logged, to schemas without them (the answers are checked as before);
- a wrong URL or key (connection refused, 401, 403, 404, another 4xx): `EndpointError` at
  once, saying what to fix, so the narrative step stops and the reports are written;
- any answer, header or usage field that is not what the API says (`"prompt_tokens": "n/a"`):
  read as far as it can be, never an exception; a missing count is estimated and said so;
- a run's token budget: `Unavailable` once spent.
The API key goes only into the `Authorization` header, and the URL is shown only redacted
(`settings.shown_url`): never a password or key in a message, a log line or an error.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

import httpx

from orchestration.narrative.schema import LENGTH_KEYWORDS, max_tokens, relaxed
from orchestration.narrative.settings import LlmSettings
from orchestration.retry import Backoff, retry_after

RETRY = Backoff(attempts=4, base=0.5, cap=8.0)  # per request, for failures not rate limits
READ_TIMEOUT = 300.0  # the most one read may wait (the request's deadline is usually sooner)
MAX_RESPONSE_BYTES = 2_000_000
_TOO_LONG = re.compile(r"context|too long|too many tokens|maximum.*tokens", re.I)
_REFUSED = re.compile(r"strict|schema|response_format|" + "|".join(LENGTH_KEYWORDS), re.I)


class EndpointError(RuntimeError):
    """The endpoint cannot be used at all (wrong URL, key or model): asking more is useless."""


class Unavailable(RuntimeError):
    """This request could not be answered (the server kept failing, a deadline passed, the
    wait or token budget was spent): the part falls back to the deterministic text and is
    asked again next build."""


class _Late(Exception):
    pass


@dataclass(frozen=True)
class Completion:
    content: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int
    usage_estimated: bool = False  # the server reported no usable counts: these are estimates
    truncated: bool = False  # the server stopped at max_tokens


def estimate_tokens(text: str) -> int:
    """A model-independent estimate: one token per CJK character, one per four other ones."""
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")
    return cjk + (len(text) - cjk + 3) // 4


def _count(value: Any) -> int | None:
    """A token count as the API should give it, or None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, float) and value >= 0 and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


class ChatClient:
    """One client per run: it shares the run's wait and token budgets and its deadline
    between threads."""

    def __init__(self, settings: LlmSettings, timeout: float = READ_TIMEOUT) -> None:
        self.settings = settings
        headers = {"content-type": "application/json"}
        if settings.api_key:
            headers["authorization"] = f"Bearer {settings.api_key}"
        self._http = httpx.Client(headers=headers, timeout=timeout)
        self._timeout = timeout
        self._pool = ThreadPoolExecutor(settings.concurrency + 2, thread_name_prefix="llm")
        self._lock = threading.Lock()
        self._build_deadline = time.monotonic() + settings.build_deadline_seconds
        self.tokens_used = 0
        self.waited_seconds = 0.0
        self.requests = 0
        self.estimated_usage = 0  # answers whose token counts were estimated
        self.refused: tuple[str, ...] = ()  # schema keywords the server refused in strict mode
        self.notes: list[str] = []  # what the run log should say once (a strict-mode fallback)

    def close(self) -> None:
        self._http.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _charge_wait(self, seconds: float) -> bool:
        with self._lock:
            if self.waited_seconds + seconds > self.settings.max_wait_seconds:
                return False
            self.waited_seconds += seconds
            return True

    def _reserve(self, estimate: int) -> None:
        with self._lock:
            if self.tokens_used + estimate > self.settings.token_budget:
                raise Unavailable(
                    f"the run's token budget ({self.settings.token_budget:,}) is spent"
                )
            self.tokens_used += estimate

    def _settle(self, estimate: int, actual: int, estimated: bool) -> None:
        with self._lock:
            self.tokens_used += actual - estimate
            self.requests += 1
            self.estimated_usage += estimated

    def _body(self, messages: list[dict], name: str, schema: dict) -> dict:
        if self.refused:
            schema = relaxed(schema, self.refused)
        return {
            "model": self.settings.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": max_tokens(schema),
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "strict": True, "schema": schema},
            },
        }

    def complete(self, messages: list[dict], schema_name: str, schema: dict) -> Completion:
        """The assistant's answer to `messages`, as JSON text following `schema`."""
        prompt = sum(estimate_tokens(str(m.get("content") or "")) for m in messages)
        estimate = prompt + max_tokens(schema)
        self._reserve(estimate)
        failures = 0
        try:
            while True:
                body = self._body(messages, schema_name, schema)
                started = time.monotonic()
                status, headers, data = self._send(body)
                latency = round((time.monotonic() - started) * 1000)
                if status is None:
                    failures += 1
                    self._back_off(failures, data.decode("utf-8", "replace"))
                    continue
                if status == 429:
                    self._wait_rate_limit(headers)
                    continue
                if status >= 500:
                    failures += 1
                    self._back_off(failures, f"HTTP {status} from the model")
                    continue
                if status >= 400:
                    self._refusal(status, _message(data), bool(self.refused))
                    continue
                completion = _completion(data, latency, prompt)
                self._settle(
                    estimate,
                    completion.prompt_tokens + completion.completion_tokens,
                    completion.usage_estimated,
                )
                estimate = 0
                return completion
        finally:
            if estimate:
                self._settle(estimate, 0, False)

    def _send(self, body: dict) -> tuple[int | None, dict, bytes]:
        """One exchange within the request's deadline: (status, headers, body), or (None, {},
        why) for a failure worth another try. Raises `Unavailable` past a deadline."""
        now = time.monotonic()
        if now >= self._build_deadline:
            raise Unavailable(
                f"the build's time for the model is spent "
                f"(PRWEEKLY_LLM_BUILD_DEADLINE_SECONDS={self.settings.build_deadline_seconds:g})"
            )
        deadline = min(now + self.settings.request_deadline_seconds, self._build_deadline)
        future = self._pool.submit(self._exchange, body, deadline)
        try:
            return future.result(timeout=max(0.0, deadline - now) + 1.0)
        except (FutureTimeout, _Late):
            future.cancel()
            raise Unavailable(
                "no complete answer within the request's deadline "
                f"(PRWEEKLY_LLM_REQUEST_DEADLINE_SECONDS="
                f"{self.settings.request_deadline_seconds:g})"
            ) from None
        except httpx.ConnectError as error:
            raise EndpointError(
                f"cannot connect to the language model at {self.settings.shown_endpoint} "
                f"({type(error).__name__}): check PRWEEKLY_LLM_URL"
            ) from None
        except httpx.HTTPError as error:  # timeouts, resets, broken or malformed answers
            return None, {}, f"{type(error).__name__} from the model".encode()

    def _exchange(self, body: dict, deadline: float) -> tuple[int, dict, bytes]:
        remaining = max(0.05, deadline - time.monotonic())
        timeout = httpx.Timeout(min(self._timeout, remaining), connect=min(10.0, remaining))
        request = self._http.build_request(
            "POST", self.settings.endpoint, json=body, timeout=timeout
        )
        response = self._http.send(request, stream=True)
        try:
            data = bytearray()
            for chunk in response.iter_bytes():
                data += chunk
                if time.monotonic() > deadline:
                    raise _Late()
                if len(data) > MAX_RESPONSE_BYTES:
                    break
            return response.status_code, dict(response.headers), bytes(data)
        finally:
            with contextlib.suppress(Exception):
                response.close()

    def _refusal(self, status: int, message: str, relaxed_already: bool) -> None:
        """A 4xx: the schema's keywords refused in strict mode (fall back once), else the end."""
        endpoint = self.settings.shown_endpoint
        if status in (401, 403):
            raise EndpointError(
                f"the language model at {endpoint} refused the key (HTTP {status}): "
                "check PRWEEKLY_LLM_API_KEY"
            )
        if status == 404:
            raise EndpointError(
                f"no chat completions endpoint at {endpoint} (HTTP 404): PRWEEKLY_LLM_URL is "
                "the base URL, e.g. http://localhost:11434/v1"
            )
        if status in (400, 422) and not relaxed_already and _REFUSED.search(message):
            with self._lock:  # a server names the first keyword it refuses, not all of them
                if not self.refused:
                    self.refused = LENGTH_KEYWORDS
                    self.notes.append(
                        f"the model server refused the schema in strict mode (HTTP {status}: "
                        f"{message[:160]}); this build sends it without "
                        f"{', '.join(self.refused)} and checks the answers against the full "
                        "schema as before"
                    )
            return
        if status in (400, 413, 422) and _TOO_LONG.search(message):
            raise Unavailable(f"the model refused this request as too long (HTTP {status})")
        raise EndpointError(
            f"the language model refused the request (HTTP {status}: {message[:200]}): "
            "check PRWEEKLY_LLM_MODEL and the server"
        )

    def _back_off(self, failures: int, what: str) -> None:
        if RETRY.gives_up(failures):
            raise Unavailable(f"{what}, {failures} times")
        delay = RETRY.wait(failures)
        if not self._charge_wait(delay):
            raise Unavailable(f"{what}; waiting more would pass PRWEEKLY_MAX_WAIT_SECONDS")
        time.sleep(delay)

    def _wait_rate_limit(self, headers: dict) -> None:
        delay = retry_after(headers.get("retry-after"), unreadable=10.0)
        if not self._charge_wait(delay):
            raise Unavailable(
                f"rate limited by the model; waiting {delay:.0f}s more would pass "
                "PRWEEKLY_MAX_WAIT_SECONDS"
            )
        time.sleep(delay)


def _message(data: bytes) -> str:
    try:
        error = json.loads(data).get("error") or {}
        return str(error.get("message") if isinstance(error, dict) else error)[:300]
    except (ValueError, AttributeError, TypeError):
        return data[:300].decode("utf-8", "replace")


def _completion(data: bytes, latency_ms: int, prompt_estimate: int) -> Completion:
    """The first choice's content and the usage the server reports (estimated if unusable)."""
    text = data.decode("utf-8", "replace")
    try:
        payload = json.loads(text)
        choice = payload["choices"][0]
        content = choice["message"]["content"]
        finish = choice.get("finish_reason")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        payload, content, finish = {}, text[:20_000], None
    if isinstance(content, list):  # content parts, as some servers send
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str):
        content = ""
    usage = payload.get("usage") if isinstance(payload, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    return Completion(
        content,
        prompt if prompt is not None else prompt_estimate,
        completion if completion is not None else estimate_tokens(content),
        latency_ms,
        usage_estimated=prompt is None or completion is None,
        truncated=finish == "length",
    )
