"""Every bench, one table: `python -m bench [--scale full|medium|small] [--runs N]` (`make bench`).

Runs the extraction bench (through the emulator), the verl backfill (CLI and Dagster, end to
end), the facts of the shared histories against issue 12's targets and the labelled set
(`bench/facts.py`), the readers' wait during a build, the whole Monday run over 100 and 50
generated repositories (`bench/monday_run.py`), the scale bench (generated lake) and the
runner against dbt-duckdb on verl and the million (`bench/dbt_ratio.py`), prints each figure
against its target and writes them all to `bench/results.json`. Figures are medians of
`--runs` runs; the full-scale build of every model runs `--build-runs` times
(default: `--runs`; the one-off build from week files alone, without compacted copies, runs
once).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from datetime import UTC, datetime
from pathlib import Path

from bench import backfill, dbt_ratio, extract, facts, monday_run, readers, scale

RESULTS = Path(__file__).resolve().parent / "results.json"


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _rows(results: dict) -> list[tuple[str, str, str, bool | None]]:
    """(figure, value, target, met) for the table."""
    rows: list[tuple[str, str, str, bool | None]] = []
    ex = results.get("extract")
    if ex:
        whole = ex["whole_range"]
        rows.append(
            (
                f"extract {ex['repo']}, {whole['prs']} PRs: requests / 100 PRs",
                f"{whole['requests_per_100_prs']}",
                "<= 3",
                whole["requests_per_100_prs"] <= 3,
            )
        )
        rows.append(("  rate-limit points / 100 PRs", f"{whole['points_per_100_prs']}", "", None))
        per_100 = 100 * whole["wall_seconds"] / whole["prs"]
        rows.append(("  wall time / 100 PRs", f"{per_100:.2f} s", "", None))
        weekly = ex["week_by_week"]
        rows.append(
            ("  week by week: requests / 100 PRs", f"{weekly['requests_per_100_prs']}", "", None)
        )
    bf = results.get("backfill")
    if bf:
        rows.append(
            (
                f"backfill verl, {bf['weeks']}, file -> reports",
                f"{bf['seconds']:.1f} s",
                "< 20 s",
                bf["seconds"] < 20,
            )
        )
        if "cpu_seconds" in bf:
            rows.append(("  its CPU time (user+sys)", f"{bf['cpu_seconds']:.1f} s", "", None))
        rows.append(("  backfill peak memory", f"{bf['peak_mib']:.0f} MiB", "", None))
        rows.append(
            (
                f"report verl {bf['report_week']} (load + zh/en md/html)",
                f"{bf['report_ms']:.0f} ms",
                "< 25 ms",
                bf["report_ms"] < 25,
            )
        )
    rows.extend(_facts_rows(results.get("facts") or {}))
    rd = results.get("readers")
    if rd:
        for label, key in (("the verl history", "history"), ("one more week", "one_week")):
            build = rd[key]
            rows.append(
                (
                    f"longest reader wait, building {label}",
                    f"{build['longest_reader_wait_ms']:.0f} ms",
                    f"<= {build['longest_model_step']['seconds'] * 1000:.0f} ms",
                    build["longest_reader_wait_ms"]
                    <= build["longest_model_step"]["seconds"] * 1000,
                )
            )
            step_ms = build["longest_model_step"]["seconds"] * 1000
            for reader in ("report", "ui"):  # absent from results of an older bench
                if f"longest_{reader}_wait_ms" in build:
                    wait = build[f"longest_{reader}_wait_ms"]
                    rows.append((f"  the {reader}'s longest wait", f"{wait:.0f} ms",
                                 f"<= {step_ms:.0f} ms", wait <= step_ms))  # fmt: skip
            rows.append(
                ("  reads that saw half a build", f"{build['reads_of_half_a_build']}", "0", None)
            )
    rows.extend(monday_run.rows(results.get("monday_run") or {}))
    rows.extend(dbt_ratio.rows(results.get("dbt_ratio") or {}))
    for sc in results.get("scale", []):
        label = f"{sc['prs']:,} PRs ({sc['repos']}x{sc['weeks']}x{sc['prs_per_week']})"
        big = sc["scale"] == "full"
        rows.append(
            (
                f"generate lake {label}, {sc['lake_files']:,} files",
                f"{sc['generate_seconds']:.0f} s",
                "",
                None,
            )
        )
        if "compact_seconds" in sc:
            rows.append(
                (
                    f"  compact it: one file per repository ({sc['repos']:,} files)",
                    f"{sc['compact_seconds']:.0f} s",
                    "",
                    None,
                )
            )
        rows.append(
            (
                f"build all models, {label}, runs={sc['build_runs']}",
                f"{sc['build_seconds']:.1f} s",
                "< 15 s" if big else "",
                sc["build_seconds"] < 15 if big else None,
            )
        )
        if "build_cpu_seconds" in sc:
            loads = ", ".join(str(b["load_before"]) for b in sc.get("build_each", []))
            rows.append(
                (
                    f"  CPU time (user+sys; load {loads})",
                    f"{sc['build_cpu_seconds']:.1f} s",
                    "",
                    None,
                )
            )
        rows.append(
            (
                "  of which reading the lake (stg_pull_requests)",
                f"{sc['build_models'].get('stg_pull_requests', 0):.1f} s",
                "",
                None,
            )
        )
        if "build_week_files_seconds" in sc:
            rows.append(
                (
                    f"  the same from {sc['lake_files']:,} week files, no compacted copy",
                    f"{sc['build_week_files_seconds']:.1f} s",
                    "",
                    None,
                )
            )
        rows.append(
            (
                "  build peak memory",
                f"{sc['build_peak_mib']:.0f} MiB",
                "< 1536 MiB" if big else "",
                sc["build_peak_mib"] < 1536 if big else None,
            )
        )
        if sc.get("build_workers_peak_mib"):
            rows.append(
                (
                    "  the description reader's each worker, peak memory (and CPU)",
                    f"{sc['build_workers_peak_mib']:.0f} MiB, "
                    f"{sc['build_workers_cpu_seconds']:.1f} s",
                    "",
                    None,
                )
            )
        rows.append(
            (
                f"add one week, one repo, on {label}",
                f"{sc['add_week_seconds']:.2f} s",
                "< 0.25 s" if big else "< 2 s",
                sc["add_week_seconds"] < (0.25 if big else 2),
            )
        )
        if "add_week_cpu_seconds" in sc:
            rows.append(("  its models' CPU time", f"{sc['add_week_cpu_seconds']:.2f} s", "", None))
            rows.append(
                (
                    "  the first after a build, which also fills the ledger",
                    f"{sc['add_week_first_seconds']:.2f} s",
                    "",
                    None,
                )
            )
        rows.append(
            (
                f"report one week of {label}",
                f"{sc['report_ms']:.0f} ms",
                "< 25 ms" if big else "< 200 ms",
                sc["report_ms"] < (25 if big else 200),
            )
        )
    return rows


def _facts_rows(results: dict) -> list[tuple[str, str, str, bool | None]]:
    """The facts of the shared histories (bench/facts.py) against issue 12's targets."""
    rows: list[tuple[str, str, str, bool | None]] = []
    for repo, figures in results.items():
        if repo == "agreement":
            continue
        window = figures["window"]
        rows.append(
            (
                f"facts {repo}, issue 12's weeks: PRs typed other",
                f"{window['other_share']:.1%}",
                "< 2%",
                window["other_share"] < 0.02,
            )
        )
        rows.append(
            (
                "  largest primary area's share of PRs",
                f"{window['max_area_share']:.1%}",
                "<= 35%",
                window["max_area_share"] <= 0.35,
            )
        )
        share = figures["whole"]["max_theme_share"]
        rows.append(
            (
                "  whole history: largest share of weeks one theme takes",
                f"{share:.1%}",
                "<= 33.3%",
                share <= 1 / 3,
            )
        )
    agreement = (results.get("agreement") or {}).get("all") or {}
    if agreement.get("prs"):
        label = f"agreement with {agreement['prs']} labelled PRs: change type"
        rows.append((label, f"{agreement['type']:.1%}", ">= 90%", agreement["type"] >= 0.9))
        rows.append(
            ("  primary area", f"{agreement['area']:.1%}", ">= 85%", agreement["area"] >= 0.85)
        )
        rows.append(("  topics (mean Jaccard)", f"{agreement['topics_jaccard']:.1%}", "", None))
    return rows


