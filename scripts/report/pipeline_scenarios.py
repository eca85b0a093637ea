"""The host scenarios' "Consumer and network" subsection (issue 34): where the consumer or the network is the bottleneck,
stock, wide-tuned stock (the stock build with upstream's 16 parallel downloads, prefetch 16 and 400 MB memory buffer)
and patched, from the memory probe's runs that scripts/verify.d/host-scenarios.sh names consumer-heavy,
consumer-heavy-contended, network-loopback, network-per-stream and network-shared-link.

    section(s)   # s: core.Section of the host scenarios; adds its lines and its targets (goals) to s

Every figure is the median of its column's runs. Time to first batch is from the query's start (connection and execution
included). Downloads in flight come from the mock's journal (every driver); files in flight, files waiting and the
window from the patched driver's meter, when it publishes them: the instrument whose constant in
driver-overlay/DatabricksMemoryMetricNames.cs has InFlight, Waiting or Window in its name ("n/a" without one).
"""
import re

import core
import metric_names
from core import MB, fmt, ratio, table

LIMITS = core.TARGETS["consumerAndNetwork"]

CONSUMER = ("consumer-heavy", "consumer-heavy-contended")
LOOPBACK = "network-loopback"
PER_STREAM = "network-per-stream"
SHARED_LINK = "network-shared-link"
NETWORK = (LOOPBACK, PER_STREAM, SHARED_LINK)
SCENARIOS = CONSUMER + NETWORK
WIDE = "stock-wide"
DRIVERS = ("stock", WIDE, "patched")
PEAK_ABOVE = "peakWorkingSetAboveBeforeOpenBytes"
IN_FLIGHT = "concurrent.downloads.peakInFlight"

# The meter's pipeline instruments by a word of their constant's name (another change adds them; absent: n/a).
METER_WORDS = (("Files in flight at most (driver's meter)", "InFlight"),
               ("Files waiting at most (driver's meter)", "Waiting"),
               ("Window at most (driver's meter)", "Window"))


def meter_instrument(word, names=None):
    """The instrument name of the first metric constant with `word` in its C# name, or None."""
    for constant, value in sorted((names or metric_names.names()).items()):
        if re.search(word, constant) and value.startswith("adbc."):
            return value
    return None


def meter_peak(instrument):
    return lambda run: None if instrument is None else ((run.get("overlayMetrics") or {}).get("peaks") or {}).get(instrument)


def contention_cores(run):
    contention = run.get("contention") or {}
    cpu, wall = contention.get("cpuSeconds"), contention.get("wallSeconds")
    return cpu / wall if cpu is not None and wall else None


def section(s):
    s.lines += ["### Consumer and network", "",
                "One query each, where the consumer or the network is the bottleneck. `consumer-heavy`: a quarter of the "
                "rows, every value converted and checked, as a Power BI mashup engine converts every value; "
                "`consumer-heavy-contended`: the same while another process keeps one core busy (a shell loop, its CPU "
                "use below), as a host's other evaluations do. The network scenarios read the full result, checking "
                "every 1000th row as the full read does (checking every value would make the consumer the bottleneck "
                "again): `network-loopback` at loopback speed, `network-per-stream` with each file at 16 MiB/s after "
                "50 ms to its first byte, `network-shared-link` with every download sharing one 64 MiB/s link (the "
                "mock's network: integration-tests/README.md, \"Fault catalogue\"). Wide-tuned stock is the stock build "
                "with upstream's `adbc.databricks.cloudfetch.parallel_downloads=16`, `.prefetch_count=16` and "
                "`.memory_buffer_size_mb=400`; it runs the network scenarios.", ""]
    metrics = [("Wall time", "wallSeconds", "s"),
               ("Time to first batch", "concurrent.firstBatchSeconds", "s"),
               ("Peak working set above before open", PEAK_ABOVE, "MB"),
               ("Peak working set", "peakWorkingSetBytes", "MB"),
               ("Downloads in flight at most (mock's journal)", IN_FLIGHT, "n")]
    metrics += [(label, meter_peak(meter_instrument(word)), "n") for label, word in METER_WORDS]
    metrics += [("Values checked", "valuesChecked", "n")]
    rows = []
    for scenario in SCENARIOS:
        for label, path, unit in metrics:
            stock, wide, patched = (s.med(driver, scenario, path) for driver in DRIVERS)
            vs_stock, vs_wide = ratio(patched, stock), ratio(patched, wide)
            rows.append([f"{scenario}: {label}", fmt(stock, unit), fmt(wide, unit), fmt(patched, unit),
                         "" if vs_stock is None or unit == "n" else f"{vs_stock:.2f}",
                         "" if vs_wide is None or unit == "n" else f"{vs_wide:.2f}"])
        if scenario == "consumer-heavy-contended":
            stock, patched = (s.med(driver, scenario, contention_cores) for driver in ("stock", "patched"))
            rows.append([f"{scenario}: cores the contention process used (its CPU time / the run's wall time)",
                         "n/a" if stock is None else f"{stock:.2f}", "", "n/a" if patched is None else f"{patched:.2f}", "", ""])
    s.lines += table(["Metric", "stock", "wide-tuned stock", "patched", "patched / stock", "patched / wide-tuned"], rows) + [""]
    counts = ", ".join(f"{d}/{sc}: {len(s.runs(d, sc))}" for sc in SCENARIOS for d in DRIVERS if s.runs(d, sc))
    s.lines += [f"Runs per column (medians shown): {counts}", ""]
    targets(s)


