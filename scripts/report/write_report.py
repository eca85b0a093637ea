#!/usr/bin/python3
"""Turns the memory probe's JSON results (one file per run) into the stock-vs-patched report:
a markdown table with the targets (issues 4 and 11 for apache/arrow-adbc bases, issue 20 for the driver's new home
adbc-drivers/databricks), a PNG chart of GC heap over time, and summary.json.

    write_report.py [--upstream-tests SUMMARY_JSON] [--rest-results DIR] [--mono-results DIR [--mono-build-notes FILE]]
                    RESULTS_DIR OUTPUT_DIR
                    [COUNTERS_DIR [BUILD_NOTES_JSON [HOST_RESULTS_DIR]]]

Each result file is the probe's JSON (see integration-tests/MemoryProbe). Runs are grouped by
(driver, scenario) and summarised by their median, because the machines are shared and noisy; stock and
patched runs are interleaved by the caller so both see the same noise. Exit status: 0 when every
correctness check passed and every target was met, 1 when a correctness check failed, 2 when only a
performance target was missed (the caller decides whether that fails the run).
COUNTERS_DIR holds the CSV recording of each probe run by `dotnet-counters collect` (listed in the report, not judged).
BUILD_NOTES_JSON is scripts/verify's record of build overrides and prepared data sets (scripts/report/verify_notes.py).
HOST_RESULTS_DIR holds the probe's host workloads (issue 16), reported in their own section (scripts/report/host_scenarios.py).
Their correctness checks count toward the exit status; their targets are goals (issue 16: a miss is reported with its
cause, not hidden), listed in summary.json as hostTargets, and do not turn the exit status to 2.
--upstream-tests: upstream's test project run against the mock, stock and patched, compared per class
(scripts/report/upstream_tests.py's summary); --rest-results: the probe's runs over the REST protocol
(scripts/report/rest_protocol.py); --mono-results: the net472 drivers under Mono, the .NET Framework stand-in
(scripts/report/mono_runtime.py; its targets are goals, listed in summary.json as monoTargets), with the net472 build's
notes (--mono-build-notes, written by `scripts/patch publish --build-notes`). Each is a section of its
own; their correctness failures count toward the exit status.
Uses matplotlib (Debian: python3-matplotlib), run with the system python.
"""
import csv
import json
import os
import pathlib
import re
import statistics
import sys

import metric_names
import verify_notes

MB = 1024 * 1024

# (key, label, unit, lower is better)
METRICS = [
    ("allocatedBytes", "Total allocated", "MB"),
    ("allocatedBytesPerDecompressedByte", "Allocated per decompressed byte", "x"),
    ("gen0Collections", "Gen0 collections", ""),
    ("gen1Collections", "Gen1 collections", ""),
    ("gen2Collections", "Gen2 collections", ""),
    ("lohAllocatedBytes", "LOH allocated (sampled)", "MB"),
    ("peakGcHeapBytes", "Peak GC heap", "MB"),
    ("peakWorkingSetBytes", "Peak working set", "MB"),
    ("gcHeapAfterDisposeDeltaBytes", "GC heap after dispose - before open", "MB"),
    ("gcHeapAfterDisposeDatabaseKeptDeltaBytes", "... with the disposed database object still referenced", "MB"),
    ("wallSeconds", "Wall time", "s"),
    ("rowsPerSecond", "Rows per second", ""),
    ("firstBatchSeconds", "Time to first batch", "s"),
    ("longestBatchWaitSeconds", "Longest wait for one batch", "s"),
]


def load(results_dir):
    runs = []
    for path in sorted(pathlib.Path(results_dir).glob("*.json")):
        with open(path) as handle:
            run = json.load(handle)
        run["_file"] = path.name
        runs.append(run)
    return runs


def group(runs):
    groups = {}
    for run in runs:
        groups.setdefault((run["driver"], run["scenario"]), []).append(run)
    return groups


def median(runs, key):
    values = [run[key] for run in runs if run.get(key) is not None]
    return statistics.median(values) if values else None


def fmt(value, unit):
    if value is None:
        return "n/a"
    if unit == "MB":
        return f"{value / MB:,.1f} MB"
    if unit == "x":
        return f"{value:.2f}"
    if unit == "s":
        return f"{value:.2f} s"
    return f"{value:,.0f}"


def ratio(patched, stock):
    if patched is None or stock in (None, 0):
        return None
    return patched / stock