def table(results: dict) -> str:
    rows = _rows(results)
    width = max(len(r[0]) for r in rows)
    lines = [
        f"prweekly bench, {results['cpu_count']} cores, {results['python']}, {results['when']}",
        f"{'figure':<{width}}  {'value':>12}  {'target':>10}  met",
        f"{'-' * width}  {'-' * 12}  {'-' * 10}  ---",
    ]
    for name, value, target, met in rows:
        mark = "" if met is None else ("yes" if met else "NO")
        lines.append(f"{name:<{width}}  {value:>12}  {target:>10}  {mark}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "--scale",
        choices=sorted(scale.SCALES),
        action="append",
        help="generated sizes to measure (repeatable; default: small and full)",
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--build-runs", type=int, help="runs of the full-scale build (default: --runs)"
    )
    parser.add_argument(
        "--skip",
        choices=["extract", "backfill", "facts", "readers", "monday_run", "scale", "dbt_ratio"],
        action="append",
    )
    args = parser.parse_args(argv)
    skip = set(args.skip or [])
    results: dict = {
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "when": datetime.now(UTC).strftime("%Y-%m-%d"),
        "runs": args.runs,
    }
    dataset = extract.DEFAULT_DATASET
    if not dataset.is_file():
        _log("skipping extract and backfill: the verl dataset is not at ../shared/datasets/")
        skip |= {"extract", "backfill", "readers"}
    if "extract" not in skip:
        _log("extract: the whole verl history through the emulator ...")
        results["extract"] = extract.run(dataset)
    if "backfill" not in skip:
        _log(f"backfill: prweekly build of the whole verl history, {args.runs} runs ...")
        results["backfill"] = backfill.run(dataset, args.runs)
    datasets = {r: p for r, p in facts.DATASETS.items() if p.is_file()}
    if "facts" not in skip and datasets:
        _log("facts: every model over the shared histories, against the labelled set ...")
        results["facts"] = facts.run(datasets, out=_log)
    if "readers" not in skip:
        _log("readers: the longest wait of a reader while the verl history builds ...")
        results["readers"] = readers.run(dataset)
    if "monday_run" not in skip:
        _log("monday_run: the Monday run through Dagster, 100 x 1 (tick, --all) and 50 x 4 ...")
        results["monday_run"] = monday_run.run(
            ["tick", "all", "range"], 100, 50, 4, 52, 30, log=_log
        )
    if "scale" not in skip:
        results["scale"] = []
        for size in args.scale or ["small", "full"]:
            _log(f"scale {size}:")
            build_runs = (args.build_runs or args.runs) if size == "full" else args.runs
            results["scale"].append(scale.run(size, args.runs, build_runs, log=_log))
    if "dbt_ratio" not in skip:
        _log("dbt_ratio: every model by the runner and by dbt-duckdb, verl and the million ...")
        results["dbt_ratio"] = dbt_ratio.run(["verl", "million"], 1, log=_log)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table(results))
    print(f"\nwritten to bench/{RESULTS.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
