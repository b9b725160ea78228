"""Chat completions over httpx, surviving the ways a model server really fails.

- timeouts, resets and 5xx: retried with backoff (a few times);
- 429: waited out for its `Retry-After`, within `PRWEEKLY_MAX_WAIT_SECONDS` for the whole run;
- a wrong URL or key (connection refused, 401, 403, 404): `EndpointError` at once, saying
  what to fix, so the narrative step stops and the reports are written without it;
- a run's token budget: `Unavailable` once spent.
The API key goes only into the `Authorization` header: never into a message or an error.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import httpx

from orchestration.narrative.settings import LlmSettings

MAX_ATTEMPTS = 4  # per request, for failures that are not rate limits
BACKOFF_BASE = 0.5
BACKOFF_CAP = 8.0
MAX_TOKENS = 1024  # the most an answer may take
REQUEST_TIMEOUT = 300.0  # a local model on a CPU can take minutes for a week's answer


class EndpointError(RuntimeError):
    """The endpoint cannot be used at all (wrong URL, key or model): asking more is useless."""


class Unavailable(RuntimeError):
    """This request could not be answered (the server kept failing, the wait or token budget
    was spent): the part falls back to the deterministic text and is asked again next build."""


@dataclass(frozen=True)
class Completion:
    content: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int


def estimate_tokens(text: str) -> int:
    """A model-independent estimate: one token per CJK character, one per four other ones."""
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")
    return cjk + (len(text) - cjk + 3) // 4


class ChatClient:
    """One client per run: it shares the run's wait and token budgets between threads."""

    def __init__(self, settings: LlmSettings, timeout: float = REQUEST_TIMEOUT) -> None:
        self.settings = settings
        headers = {"content-type": "application/json"}
        if settings.api_key:
            headers["authorization"] = f"Bearer {settings.api_key}"
        self._http = httpx.Client(headers=headers, timeout=timeout)
        self._lock = threading.Lock()
        self.tokens_used = 0
        self.waited_seconds = 0.0
        self.requests = 0

    def close(self) -> None:
        self._http.close()

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

    def _settle(self, estimate: int, actual: int) -> None:
        with self._lock:
            self.tokens_used += actual - estimate
            self.requests += 1

    def complete(self, messages: list[dict], schema_name: str, schema: dict) -> Completion:
        """The assistant's answer to `messages`, as JSON text following `schema`."""
        body = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": MAX_TOKENS,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "strict": True, "schema": schema},
            },
        }
        estimate = sum(estimate_tokens(m["content"]) for m in messages) + MAX_TOKENS
        self._reserve(estimate)
        failures = 0
        try:
            while True:
                started = time.monotonic()
                try:
                    response = self._http.post(self.settings.endpoint, json=body)
                except httpx.ConnectError as error:
                    raise EndpointError(
                        f"cannot connect to the language model at {self.settings.endpoint} "
                        f"({type(error).__name__}): check PRWEEKLY_LLM_URL"
                    ) from None
                except (httpx.TimeoutException, httpx.TransportError) as error:
                    failures += 1
                    self._back_off(failures, f"{type(error).__name__} from the model")
                    continue
                latency = round((time.monotonic() - started) * 1000)
                status = response.status_code
                if status == 429:
                    self._wait_rate_limit(response)
                    continue
                if status >= 500:
                    failures += 1
                    self._back_off(failures, f"HTTP {status} from the model")
                    continue
                if status in (401, 403):
                    raise EndpointError(
                        f"the language model at {self.settings.endpoint} refused the key "
                        f"(HTTP {status}): check PRWEEKLY_LLM_API_KEY"
                    )
                if status == 404:
                    raise EndpointError(
                        f"no chat completions endpoint at {self.settings.endpoint} (HTTP 404): "
                        "PRWEEKLY_LLM_URL is the base URL, e.g. http://localhost:11434/v1"
                    )
                if status >= 400:
                    raise EndpointError(
                        f"the language model refused the request (HTTP {status}: "
                        f"{_message(response)}): check PRWEEKLY_LLM_MODEL and the server"
                    )
                completion = _completion(response, latency)
                self._settle(estimate, completion.prompt_tokens + completion.completion_tokens)
                estimate = 0
                return completion
        finally:
            if estimate:
                self._settle(estimate, 0)

    def _back_off(self, failures: int, what: str) -> None:
        if failures >= MAX_ATTEMPTS:
            raise Unavailable(f"{what}, {failures} times")
        delay = min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (failures - 1))
        if not self._charge_wait(delay):
            raise Unavailable(f"{what}; waiting more would pass PRWEEKLY_MAX_WAIT_SECONDS")
        time.sleep(delay)

    def _wait_rate_limit(self, response: httpx.Response) -> None:
        raw = response.headers.get("retry-after") or ""
        try:
            delay = max(0.0, float(raw))
        except ValueError:
            delay = 10.0
        if not self._charge_wait(delay):
            raise Unavailable(
                f"rate limited by the model; waiting {delay:.0f}s more would pass "
                "PRWEEKLY_MAX_WAIT_SECONDS"
            )
        time.sleep(delay)


def _message(response: httpx.Response) -> str:
    try:
        error = response.json().get("error") or {}
        return str(error.get("message") if isinstance(error, dict) else error)[:200]
    except (ValueError, AttributeError):
        return response.text[:200]


def _completion(response: httpx.Response, latency_ms: int) -> Completion:
    """The first choice's content and the usage the server reports (estimated if none)."""
    try:
        payload = response.json()
        content = payload["choices"][0]["message"]["content"] or ""
    except (ValueError, KeyError, IndexError, TypeError):
        return Completion(response.text[:20_000], 0, 0, latency_ms)
    usage = payload.get("usage") or {}
    return Completion(
        content,
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or estimate_tokens(content)),
        latency_ms,
    )