def in_flight(s, scenario):
    figures = [(driver, s.med(driver, scenario, IN_FLIGHT)) for driver in DRIVERS]
    text = ", ".join(f"{'wide-tuned stock' if d == WIDE else d} {v:.0f}" for d, v in figures if v is not None)
    return f"downloads in flight at most: {text}" if text else None


def link_floor(s):
    """The least time the shared link allows for the result's bytes (patched's, from the journal)."""
    sent = s.med("patched", SHARED_LINK, "concurrent.downloads.bytesSent")
    rate = s.med("patched", SHARED_LINK, "concurrent.downloads.linkBytesPerSecond")
    return f"the link alone needs {sent / rate:.2f} s for the result's {sent / MB:,.0f} MB" if sent and rate else None


def wall_target(s, scenario, base, limit, label, cause=None):
    """patched / `base` of the wall time, met at or below `limit`; a miss says its measured cause where one is known."""
    s.ratio_target(f"{scenario}: wall time vs {label}", ("patched", scenario, "wallSeconds"), (base, scenario, "wallSeconds"),
                   limit, unit="s", cause=cause)


def targets(s):
    wall_target(s, "consumer-heavy", "stock", LIMITS["consumerHeavyWallTimeVsStock"], "stock")
    cores = s.med("patched", "consumer-heavy-contended", contention_cores)
    wall_target(s, "consumer-heavy-contended", "stock", LIMITS["consumerHeavyContendedWallTimeVsStock"], "stock under the same contention",
                f"the contention process used {cores:.2f} cores" if cores is not None else None)
    wall_target(s, PER_STREAM, "stock", LIMITS["perStreamWallTimeVsStock"], "stock", in_flight(s, PER_STREAM))
    wall_target(s, PER_STREAM, WIDE, LIMITS["perStreamWallTimeVsWideTunedStock"], "wide-tuned stock", in_flight(s, PER_STREAM))
    s.ratio_target(f"{PER_STREAM}: peak working set above before open vs wide-tuned stock", ("patched", PER_STREAM, PEAK_ABOVE),
                   (WIDE, PER_STREAM, PEAK_ABOVE), LIMITS["perStreamPeakAboveBeforeOpenVsWideTunedStock"])
    wall_target(s, SHARED_LINK, "stock", LIMITS["sharedLinkWallTimeVsStock"], "stock",
                "; ".join(filter(None, (in_flight(s, SHARED_LINK), link_floor(s)))))
    s.ratio_target(f"{SHARED_LINK}: peak working set above before open no higher than over loopback ({LOOPBACK}, patched)",
                   ("patched", SHARED_LINK, PEAK_ABOVE), ("patched", LOOPBACK, PEAK_ABOVE), LIMITS["sharedLinkPeakAboveBeforeOpenVsLoopback"],
                   cause=window_and_budget(s))


def window_and_budget(s):
    """What the patched driver held over the shared link and over loopback, by its meter: a wider window holds more files."""
    window = meter_peak(meter_instrument("Window"))
    windows = [s.med("patched", scenario, window) for scenario in (SHARED_LINK, LOOPBACK)]
    budgets = [s.med("patched", scenario, "overlayMetrics.budget.peakInUseBytes") for scenario in (SHARED_LINK, LOOPBACK)]
    parts = []
    if None not in windows:
        parts.append(f"the window reached {windows[0]:.0f} files over the link and {windows[1]:.0f} over loopback")
    if None not in budgets:
        parts.append(f"the budget's peak in use {fmt(budgets[0], 'MB')} vs {fmt(budgets[1], 'MB')}")
    return "; ".join(parts) or None
