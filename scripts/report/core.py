"""What every section of the report shares: the probe's results loaded and grouped, medians, formats, the targets'
limits (targets.json), the correctness checks, tables and charts. Imports no section.

The memory probe writes one JSON file per run (see integration-tests/MemoryProbe); runs are grouped by (driver, scenario)
and summarised by their median, because the machines are shared and noisy.
"""
import json
import pathlib
import statistics

import metric_names

MB = 1024 * 1024
# The limit of every target the report judges, by what it measures (goals as the report states them).
TARGETS = json.loads((pathlib.Path(__file__).parent / "targets.json").read_text())


def load(results_dir):
    runs = []
    for path in sorted(pathlib.Path(results_dir).glob("*.json")):
        run = json.loads(path.read_text())
        run["_file"] = path.name
        runs.append(run)
    return runs


def group(runs):
    groups = {}
    for run in runs:
        groups.setdefault((run["driver"], run["scenario"]), []).append(run)
    return groups


def runtime_line(runs):
    """What the probe ran on: its runtime (".NET 10.0.12") and the largest CPU cache the machine reports. The same build
    measures differently on another runtime, and .NET's GC sizes its youngest generation from that cache (a larger one,
    fewer collections, more garbage in the working set), so figures are compared only where both match. The host
    scenarios' runs say both at the top level, the full read's under "gc"."""
    def named(key, gc_key):
        return sorted({run.get(key) or run.get("gc", {}).get(gc_key) for run in runs} - {None})
    runtimes = named("runtime", "runtimeName")
    caches = [f"{size / MB:,.0f} MiB" if size >= MB else f"{size / 1024:,.0f} KiB" for size in named("cpuCacheBytes", "cpuCacheBytes")]
    line = f"The probe ran on {' and '.join(runtimes) if runtimes else 'a runtime it did not name'}"
    if caches:
        line += (f", on a CPU whose largest cache is {' and '.join(caches)} (.NET's GC sizes its youngest generation from it: "
                 "a larger cache, fewer collections and more garbage in the working set)")
    return [line + ".", ""]


def dig(run, path):
    """run[a][b]... for a dotted path, or a function of the run; None where a step is missing."""
    if callable(path):
        return path(run)
    value = run
    for key in path.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def median(runs, path):
    values = [v for v in (dig(run, path) for run in runs) if v is not None]
    return statistics.median(values) if values else None


def ratio(patched, stock):
    if patched is None or stock in (None, 0):
        return None
    return patched / stock


# How fmt shows a value of each unit; any other unit ("" or n) is a count.
FORMATS = {"MB": lambda v: f"{v / MB:,.1f} MB", "s": lambda v: f"{v:.2f} s", "ms": lambda v: f"{v * 1000:,.0f} ms",
           "%": lambda v: f"{v * 100:+.1f} %",  # a change: signed
           "x": lambda v: f"{v:.2f}x",  # a ratio
           "per": lambda v: f"{v:.2f}"}  # a plain ratio


def fmt(value, unit):
    return "n/a" if value is None else FORMATS.get(unit, lambda v: f"{v:,.0f}")(value)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def target_rows(targets):
    """The markdown table of targets, each {name, target, measured, met}."""
    return ["| Target | Goal | Measured | Met |", "|---|---|---|---|"] + [
        f"| {t['name']} | {t['target']} | {t['measured']} | {'yes' if t['met'] else '**no**'} |" for t in targets]


def heap_right_after_dispose(run):
    part = run.get("partial-read") or {}
    heap, before = part.get("gcHeapRightAfterDisposeBytes"), run.get("gcHeapBeforeOpenBytes")
    return None if heap is None or before is None else heap - before


# The rows the sections share, by name: (label, path in a run, unit), each worded once. A section names them with
# rows(), beside rows of its own.
ROWS = {
    "allocatedBytes": ("Total allocated", "allocatedBytes", "MB"),
    "gen2Collections": ("Gen2 collections", "gen2Collections", ""),
    "peakGcHeapBytes": ("Peak GC heap", "peakGcHeapBytes", "MB"),
    "peakWorkingSetBytes": ("Peak working set", "peakWorkingSetBytes", "MB"),
    "peakWorkingSetAboveBeforeOpenBytes": ("Peak working set above before open", "peakWorkingSetAboveBeforeOpenBytes", "MB"),
    "gcHeapAfterDisposeDeltaBytes": ("GC heap after dispose - before open", "gcHeapAfterDisposeDeltaBytes", "MB"),
    "gcHeapAfterDisposeDatabaseKeptDeltaBytes": ("... with the disposed database object still referenced",
                                                 "gcHeapAfterDisposeDatabaseKeptDeltaBytes", "MB"),
    "wallSeconds": ("Wall time", "wallSeconds", "s"),
    "rowsPerSecond": ("Rows per second", "rowsPerSecond", ""),
    "firstBatchSeconds": ("Time to first batch", "firstBatchSeconds", "s"),
    "longestBatchWaitSeconds": ("Longest wait for one batch", "longestBatchWaitSeconds", "s"),
    # The partial read's: the heap right after its dispose and 2 s later, and what the mock still sent.
    "heapRightAfterDispose": ("GC heap right after the dispose (compacting collection), minus before open",
                              heap_right_after_dispose, "MB"),
    "heapTwoSecondsAfterDispose": ("GC heap 2 s later, minus before open", "gcHeapAfterDisposeDeltaBytes", "MB"),
    "downloadsStartedAfterDispose": ("Downloads started after the dispose", "partial-read.downloadsStartedAfterDispose", "n"),
    "bytesSentAfterDispose": ("Bytes sent after the dispose", "partial-read.bytesSentAfterDispose", "MB"),
    "poolBytesInUseRightAfterDispose": ("Scope bytes in use right after the dispose returned",
                                        "partial-read.poolBytesInUseRightAfterDispose", "MB"),
}