# Suffixes of the side scenarios, reported beside the main one but never taken as it.
DOUBLED_SUFFIX = "-x2"
UNDISPOSED_SUFFIX = "-undisposed"


# Ratio limits (patched / stock) per upstream repository. apache/arrow-adbc's stock is tag 21, a driver from before any
# pooling (issues 4 and 11); adbc-drivers/databricks' stock already pools per database and decodes into pooled
# streams, so its limits (issue 20) are looser.
RATIO_LIMITS = {
    "apache/arrow-adbc": {"allocatedBytes": 0.05, "wallSeconds": 0.5, "peakWorkingSetBytes": 0.2},
    "adbc-drivers/databricks": {"allocatedBytes": 0.3, "wallSeconds": 0.6, "peakWorkingSetBytes": 0.4},
}


def evaluate_targets(groups, main_scenario, doubled_scenario, undisposed_scenario=None, repository="apache/arrow-adbc"):
    """The targets of issues 4 and 11 (issue 20's ratios for the new home), each (name, target text, measured text, met?)."""
    limits = RATIO_LIMITS.get(repository, RATIO_LIMITS["apache/arrow-adbc"])
    stock = groups.get(("stock", main_scenario), [])
    patched = groups.get(("patched", main_scenario), [])
    targets = []

    def add(name, target, measured, met):
        targets.append({"name": name, "target": target, "measured": measured, "met": met})

    def ratio_target(name, key, limit):
        r = ratio(median(patched, key), median(stock, key))
        add(name, f"<= {limit}x", f"{r:.3f}x" if r is not None else "n/a", r is not None and r <= limit)

    if stock and patched:
        ratio_target("Total allocated vs stock", "allocatedBytes", limits["allocatedBytes"])
        stock_gen2 = median(stock, "gen2Collections")
        patched_gen2 = median(patched, "gen2Collections")
        measured = f"{patched_gen2:.0f} vs {stock_gen2:.0f}" if patched_gen2 is not None and stock_gen2 is not None else "n/a"
        met = patched_gen2 is not None and stock_gen2 is not None and (patched_gen2 <= 0.1 * stock_gen2 or patched_gen2 == 0)
        add("Gen2 collections vs stock", "<= 0.1x (stretch: 0)", measured, met)
        ratio_target("Wall time vs stock", "wallSeconds", limits["wallSeconds"])
        ratio_target("Peak working set vs stock", "peakWorkingSetBytes", limits["peakWorkingSetBytes"])
    if patched:
        # GC.AddMemoryPressure (Apache.Arrow's native allocator): the patched driver's batches must not use it.
        induced = max(((run.get(GEN2_REASON_KEY) or {}).get("induced_not_forced", 0) for run in patched), default=0)
        recorded = all(run.get(GEN2_REASON_KEY) is not None for run in patched)
        add("Gen2 induced by GC.AddMemoryPressure (patched, any run)", "0",
            f"{induced}" if recorded else "n/a (no Gen2 reasons recorded)", recorded and induced == 0)
        delta = median(patched, "gcHeapAfterDisposeDeltaBytes")
        add("GC heap after dispose + compacting GC vs before open (patched)", "within 1 MB",
            fmt(delta, "MB"), delta is not None and abs(delta) <= MB)
        # Hosts keep the disposed database object: the scope must be released by Dispose, not by the object's death.
        kept = median(patched, "gcHeapAfterDisposeDatabaseKeptDeltaBytes")
        add("... the same with the disposed database object still referenced (patched)", "within 1 MB",
            fmt(kept, "MB"), kept is not None and abs(kept) <= MB)
    doubled = groups.get(("patched", doubled_scenario), [])
    if patched and doubled:
        runs = f" (medians of {len(patched)} and {len(doubled)} runs)"
        base = median(patched, "peakWorkingSetBytes")
        bigger = median(doubled, "peakWorkingSetBytes")
        growth = (bigger - base) / base if base else None
        add("Peak working set growth when the result doubles (patched)", "< 10%",
            f"{growth * 100:.1f}%{runs}" if growth is not None else "n/a", growth is not None and growth < 0.10)
        # Not a goal of the patch but a check of the measurement: reading twice the rows should take about twice
        # as long. Far more means something else is in the timed window (the mock generating data, swapping).
        r = ratio(median(doubled, "wallSeconds"), median(patched, "wallSeconds"))
        add("Measurement: wall time when the result doubles (patched), doubled / single", "<= 2.2x",
            f"{r:.2f}x{runs}" if r is not None else "n/a", r is not None and r <= 2.2)
    undisposed = groups.get(("patched", undisposed_scenario), []) if undisposed_scenario else []
    if stock and undisposed:
        # An application that never disposes its batches gets no reuse, but its memory must stay bounded: the
        # batches are collected, so the patched driver's peak stays below what stock needs with every batch disposed.
        bound = median(stock, "peakWorkingSetBytes")
        peak = median(undisposed, "peakWorkingSetBytes")
        add("Peak working set, batches never disposed (patched), vs stock with batches disposed", "<= 1.0x",
            f"{fmt(peak, 'MB')} vs {fmt(bound, 'MB')}", peak is not None and bound is not None and peak <= bound)
    return targets


