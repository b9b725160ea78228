"""Concise progress lines for `prweekly build`, instead of Dagster's full event log.

Dagster's own lines about steps a failure left unrun ("Dependencies for step … were not
executed … Not executing", one per later step) hide the one line that says what went wrong;
they are printed only with `--verbose`.
"""

from __future__ import annotations

import logging
import re
import sys
import time

import dagster as dg

_STEP_EVENTS = {"STEP_START", "STEP_SUCCESS", "STEP_FAILURE", "STEP_SKIPPED"}
_NOT_RUN = re.compile(r"^Dependencies for step \S+ (failed|were not executed)\b.*Not executing\.$")


class _ProgressHandler(logging.Handler):
    def __init__(self, stream, verbose: bool = False) -> None:
        super().__init__(logging.DEBUG)
        self.stream = stream
        self.verbose = verbose
        self.started: dict[str, float] = {}
        self.done = 0

    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "dagster_meta", None) or {}
        event = meta.get("dagster_event")
        step = meta.get("step_key") or ""
        if event is None:
            said = str(meta.get("orig_message", record.getMessage()))
            if (
                record.levelno >= logging.INFO
                and step
                and (self.verbose or not _NOT_RUN.match(said))
            ):
                self._write(f"    {step}: {said}")
            return
        kind = event.event_type_value
        if kind not in _STEP_EVENTS:
            return
        if kind == "STEP_START":
            self.started[step] = time.monotonic()
            self._write(f"  ▸ {step}")
            return
        elapsed = time.monotonic() - self.started.get(step, time.monotonic())
        mark = {"STEP_SUCCESS": "✓", "STEP_FAILURE": "✗", "STEP_SKIPPED": "–"}[kind]
        self._write(f"  {mark} {step} ({elapsed:.1f}s)")

    def _write(self, line: str) -> None:
        print(line, file=self.stream, flush=True)


@dg.logger(
    config_schema={"verbose": dg.Field(bool, default_value=False)},
    description="One line per step and per message of prweekly's own assets.",
)
def progress_logger(init_context: dg.InitLoggerContext) -> logging.Logger:
    log = logging.getLogger("prweekly.progress")
    log.handlers.clear()
    log.addHandler(_ProgressHandler(sys.stderr, init_context.logger_config["verbose"]))
    log.setLevel(logging.DEBUG)
    log.propagate = False
    return log
