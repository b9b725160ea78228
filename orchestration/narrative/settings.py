"""The optional language model's settings, read from the environment; unset means no model."""

from __future__ import annotations

import os
from dataclasses import dataclass

from orchestration.config import UsageError

DEFAULT_CONCURRENCY = 4
DEFAULT_TOKEN_BUDGET = 2_000_000


@dataclass(frozen=True)
class LlmSettings:
    """Where the model is and how much of it a run may use. The key is kept out of `repr`,
    so it never reaches a log line or an error message by accident."""

    url: str  # an OpenAI-style base URL: requests go to `<url>/chat/completions`
    model: str
    api_key: str | None
    token_budget: int = DEFAULT_TOKEN_BUDGET
    concurrency: int = DEFAULT_CONCURRENCY
    usd_per_million_tokens: float | None = None
    max_wait_seconds: float = 900.0

    def __repr__(self) -> str:
        return f"LlmSettings(url={self.url!r}, model={self.model!r})"

    @property
    def endpoint(self) -> str:
        return self.url.rstrip("/") + "/chat/completions"


def load_llm_settings() -> LlmSettings | None:
    """The model's settings, or None when `PRWEEKLY_LLM_URL` is unset: then nothing is asked
    and every report is exactly what it is without a model."""
    url = (os.environ.get("PRWEEKLY_LLM_URL") or "").strip()
    if not url:
        return None
    if not url.startswith(("http://", "https://")):
        raise UsageError(
            f"PRWEEKLY_LLM_URL={url!r} is not an http(s) URL, e.g. http://localhost:11434/v1"
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