# What the GC says started each Gen2 collection. "induced_not_forced" is GC.AddMemoryPressure: Apache.Arrow's
# NativeMemoryAllocator calls it for every record batch body it allocates (stock; patched with arrow_batches_pooled=false).
GEN2_REASON_KEY = "gen2CollectionsByReason"


def with_gen2_reasons(runs):
    """METRICS plus one row per Gen2 reason seen in any run, right after the Gen2 row (0 where a run had none)."""
    reasons = sorted({reason for run in runs for reason in (run.get(GEN2_REASON_KEY) or {})})
    for run in runs:
        by_reason = run.get(GEN2_REASON_KEY)
        if by_reason is not None:
            for reason in reasons:
                run["gen2:" + reason] = by_reason.get(reason, 0)
    metrics = []
    for metric in METRICS:
        metrics.append(metric)
        if metric[0] == "gen2Collections":
            metrics += [("gen2:" + reason, f"Gen2 collections: {reason}", "") for reason in reasons]
    return metrics


def correctness(runs):
    failures = []
    for run in runs:
        if not run.get("rowsVerified", False) or run.get("valueErrors", 1) != 0:
            failures.append(f"{run['_file']}: rows verified={run.get('rowsVerified')}, value errors={run.get('valueErrors')}")
        if run["driver"] == "patched":
            scope = run.get("overlayMetrics") or {}
            checks = {"retainedBytes": scope.get("retainedBytes", 0)}
            by_pool = scope.get("inUseBytesByPool")
            if run.get("batchesDisposed", True) or by_pool is None:
                checks["inUseBytes"] = scope.get("inUseBytes", 0)
            else:
                # Batches the probe never disposed were collected without coming back: only the batch pool may
                # end with bytes in use; the LZ4 buffers are the driver's own and must all be back.
                checks[f"inUseBytes[{metric_names.LZ4_BUFFERS_POOL}]"] = by_pool.get(metric_names.LZ4_BUFFERS_POOL, 0)
            for key, value in checks.items():
                if value != 0:
                    failures.append(f"{run['_file']}: overlay {key} = {value} after dispose (expected 0)")
    return failures


