"""Recorded answers for the emulator: what a careful model answered to the same prompts.

`Replay(prompts, answers)` answers a request with the recorded answer to the same part
(repository, week, PR or week), its cited fact ids moved to the ids the facts have in the
request: a fact whose text is unchanged keeps its answer's citation even when the facts
around it changed (a claim added, a sentence cut), so the replay survives the facts growing.
Parts without a recorded answer get None (the emulator then answers from its templates).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any


def _key(facts: dict) -> tuple:
    return (facts.get("repository"), facts.get("week_start"), facts.get("number"))


def _texts(facts: dict) -> dict[str, str]:
    return {
        f["id"]: json.dumps(
            {k: v for k, v in f.items() if k not in ("id", "kind", "pr")},
            ensure_ascii=False,
            sort_keys=True,
        )
        for f in facts.get("facts") or []
    }


class Replay:
    """Recorded answers by part, as `LlmEmulator.replay` takes them."""

    def __init__(self, prompts: list[dict], answers: list[dict]) -> None:
        self._recorded: dict[tuple, tuple[dict, dict]] = {}
        by_key = {p["prompt"]: p for p in prompts}
        for entry in answers:
            prompt = by_key[entry["prompt"]]
            week = None if prompt["kind"] == "pr" else prompt["week"]
            key = (prompt["repo"], week, prompt["number"])
            self._recorded.setdefault(key, (prompt["facts"], entry["answer"]))

    @classmethod
    def from_folder(cls, folder: Path, label: str = "good", kind: str = "careful") -> Replay:
        read = lambda name: [json.loads(x) for x in (folder / name).open(encoding="utf-8")]  # noqa: E731
        answers = [a for a in read("answers.jsonl") if a["label"] == label and a["kind"] == kind]
        return cls(read("prompts.jsonl"), answers)

    def __call__(self, schema_name: str, facts: dict) -> dict | None:
        recorded = self._recorded.get(_key(facts))
        if recorded is None:
            return None
        snapshot, answer = recorded
        return _moved(answer, _texts(snapshot), _texts(facts))


def _moved(answer: dict, before: dict[str, str], now: dict[str, str]) -> dict:
    """The answer with each cited id moved to the id of the same fact now."""
    by_text = {text: fact_id for fact_id, text in now.items()}

    def move(fact_id: str) -> str:
        if now.get(fact_id) == before.get(fact_id):
            return fact_id
        return by_text.get(before.get(fact_id, ""), fact_id)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: [move(i) for i in v] if k == "facts" else walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(copy.deepcopy(answer))
