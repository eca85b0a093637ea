"""The report's "Host scenarios" section (issue 16): what a Power BI host does besides one full read, stock vs patched,
from the memory probe's host workloads (scripts/verify.d/host-scenarios.sh runs them into OUT/results-host/); issue 34's
consumer and network scenarios are a subsection of their own (scripts/report/pipeline_scenarios.py).

    section(results_dir, output_dir) -> (markdown lines, targets, correctness failures)

Every figure is the median of the runs of its column; stock and patched runs were interleaved. Peaks are also given
"above before open": the process's peak working set minus its working set just before the scenario opened its first
database, i.e. without the runtime, the warm-up and the probe, which both drivers pay alike. The long-lived scenario
also gets a chart, long-lived.png (working set and GC heap after each query, one run per driver).
"""
import pathlib
import statistics

import core
import metric_names
import pipeline_scenarios
from core import MB, Section, dig, fmt, ratio, table

LIMITS = core.TARGETS["hostScenarios"]

PARTIAL = ("partial-read", "partial-read-held")
CONCURRENT = ("one-query", "sequential-4", "concurrent-4-on-1", "concurrent-4-dbs", "concurrent-16-on-1")
SMALL_BUDGET = "concurrent-16-on-1"
# A reader decoding a file holds at most two blocks of its frames (Databricks writes 4 MiB blocks): the one being delivered
# and the one decoded ahead (Lz4StreamingDecoder), charged to the budget without waiting.
DECODE_BLOCK_BYTES = 4 * 1024 * 1024
DECODE_BLOCKS_PER_READER = 2
LONG_LIVED = "long-lived"
WIDE = "wide-16x16"
# The probe's overlayMetrics.all key for one instrument and pool: "INSTRUMENT[POOL]".
COLLECTED_LZ4 = f"{metric_names.COLLECTED}[{metric_names.LZ4_BUFFERS_POOL}]"


def collected_lz4(run):
    return ((run.get("overlayMetrics") or {}).get("all") or {}).get(COLLECTED_LZ4, 0) if run["driver"] == "patched" else None


def partial_read(s):
    s.lines += ["### Partial read", "",
                "The first batch of the ~1 GB result, then the reader, statement, connection and database disposed: at once "
                "(`partial-read`), or after keeping the reader 1 s (`partial-read-held`, the pipeline fills up meanwhile). "
                "The mock sends each file at a fixed rate, as a real network would, so downloads are in flight; what was sent "
                "after the dispose comes from the mock's journal (each download's transfer, watched until 2 s after the "
                "dispose and until no transfer is still sending). A transfer sent to the end after the dispose was read on: "
                "by the driver, or by .NET's HTTP handler, which reads up to 1 MiB of an abandoned response to keep its "
                "connection.", ""]
    s.side_by_side(PARTIAL, core.rows(
        "peakWorkingSetBytes", "peakWorkingSetAboveBeforeOpenBytes",
        ("Transfers in flight at the dispose", "partial-read.transfersSendingAtDispose", "n"),
        ("Downloads started after the reader's Dispose returned", "partial-read.downloadsStartedAfterDispose", "n"),
        ("Transfers still being sent when the Dispose returned that were sent to the end", "partial-read.transfersCompletedAfterDispose", "n"),
        ("Bytes sent after the reader's Dispose returned", "partial-read.bytesSentAfterDispose", "MB"),
        ("Time to dispose reader, statement, connection, database", "partial-read.disposeSeconds", "ms"),
        "heapRightAfterDispose", "heapTwoSecondsAfterDispose", "poolBytesInUseRightAfterDispose",
        ("LZ4 buffers never given back (collected by the GC)", collected_lz4, "MB")))
    s.runs_line(PARTIAL)
    for scenario in PARTIAL:
        s.peak_target(f"{scenario}: peak working set above before open vs stock", scenario, "peakWorkingSetAboveBeforeOpenBytes",
                      LIMITS["partialReadPeakAboveBeforeOpenVsStock"])
        started = [dig(run, "partial-read.downloadsStartedAfterDispose") for run in s.runs("patched", scenario)]
        s.target(f"{scenario}: downloads started after the Dispose returned (patched, every run)", "0",
                 ", ".join(str(n) for n in started) or "n/a", started and all(n == 0 for n in started))
        collected = [collected_lz4(run) for run in s.runs("patched", scenario)]
        s.target(f"{scenario}: LZ4 buffers never given back (patched, every run)", "0",
                 ", ".join(fmt(c, "MB") for c in collected) or "n/a", collected and all(c == 0 for c in collected))