def chart(groups, scenario, output):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=110)
    colours = {"stock": "#c0392b", "patched": "#2471a3"}
    for driver in ("stock", "patched"):
        runs = groups.get((driver, scenario), [])
        if not runs:
            continue
        run = runs[len(runs) // 2]  # one representative run per driver
        timeline = run.get("timeline", [])
        ax.plot([p["t"] for p in timeline], [p["gcHeapBytes"] / MB for p in timeline],
                label=f"{driver} GC heap", color=colours[driver], linewidth=1.6)
        ax.plot([p["t"] for p in timeline], [p["workingSetBytes"] / MB for p in timeline],
                label=f"{driver} working set", color=colours[driver], linewidth=0.9, linestyle="--")
    ax.set_xlabel("seconds since the database was opened")
    ax.set_ylabel("MB")
    ax.set_title(f"GC heap and working set over time, stock vs patched ({scenario})")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(output)
    plt.close(fig)


# dotnet-counters' CSV: Timestamp,Provider,Counter Name,Counter Type,Mean/Increment, one row per counter (and per tag
# combination) per refresh. The counter name is NAME (UNIT), or NAME (UNIT / 1 sec) for a rate, then the measurement's
# tags in brackets, sorted by key: "adbc.databricks.memory.in_use (By)[pool=lz4_buffers;scope=1]".
COUNTER_NAME = re.compile(r"^(?P<name>[^ \[]+)(?: \((?P<unit>[^)]*)\))?(?:\[(?P<tags>[^\]]*)\])?$")
HEAP_SIZE = "dotnet.gc.last_collection.heap.size"


def parse_counter_name(text):
    """("adbc.databricks.memory.in_use", {"pool": "lz4_buffers", "scope": "1"}) from a CSV counter name."""
    match = COUNTER_NAME.match(text or "")
    if not match:
        return text or "", {}
    tags = dict(tag.split("=", 1) for tag in (match.group("tags") or "").split(";") if "=" in tag)
    return match.group("name"), tags


def read_recording(path):
    """(rows, largest GC heap, largest in use of any one scope and pool) of one dotnet-counters CSV. The GC heap is
    System.Runtime's dotnet.gc.last_collection.heap.size summed over its generations at each timestamp (the heap
    as the last collection left it); in use is the overlay's adbc.databricks.memory.in_use, bytes."""
    rows, in_use, heap_at = 0, None, {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            rows += 1
            try:
                value = float(row["Mean/Increment"])
            except (KeyError, TypeError, ValueError):
                continue
            name, tags = parse_counter_name(row.get("Counter Name"))
            if row.get("Provider") == "System.Runtime" and name == HEAP_SIZE:
                heap_at.setdefault(row.get("Timestamp"), {})[tags.get("gc.heap.generation")] = value
            elif (row.get("Provider") == metric_names.METER_NAME and name == metric_names.IN_USE
                  and metric_names.SCOPE_TAG in tags and metric_names.POOL_TAG in tags):
                in_use = max(in_use or 0.0, value)
    heap = max((sum(by_generation.values()) for by_generation in heap_at.values()), default=None)
    return rows, heap, in_use


def counter_recordings(counters_dir, out):
    """The "Counter recordings" section: each run's CSV (dotnet-counters collect) by its path relative to the
    report, with the largest GC heap (bytes; shown in MiB like the rest of the report) and the largest
    adbc.databricks.memory.in_use (bytes) of any one scope and pool (the overlay's meter; the stock driver has none)."""
    files = sorted(pathlib.Path(counters_dir).glob("*.csv")) if counters_dir else []
    lines = ["## Counter recordings", ""]
    if not files:
        return lines + ["None (dotnet-counters was not restored or not run).", ""]
    lines += [f"System.Runtime and the overlay's meter ({metric_names.METER_NAME}), recorded every second by "
              "`dotnet-counters collect`. GC heap after a collection: System.Runtime's dotnet.gc.last_collection.heap.size, "
              "all generations (the runtime's meter has no live heap size; Peak GC heap above is the probe's own, sampled every 50 ms).", "",
              "| Run | CSV | Rows | Max GC heap after a collection | Max in use (one scope, pool) |", "|---|---|---|---|---|"]
    for path in files:
        rows, heap, in_use = read_recording(path)
        relative = os.path.relpath(path, out)
        lines.append(f"| {path.stem} | [{relative}]({relative}) | {rows:,} | "
                     f"{fmt(heap, 'MB')} | {fmt(in_use, 'MB')} |")
    return lines + ["", "An empty recording (header only) means dotnet-counters could not record the run; the run itself "
                    "still counted.", ""]


def main(results_dir, output_dir, counters_dir=None, notes_file=None, host_dir=None, upstream_summary=None, rest_dir=None,
         mono_dir=None, mono_notes_file=None):
    runs = load(results_dir)
    if not runs and not host_dir:
        print(f"report: no probe results in {results_dir}", file=sys.stderr)
        return 1
    out = pathlib.Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    notes = verify_notes.load(notes_file)
    if runs:
        lines, targets, failures = full_read(runs, notes, out)
    else:
        # scripts/verify --host-only: the host scenarios alone.
        base = (notes or {}).get("base")
        lines = ["# Host scenarios" + (f" on {base['tag']}" if base else ""), "",
                 "The full-read runs were not part of this run (`scripts/verify --host-only`).", ""]
        targets, failures = [], []
    host_targets = []
    if host_dir:
        import host_scenarios
        host_lines, host_targets, host_failures = host_scenarios.section(host_dir, out)
        lines += host_lines
        failures += host_failures
    if rest_dir:
        import rest_protocol
        rest_lines, rest_failures = rest_protocol.section(rest_dir)
        lines += rest_lines
        failures += rest_failures
    mono_targets = []
    if mono_dir:
        import mono_runtime
        mono_lines, mono_targets, mono_failures = mono_runtime.section(mono_dir, verify_notes.load(mono_notes_file))
        lines += mono_lines
        failures += mono_failures
    if upstream_summary:
        import upstream_tests
        upstream_lines, upstream_failures = upstream_tests.section(json.loads(pathlib.Path(upstream_summary).read_text()),
                                                                    upstream_tests.commands(upstream_summary))
        lines += upstream_lines
        failures += upstream_failures
    lines += verify_notes.section(notes)
    lines += counter_recordings(counters_dir, out)
    (out / "report.md").write_text("\n".join(lines) + "\n")
    (out / "summary.json").write_text(json.dumps({"targets": targets, "hostTargets": host_targets, "monoTargets": mono_targets,
                                                        "correctnessFailures": failures}, indent=2) + "\n")
    print("\n".join(lines))
    if failures:
        return 1
    return 0 if all(t["met"] for t in targets) else 2


def full_read(runs, notes, out):
    """The full read's table, targets, correctness and chart: (markdown lines, targets, correctness failures)."""
    metrics = with_gen2_reasons(runs)
    groups = group(runs)
    scenarios = sorted({scenario for _, scenario in groups})
    main_scenario = next((s for s in scenarios if not s.endswith((DOUBLED_SUFFIX, UNDISPOSED_SUFFIX))), scenarios[0])
    doubled_scenario = main_scenario + DOUBLED_SUFFIX
    undisposed_scenario = main_scenario + UNDISPOSED_SUFFIX

    base = (notes or {}).get("base")
    lines = [f"# Stock vs patched: {main_scenario}" + (f" on {base['tag']}" if base else ""), ""]
    if base:
        lines += [f"Base: {base['tag']} ({base['repository']} {base['commit']}); stock is the unpatched build of the same "
                  "checkout, patched is it with the series applied.", ""]
    header = "| Metric | " + " | ".join(f"{d} ({s})" for d, s in sorted(groups)) + " | patched / stock |"
    lines += [header, "|---" * (len(groups) + 2) + "|"]
    for key, label, unit in metrics:
        row = [fmt(median(groups[g], key), unit) for g in sorted(groups)]
        r = ratio(median(groups.get(("patched", main_scenario), []), key), median(groups.get(("stock", main_scenario), []), key))
        lines.append(f"| {label} | " + " | ".join(row) + f" | {'n/a' if r is None else f'{r:.2f}'} |")
    if any(scenario == undisposed_scenario for _, scenario in groups):
        lines += ["", f"`{undisposed_scenario}`: the same query, but the probe never disposes a record batch (it drops "
                  "each one to the GC), as a careless application would; the driver's memory must stay bounded."]
    lines += ["", f"Runs per column (medians shown): " + ", ".join(f"{d}/{s}: {len(groups[(d, s)])}" for d, s in sorted(groups)), ""]

    targets = evaluate_targets(groups, main_scenario, doubled_scenario, undisposed_scenario,
                               (base or {}).get("repository", "apache/arrow-adbc"))
    lines += ["## Targets", "", "| Target | Goal | Measured | Met |", "|---|---|---|---|"]
    lines += [f"| {t['name']} | {t['target']} | {t['measured']} | {'yes' if t['met'] else '**no**'} |" for t in targets]

    failures = correctness(runs) + verify_notes.build_failures(notes)
    lines += ["", "## Correctness", ""]
    lines += ["Every row of every run was checked against the data set generator; the overlay's pools were back to "
              "zero in use and zero retained after dispose."] if not failures else [f"- {f}" for f in failures]

    chart(groups, main_scenario, out / "gc-heap.png")
    lines += ["", "![GC heap over time](gc-heap.png)", ""]
    return lines, targets, failures


def parse(argv):
    """The positional arguments (missing ones None) and the --name VALUE options, as main's keyword arguments."""
    options = {"--upstream-tests": "upstream_summary", "--rest-results": "rest_dir", "--mono-results": "mono_dir",
               "--mono-build-notes": "mono_notes_file"}
    keywords, positional = {}, []
    arguments = iter(argv)
    for argument in arguments:
        if argument in options:
            keywords[options[argument]] = next(arguments)
        else:
            positional.append(argument)
    names = ["results_dir", "output_dir", "counters_dir", "notes_file", "host_dir"]
    keywords.update(zip(names, positional))
    return keywords


if __name__ == "__main__":
    sys.exit(main(**parse(sys.argv[1:])))
