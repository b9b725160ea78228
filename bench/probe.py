"""Rerun the reliability probes end to end: `python -m bench.probe [--only WORD]`.

Each probe does to a throwaway home what a bad day does to a real one (a SIGKILL at a write,
a flipped bit, a deleted file, hostile input, a GitHub that fails) through the real `prweekly`
command, then prints one table: the probe, what must happen, what did happen, and whether it
held. The cases live in `bench/probe_cases.py`, the home they run in in `bench/probe_home.py`;
this module runs them. Exit 1 if any probe did not hold. It takes a few minutes on two cores;
it needs no network.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench.probe_cases import PROBES
from bench.probe_home import ROOT, Broke, Probe


def run_probes(probes: list[Probe]) -> list[tuple[Probe, str, bool, float]]:
    results = []
    for probe in probes:
        root = Path(tempfile.mkdtemp(prefix="prweekly-probe-"))
        started = time.monotonic()
        try:
            seen, held = probe.run(root), True
        except Broke as broke:
            seen, held = str(broke), False
        finally:
            shutil.rmtree(root, ignore_errors=True)
        seen = seen.replace(str(root), "<tmp>").replace(str(ROOT), "<checkout>")
        took = time.monotonic() - started
        mark = "held" if held else "DID NOT HOLD"
        print(f"  {probe.group}: {probe.name}: {mark} ({took:.0f} s)", file=sys.stderr, flush=True)
        results.append((probe, seen, held, took))
    return results


def table(results: list[tuple[Probe, str, bool, float]]) -> str:
    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")

    lines = ["| group | probe | expected | observed | held |", "|---|---|---|---|---|"]
    for probe, seen, held, _took in results:
        row = (probe.group, probe.name, probe.expected, seen, "yes" if held else "**no**")
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.probe", description=__doc__)
    parser.add_argument("--only", help="run only the probes whose group or name holds this word")
    args = parser.parse_args(argv)
    chosen = [
        p for p in PROBES if not args.only or args.only.lower() in f"{p.group} {p.name}".lower()
    ]
    if not chosen:
        parser.error(f"no probe matches {args.only!r}")
    results = run_probes(chosen)
    print(table(results))
    failed = sum(not held for _p, _s, held, _t in results)
    total = sum(t for *_rest, t in results)
    print(f"\n{len(results) - failed} of {len(results)} probes held ({total:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