def rows(*names_or_rows):
    """(label, path, unit) rows for side_by_side: a name of ROWS, or a row of the section's own as it stands."""
    return [ROWS[row] if isinstance(row, str) else row for row in names_or_rows]


def correctness(groups):
    """Every run read every row right, and the patched driver's pools were back to zero after dispose."""
    failures = []
    for (driver, scenario), runs in sorted(groups.items()):
        for run in runs:
            where = f"{driver}/{scenario} ({run['_file']})"
            if not run.get("rowsVerified", False) or run.get("valueErrors", 1) != 0:
                failures.append(f"{where}: rows verified={run.get('rowsVerified')}, value errors={run.get('valueErrors')}: "
                                f"{'; '.join((run.get('errors') or [])[:2])}")
            scope = run.get("overlayMetrics") or {}
            in_use, retained, by_pool = scope.get("inUseBytes", 0), scope.get("retainedBytes", 0), scope.get("inUseBytesByPool")
            if not run.get("batchesDisposed", True) and by_pool is not None:
                # Batches the probe never disposed were collected without coming back: only the batch pool may
                # end with bytes in use; the LZ4 buffers are the driver's own and must all be back.
                in_use = by_pool.get(metric_names.LZ4_BUFFERS_POOL, 0)
            if driver == "patched" and (in_use != 0 or retained != 0):
                failures.append(f"{where}: pools not empty after dispose (in use {in_use}, retained {retained})")
    return failures


def chart(path, title, xlabel, ylabel, curves):
    """A PNG of curves, each (driver, label, xs, ys in bytes, bold): stock red, patched blue; bold solid, else thin dashed."""
    import matplotlib  # here: only drawing needs it (scripts/report/ensure-matplotlib.sh installs it before the report)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=110)
    colours = {"stock": "#c0392b", "patched": "#2471a3"}
    for driver, label, xs, ys, bold in curves:
        ax.plot(xs, [y / MB for y in ys], label=f"{driver} {label}", color=colours[driver],
                linewidth=1.6 if bold else 0.9, linestyle="-" if bold else "--")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


class Section:
    """A section's markdown lines and targets, over its runs grouped by (driver, scenario)."""

    def __init__(self, groups):
        self.groups = groups
        self.targets = []
        self.lines = []

    def runs(self, driver, scenario):
        return self.groups.get((driver, scenario), [])

    def med(self, driver, scenario, path):
        return median(self.runs(driver, scenario), path)

    def target(self, name, goal, measured, met):
        self.targets.append({"name": name, "target": goal, "measured": measured, "met": bool(met)})

    def ratio_target(self, name, a, b, limit, unit="MB", digits=2, cause=None):
        """a / b of two medians, each (driver, scenario, path), met at or below `limit`; a miss says `cause` where known."""
        x, y = self.med(*a), self.med(*b)
        r = ratio(x, y)
        measured = f"{r:.{digits}f}x ({fmt(x, unit)} vs {fmt(y, unit)})" if r is not None else "n/a"
        met = r is not None and r <= limit
        if not met and r is not None and cause:
            measured += f"; {cause}"
        self.target(name, f"<= {limit}x", measured, met)

    def peak_target(self, name, scenario, path, limit):
        """Patched / stock of a peak (medians), met at or below `limit`."""
        self.ratio_target(name, ("patched", scenario, path), ("stock", scenario, path), limit, digits=3)

    def side_by_side(self, scenarios, metrics):
        """One row per metric; per scenario a stock, a patched and a patched / stock column."""
        header = ["Metric"]
        for scenario in scenarios:
            header += [f"stock ({scenario})", f"patched ({scenario})", "patched / stock"]
        rows = []
        for label, path, unit in metrics:
            row = [label]
            for scenario in scenarios:
                stock, patched = self.med("stock", scenario, path), self.med("patched", scenario, path)
                # No ratio of a difference that can go below zero (heap after dispose minus before open): -0.05 says nothing.
                r = ratio(patched, stock) if stock is None or stock > 0 else None
                r = None if r is not None and r < 0 else r
                row += [fmt(stock, unit), fmt(patched, unit), "" if r is None or unit not in ("MB", "s", "ms", "") else f"{r:.2f}"]
            rows.append(row)
        self.lines += table(header, rows) + [""]

    def runs_line(self, scenarios):
        counts = ", ".join(f"{d}/{s}: {len(self.runs(d, s))}" for s in scenarios for d in ("stock", "patched"))
        self.lines += [f"Runs per column (medians shown): {counts}", ""]
