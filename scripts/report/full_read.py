"""The report's first section: the full read, stock vs patched, its table, targets (exit status 2 when one is missed),
correctness and GC heap chart (gc-heap.png).

    section(runs, notes, output_dir) -> (markdown lines, targets, correctness failures)

Stock and patched runs are interleaved by scripts/verify so both see the same noise; every figure is a median.
"""
import core
import verify_notes
from core import MB, fmt, median, ratio

LIMITS = core.TARGETS["fullRead"]

METRICS = core.rows(
    "allocatedBytes",
    ("Allocated per decompressed byte", "allocatedBytesPerDecompressedByte", "per"),
    ("Gen0 collections", "gen0Collections", ""),
    ("Gen1 collections", "gen1Collections", ""),
    "gen2Collections",
    ("LOH allocated (sampled)", "lohAllocatedBytes", "MB"),
    "peakGcHeapBytes", "peakWorkingSetBytes", "gcHeapAfterDisposeDeltaBytes", "gcHeapAfterDisposeDatabaseKeptDeltaBytes",
    "wallSeconds", "rowsPerSecond", "firstBatchSeconds", "longestBatchWaitSeconds")

# Suffixes of the side scenarios, reported beside the main one but never taken as it.
DOUBLED_SUFFIX = "-x2"
UNDISPOSED_SUFFIX = "-undisposed"

# What the GC says started each Gen2 collection. "induced_not_forced" is GC.AddMemoryPressure: Apache.Arrow's
# NativeMemoryAllocator calls it for every record batch body it allocates (stock; patched with arrow_batches_pooled=false).
GEN2_REASON_KEY = "gen2CollectionsByReason"


def evaluate_targets(groups, main_scenario, doubled_scenario, undisposed_scenario=None, repository="apache/arrow-adbc"):
    """The full read's targets (limits: targets.json's fullRead), each {name, target, measured, met}. The ratio limits
    depend on the upstream repository: apache/arrow-adbc's stock is tag 21, a driver from before any pooling;
    adbc-drivers/databricks' stock already pools per database and decodes into pooled streams, so its limits are looser."""
    by_repository = LIMITS["vsStockByRepository"]
    limits = by_repository.get(repository, by_repository["apache/arrow-adbc"])
    stock = groups.get(("stock", main_scenario), [])
    patched = groups.get(("patched", main_scenario), [])
    s = core.Section(groups)

    def vs_stock(name, key):
        r, limit = ratio(median(patched, key), median(stock, key)), limits[key]
        s.target(name, f"<= {limit}x", f"{r:.3f}x" if r is not None else "n/a", r is not None and r <= limit)

    if stock and patched:
        vs_stock("Total allocated vs stock", "allocatedBytes")
        stock_gen2, patched_gen2 = median(stock, "gen2Collections"), median(patched, "gen2Collections")
        limit = LIMITS["gen2CollectionsVsStock"]
        measured = f"{patched_gen2:.0f} vs {stock_gen2:.0f}" if patched_gen2 is not None and stock_gen2 is not None else "n/a"
        met = patched_gen2 is not None and stock_gen2 is not None and (patched_gen2 <= limit * stock_gen2 or patched_gen2 == 0)
        s.target("Gen2 collections vs stock", f"<= {limit}x (stretch: 0)", measured, met)
        vs_stock("Wall time vs stock", "wallSeconds")
        vs_stock("Peak working set vs stock", "peakWorkingSetBytes")
    if patched:
        # GC.AddMemoryPressure (Apache.Arrow's native allocator): the patched driver's batches must not use it.
        induced = max(((run.get(GEN2_REASON_KEY) or {}).get("induced_not_forced", 0) for run in patched), default=0)
        recorded = all(run.get(GEN2_REASON_KEY) is not None for run in patched)
        s.target("Gen2 induced by GC.AddMemoryPressure (patched, any run)", "0",
                 f"{induced}" if recorded else "n/a (no Gen2 reasons recorded)", recorded and induced == 0)
        within = LIMITS["gcHeapAfterDisposeWithinMB"]
        delta = median(patched, "gcHeapAfterDisposeDeltaBytes")
        s.target("GC heap after dispose + compacting GC vs before open (patched)", f"within {within} MB",
                 fmt(delta, "MB"), delta is not None and abs(delta) <= within * MB)
        # Hosts keep the disposed database object: the scope must be released by Dispose, not by the object's death.
        kept = median(patched, "gcHeapAfterDisposeDatabaseKeptDeltaBytes")
        s.target("... the same with the disposed database object still referenced (patched)", f"within {within} MB",
                 fmt(kept, "MB"), kept is not None and abs(kept) <= within * MB)
    doubled = groups.get(("patched", doubled_scenario), [])
    if patched and doubled:
        runs = f" (medians of {len(patched)} and {len(doubled)} runs)"
        base = median(patched, "peakWorkingSetBytes")
        bigger = median(doubled, "peakWorkingSetBytes")
        growth = (bigger - base) / base if base else None
        percent = LIMITS["peakWorkingSetGrowthWhenDoubledBelowPercent"]
        s.target("Peak working set growth when the result doubles (patched)", f"< {percent}%",
                 f"{growth * 100:.1f}%{runs}" if growth is not None else "n/a", growth is not None and growth < percent / 100)
        # Not a goal of the patch but a check of the measurement: reading twice the rows should take about twice
        # as long. Far more means something else is in the timed window (the mock generating data, swapping).
        r, limit = ratio(median(doubled, "wallSeconds"), median(patched, "wallSeconds")), LIMITS["wallTimeWhenDoubledVsSingle"]
        s.target("Measurement: wall time when the result doubles (patched), doubled / single", f"<= {limit}x",
                 f"{r:.2f}x{runs}" if r is not None else "n/a", r is not None and r <= limit)
    undisposed = groups.get(("patched", undisposed_scenario), []) if undisposed_scenario else []
    if stock and undisposed:
        # An application that never disposes its batches gets no reuse, but its memory must stay bounded: the
        # batches are collected, so the patched driver's peak stays below what stock needs with every batch disposed.
        bound = median(stock, "peakWorkingSetBytes")
        peak = median(undisposed, "peakWorkingSetBytes")
        limit = LIMITS["peakWorkingSetBatchesNeverDisposedVsStock"]
        s.target("Peak working set, batches never disposed (patched), vs stock with batches disposed", f"<= {limit}x",
                 f"{fmt(peak, 'MB')} vs {fmt(bound, 'MB')}", peak is not None and bound is not None and peak <= limit * bound)
    return s.targets


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
        if metric[1] == "gen2Collections":
            metrics += [(f"Gen2 collections: {reason}", "gen2:" + reason, "") for reason in reasons]
    return metrics