def concurrent(s):
    s.lines += ["### Concurrent refreshes", "",
                "Four queries of a quarter of the rows each (seeds 1-4: a row that crossed between queries would be a wrong "
                "value; every value of every row is checked), each on its own connection and thread: at once on one "
                "database (`concurrent-4-on-1`, one memory scope), at once on four databases (`concurrent-4-dbs`), and one "
                "after another on one database (`sequential-4`); `one-query` is one of them alone.", ""]
    rows = []
    for label, path, unit in (("Peak working set", "peakWorkingSetBytes", "MB"),
                              ("Peak working set above before open", "peakWorkingSetAboveBeforeOpenBytes", "MB"),
                              ("Wall time", "wallSeconds", "s"),
                              ("Values checked", "valuesChecked", "n")):
        for scenario in CONCURRENT:
            stock, patched = s.med("stock", scenario, path), s.med("patched", scenario, path)
            r = ratio(patched, stock)
            rows.append([f"{label}, {scenario}", fmt(stock, unit), fmt(patched, unit), "" if r is None or unit == "n" else f"{r:.2f}"])
    for label, scenario, base, path in (
            ("Peak above before open, 4 on one database / one query", "concurrent-4-on-1", "one-query", "peakWorkingSetAboveBeforeOpenBytes"),
            ("Peak above before open, 4 databases / one query", "concurrent-4-dbs", "one-query", "peakWorkingSetAboveBeforeOpenBytes"),
            ("Wall time, 4 on one database / 4 sequential", "concurrent-4-on-1", "sequential-4", "wallSeconds"),
            ("Wall time, 4 databases / 4 sequential", "concurrent-4-dbs", "sequential-4", "wallSeconds")):
        stock = ratio(s.med("stock", scenario, path), s.med("stock", base, path))
        patched = ratio(s.med("patched", scenario, path), s.med("patched", base, path))
        rows.append([label, fmt(stock, "x"), fmt(patched, "x"), ""])
    s.lines += table(["Metric", "stock", "patched", "patched / stock"], rows) + [""]
    s.runs_line(CONCURRENT)
    four_on_one = ("patched", "concurrent-4-on-1", "peakWorkingSetAboveBeforeOpenBytes")
    s.ratio_target("concurrent: 4 queries at once on one database, peak above before open vs one query (patched)", four_on_one,
                   ("patched", "one-query", "peakWorkingSetAboveBeforeOpenBytes"), LIMITS["fourQueriesOnOneDatabasePeakAboveBeforeOpenVsOneQuery"])
    four, dbs = s.med(*four_on_one), s.med("patched", "concurrent-4-dbs", "peakWorkingSetAboveBeforeOpenBytes")
    limit = LIMITS["fourQueriesOnOneDatabasePeakAboveBeforeOpenVsFourDatabases"]
    s.target("concurrent: 4 queries on one database hold no more than on 4 databases (patched, peak above before open)", f"<= {limit}x",
             f"{fmt(four, 'MB')} vs {fmt(dbs, 'MB')}" if four is not None and dbs is not None else "n/a",
             four is not None and dbs is not None and four <= limit * dbs)
    s.ratio_target("sequential: 4 queries one after another on one database, wall time vs stock", ("patched", "sequential-4", "wallSeconds"),
                   ("stock", "sequential-4", "wallSeconds"), LIMITS["sequentialWallTimeVsStock"], unit="s")
    budget(s)


def budget(s):
    """The database's memory budget as the patched driver's meter saw it: what each scenario held and waited."""
    s.lines += ["#### The database's memory budget (patched)", "",
                "From the driver's meter (`adbc.databricks.memory.budget.*`): the budget, the most it had in use (CloudFetch "
                "files downloading or waiting, at their compressed size, and decode working memory), the most readers "
                "waiting at once, and the grants that had to wait with their total wait. `concurrent-16-on-1` runs with a "
                "32 MiB budget; every other scenario with the default. A reader that holds nothing is always granted its "
                "next file, and decoding charges its two blocks (the one being read and the one decoded ahead) without "
                "waiting, so in use may exceed the budget by at most one file and two blocks per reader.", ""]
    rows = []
    for scenario in CONCURRENT + (WIDE,):
        rows.append([scenario,
                     fmt(s.med("patched", scenario, "overlayMetrics.budget.limitBytes"), "MB"),
                     fmt(s.med("patched", scenario, "overlayMetrics.budget.peakInUseBytes"), "MB"),
                     fmt(s.med("patched", scenario, "overlayMetrics.budget.peakWaiters"), "n"),
                     fmt(s.med("patched", scenario, "overlayMetrics.budget.waits"), "n"),
                     fmt(s.med("patched", scenario, "overlayMetrics.budget.waitSeconds"), "s")])
    s.lines += table(["Scenario", "budget", "peak in use", "peak waiters", "waits", "time waited"], rows) + [""]
    runs = s.runs("patched", SMALL_BUDGET)
    finished = [dig(run, "rows") == dig(run, "expectedRows") and not dig(run, "errors") for run in runs]
    s.target(f"{SMALL_BUDGET}: every query finished with every value right, none starved (patched, every run)", "all",
             ", ".join("yes" if f else "no" for f in finished) or "n/a", bool(finished) and all(finished))
    over = []
    for run in runs:
        limit, peak = dig(run, "overlayMetrics.budget.limitBytes"), dig(run, "overlayMetrics.budget.peakInUseBytes")
        largest = dig(run, "concurrent.largestFileBytes")
        if None in (limit, peak, largest):
            continue
        over.append((peak, budget_bound(limit, largest, readers=16)))
    s.target(f"{SMALL_BUDGET}: budget in use within the budget plus one file and two decode blocks per reader (patched, every run)",
             "peak <= budget + 16 x (largest file + 2 x 4 MiB)",
             ", ".join(f"{fmt(p, 'MB')} (bound {fmt(b, 'MB')})" for p, b in over) or "n/a",
             bool(over) and all(p <= b for p, b in over))


