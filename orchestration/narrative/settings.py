"""The optional language model's settings, read from the environment; unset means no model."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from orchestration.config import UsageError

DEFAULT_CONCURRENCY = 4
DEFAULT_TOKEN_BUDGET = 2_000_000
DEFAULT_REQUEST_DEADLINE = 120.0
DEFAULT_BUILD_DEADLINE = 3600.0


def redact_url(url: str) -> str:
    """`url` as it may be shown: a user name, password or key in it replaced by `***`
    (`http://user:sk-…@host/v1?api-key=…` becomes `http://***@host/v1?api-key=***`)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return "(an unreadable URL)"
    netloc = host if ":" not in host else f"[{host}]"
    with_port = f"{netloc}:{parts.port}" if _port(parts) else netloc
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        with_port = f"***@{with_port}"
    query = re.sub(r"=[^&]*", "=***", parts.query)
    return urlunsplit((parts.scheme, with_port, parts.path, query, ""))


def _port(parts) -> int | None:
    try:
        return parts.port
    except ValueError:
        return None


@dataclass(frozen=True)
class LlmSettings:
    """Where the model is and how much of it a run may use. The key and any credentials in
    the URL are kept out of `repr` and every message (`shown_url`), so they never reach a
    log line, an error or Dagster's run history."""

    url: str  # an OpenAI-style base URL: requests go to `<url>/chat/completions`
    model: str
    api_key: str | None
    token_budget: int = DEFAULT_TOKEN_BUDGET
    concurrency: int = DEFAULT_CONCURRENCY
    usd_per_million_tokens: float | None = None
    max_wait_seconds: float = 900.0
    request_deadline_seconds: float = DEFAULT_REQUEST_DEADLINE
    build_deadline_seconds: float = DEFAULT_BUILD_DEADLINE
    verify: bool = False  # PRWEEKLY_LLM_VERIFY: a second pass asks the model about each claim

    def __repr__(self) -> str:
        return f"LlmSettings(url={self.shown_url!r}, model={self.model!r})"

    __str__ = __repr__

    @property
    def endpoint(self) -> str:
        return self.url.rstrip("/") + "/chat/completions"

    @property
    def shown_url(self) -> str:
        return redact_url(self.url)

    @property
    def shown_endpoint(self) -> str:
        return redact_url(self.endpoint)


def load_llm_settings() -> LlmSettings | None:
    """The model's settings, or None when `PRWEEKLY_LLM_URL` is unset: then nothing is asked
    and every report is exactly what it is without a model."""
    url = (os.environ.get("PRWEEKLY_LLM_URL") or "").strip()
    if not url:
        return None
    if not url.startswith(("http://", "https://")):
        raise UsageError(
            f"PRWEEKLY_LLM_URL={redact_url(url)!r} is not an http(s) URL, "
            "e.g. http://localhost:11434/v1"
        )
    model = (os.environ.get("PRWEEKLY_LLM_MODEL") or "").strip()
    if not model:
        raise UsageError("PRWEEKLY_LLM_URL is set but PRWEEKLY_LLM_MODEL is not: name the model")
    return LlmSettings(
        url=url,
        model=model,
        api_key=os.environ.get("PRWEEKLY_LLM_API_KEY") or None,
        token_budget=_int_env("PRWEEKLY_LLM_TOKEN_BUDGET", DEFAULT_TOKEN_BUDGET),
        concurrency=_int_env("PRWEEKLY_LLM_CONCURRENCY", DEFAULT_CONCURRENCY),
        usd_per_million_tokens=_price(),
        max_wait_seconds=_wait(),
        request_deadline_seconds=_seconds(
            "PRWEEKLY_LLM_REQUEST_DEADLINE_SECONDS", DEFAULT_REQUEST_DEADLINE
        ),
        build_deadline_seconds=_seconds(
            "PRWEEKLY_LLM_BUILD_DEADLINE_SECONDS", DEFAULT_BUILD_DEADLINE
        ),
        verify=_flag("PRWEEKLY_LLM_VERIFY"),
    )


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise UsageError(f"{name}={raw!r} is not a whole number") from None
    if value < 1:
        raise UsageError(f"{name}={raw!r} must be at least 1")
    return value


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"{name}={raw!r} is not a number of seconds") from None
    if not value > 0:
        raise UsageError(f"{name}={raw!r} must be more than 0")
    return value


def _flag(name: str) -> bool:
    raw = (os.environ.get(name) or "").strip().lower()
    if raw in ("", "0", "false", "no", "off"):
        return False
    if raw in ("1", "true", "yes", "on"):
        return True
    raise UsageError(f"{name}={raw!r} is not 1 or 0")


def _price() -> float | None:
    raw = os.environ.get("PRWEEKLY_LLM_USD_PER_MILLION_TOKENS")
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"PRWEEKLY_LLM_USD_PER_MILLION_TOKENS={raw!r} is not a number") from None
    if not value >= 0:
        raise UsageError(f"PRWEEKLY_LLM_USD_PER_MILLION_TOKENS={raw!r} must be 0 or more")
    return value


def _wait() -> float:
    from orchestration.config import load_settings

    return load_settings().max_wait_seconds