def section(runs, notes, out):
    metrics = with_gen2_reasons(runs)
    groups = core.group(runs)
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
    for label, key, unit in metrics:
        row = [fmt(median(groups[g], key), unit) for g in sorted(groups)]
        r = ratio(median(groups.get(("patched", main_scenario), []), key), median(groups.get(("stock", main_scenario), []), key))
        lines.append(f"| {label} | " + " | ".join(row) + f" | {'n/a' if r is None else f'{r:.2f}'} |")
    if any(scenario == undisposed_scenario for _, scenario in groups):
        lines += ["", f"`{undisposed_scenario}`: the same query, but the probe never disposes a record batch (it drops "
                  "each one to the GC), as a careless application would; the driver's memory must stay bounded."]
    lines += ["", f"Runs per column (medians shown): " + ", ".join(f"{d}/{s}: {len(groups[(d, s)])}" for d, s in sorted(groups)), ""]
    lines += core.runtime_line(runs)

    targets = evaluate_targets(groups, main_scenario, doubled_scenario, undisposed_scenario,
                               (base or {}).get("repository", "apache/arrow-adbc"))
    lines += ["## Targets", ""] + core.target_rows(targets)

    failures = core.correctness(groups) + verify_notes.build_failures(notes)
    lines += ["", "## Correctness", ""]
    lines += ["Every row of every run was checked against the data set generator; the overlay's pools were back to "
              "zero in use and zero retained after dispose."] if not failures else [f"- {f}" for f in failures]

    curves = []
    for driver in ("stock", "patched"):
        driver_runs = groups.get((driver, main_scenario), [])
        if driver_runs:
            timeline = driver_runs[len(driver_runs) // 2].get("timeline", [])  # one representative run per driver
            seconds = [p["t"] for p in timeline]
            curves += [(driver, "GC heap", seconds, [p["gcHeapBytes"] for p in timeline], True),
                       (driver, "working set", seconds, [p["workingSetBytes"] for p in timeline], False)]
    core.chart(out / "gc-heap.png", f"GC heap and working set over time, stock vs patched ({main_scenario})",
               "seconds since the database was opened", "MB", curves)
    lines += ["", "![GC heap over time](gc-heap.png)", ""]
    return lines, targets, failures