def budget_bound(limit, largest_file, readers):
    """The most a database's budget may have in use: each reader may be granted one file past the limit, and decoding
    charges its blocks without waiting."""
    return limit + readers * (largest_file + DECODE_BLOCKS_PER_READER * DECODE_BLOCK_BYTES)


def first_last(run, key, count=10):
    """Medians of the first and the last `count` per-query samples."""
    per_query = dig(run, "sequential.perQuery") or []
    values = [q[key] for q in per_query]
    if len(values) < 2 * count:
        return None, None
    return statistics.median(values[:count]), statistics.median(values[-count:])


def drift(key):
    def of(run):
        first, last = first_last(run, key)
        return None if not first else (last - first) / first
    return of


def first10(key):
    return lambda run: first_last(run, key)[0]


def last10(key):
    return lambda run: first_last(run, key)[1]


def after_idle(point, key, relative=False):
    def of(run):
        sample, before = dig(run, f"sequential.{point}") or {}, dig(run, "sequential.beforeFirstQuery") or {}
        if sample.get(key) is None or (relative and before.get(key) is None):
            return None
        return sample[key] - before[key] if relative else sample[key]
    return of


def long_lived(s, out):
    s.lines += ["### Long-lived", "",
                "100 queries of a twentieth of the rows on one database kept open (a connection per query; 80 warm-up "
                "queries of the same size through their own databases first, then an aggressive collection: the runtime's "
                "tiered JIT has compiled its hot paths, as in a process that has run for hours), then idle past the pools' "
                "trim period with the database still open. Samples after each query (no collection forced), at the end of "
                "the idle time, after one full collection then (the next Gen2 a host would run: it frees what the trim let "
                "go, but the GC keeps free regions committed for reuse), and after an aggressive one (which gives those back "
                "to the OS: what the process can return).", "",
                "![Working set and GC heap after each query](long-lived.png)", ""]
    metrics = [
        ("Working set before the first query", after_idle("beforeFirstQuery", "WorkingSetBytes"), "MB"),
        ("Working set after queries 1-10 (median)", first10("WorkingSetBytes"), "MB"),
        ("Working set after queries 91-100 (median)", last10("WorkingSetBytes"), "MB"),
        ("Working set drift over 100 queries", drift("WorkingSetBytes"), "%"),
        ("GC heap after queries 1-10 (median)", first10("GcHeapBytes"), "MB"),
        ("GC heap after queries 91-100 (median)", last10("GcHeapBytes"), "MB"),
        ("GC heap drift over 100 queries", drift("GcHeapBytes"), "%"),
        ("Pool bytes kept free after query 100", last10("PoolRetainedBytes"), "MB"),
        ("After the idle time: working set", after_idle("afterIdle", "WorkingSetBytes"), "MB"),
        ("After the idle time: pool bytes kept free", after_idle("afterIdle", "PoolRetainedBytes"), "MB"),
        ("... and a full collection: GC heap, minus before the first query", after_idle("afterIdleAndFullCollection", "GcHeapBytes", True), "MB"),
        ("... and a full collection: GC committed", after_idle("afterIdleAndFullCollection", "GcCommittedBytes"), "MB"),
        ("... and a full collection: working set, minus before the first query", after_idle("afterIdleAndFullCollection", "WorkingSetBytes", True), "MB"),
        ("... and an aggressive collection: working set, minus before the first query", after_idle("afterIdleAndAggressiveCollection", "WorkingSetBytes", True), "MB"),
        ("Threads before the first query", after_idle("beforeFirstQuery", "Threads"), "n"),
        ("Threads after the last query", lambda run: ((dig(run, "sequential.perQuery") or [{}])[-1]).get("Threads"), "n"),
        ("Wall time of the 100 queries", "wallSeconds", "s"),
    ]
    rows = [[label] + [fmt(s.med(d, LONG_LIVED, path), unit) for d in ("stock", "patched")] for label, path, unit in metrics]
    s.lines += table(["Metric", "stock", "patched"], rows) + [""]
    s.runs_line((LONG_LIVED,))
    d = s.med("patched", LONG_LIVED, drift("WorkingSetBytes"))
    percent = LIMITS["longLivedWorkingSetDriftBelowPercent"]
    s.target("long-lived: working set drift over 100 queries (patched)", f"< {percent} %", fmt(d, "%"), d is not None and d < percent / 100)
    back = s.med("patched", LONG_LIVED, after_idle("afterIdleAndAggressiveCollection", "WorkingSetBytes", True))
    within = LIMITS["longLivedWorkingSetAfterIdleTrimWithinMB"]
    s.target("long-lived: working set after the idle trim, once the GC gave its free regions back (aggressive collection), "
             "vs before the first query (patched)", f"within {within} MB", fmt(back, "MB"), back is not None and abs(back) <= within * MB)
    curves = []
    for driver in ("stock", "patched"):
        runs = sorted(s.runs(driver, LONG_LIVED), key=lambda run: last10("WorkingSetBytes")(run) or 0)
        if runs:
            per_query = dig(runs[len(runs) // 2], "sequential.perQuery") or []  # the run with the median final working set
            queries = [q["Query"] for q in per_query]
            curves += [(driver, "working set", queries, [q["WorkingSetBytes"] for q in per_query], True),
                       (driver, "GC heap", queries, [q["GcHeapBytes"] for q in per_query], False)]
    core.chart(out / "long-lived.png", "Long-lived: working set and GC heap after each query, stock vs patched",
               "query (one database kept open)", "MB after the query", curves)


def peak_above_before_open(run):
    """The full-read probe's peak minus its working set before open (host workloads report it themselves)."""
    before = run.get("workingSetBeforeOpenBytes")
    return None if before is None else run["peakWorkingSetBytes"] - before


def wide(s):
    s.lines += ["### Wide pipeline", "",
                "The full ~1 GB result with 16 parallel downloads, a prefetch count of 16 and a 400 MB download budget "
                "(`adbc.databricks.cloudfetch.parallel_downloads`, `.prefetch_count`, `.memory_buffer_size_mb`; the "
                "JDBC-like settings of adbc-drivers/databricks PR #377).", ""]
    s.side_by_side((WIDE,), core.rows(
        "rowsPerSecond", "wallSeconds", "peakWorkingSetBytes",
        ("Peak working set above before open", peak_above_before_open, "MB"),
        "allocatedBytes", "gen2Collections"))
    s.runs_line((WIDE,))
    stock, patched = s.med("stock", WIDE, "rowsPerSecond"), s.med("patched", WIDE, "rowsPerSecond")
    r = ratio(patched, stock)
    limit = LIMITS["wideRowsPerSecondVsStockAtLeast"]
    s.target("wide-16x16: rows per second vs stock", f">= {limit}x", f"{r:.2f}x" if r is not None else "n/a", r is not None and r >= limit)
    s.peak_target("wide-16x16: peak working set above before open vs stock", WIDE, peak_above_before_open, LIMITS["widePeakAboveBeforeOpenVsStock"])


def section(results_dir, output_dir):
    runs = core.load(results_dir)
    groups = core.group(runs)
    s = Section(groups)
    s.lines += ["## Host scenarios: what a Power BI host does", "",
                "Each scenario in its own probe process per run, stock and patched interleaved; medians. \"Above before "
                "open\" is the peak working set minus the working set just before the scenario opened its first database "
                "(the runtime, the warm-up and the probe, alike for both drivers).", ""] + core.runtime_line(runs)
    # A subsection for the scenarios that ran (scripts/verify --host-scenarios runs some of them).
    ran = {scenario for _, scenario in groups}
    if ran & set(PARTIAL):
        partial_read(s)
    if ran & set(CONCURRENT):
        concurrent(s)
    if LONG_LIVED in ran:
        long_lived(s, pathlib.Path(output_dir))
    if WIDE in ran:
        wide(s)
    if ran & set(pipeline_scenarios.SCENARIOS):
        pipeline_scenarios.section(s)
    failures = core.correctness(groups)
    s.lines += ["### Host scenario targets", ""] + core.target_rows(s.targets)
    s.lines += ["", "### Host scenario correctness", ""]
    s.lines += ["Every row each scenario read was checked against the data set generator; the patched driver's pools were "
                "back to zero in use and zero retained after dispose."] if not failures else [f"- {f}" for f in failures]
    return s.lines + [""], s.targets, failures
