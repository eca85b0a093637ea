"""The report's section "Mono 6.8, the .NET Framework 4.7.2 stand-in" (issue 33): the net472 builds of the stock and
patched drivers run under Mono by the memory probe's net472 build, over https with the mock's RSA certificate, the full
and the partial read also over http (scripts/verify.d/mono.sh runs them into OUT/results-mono/).

    section(results_dir, build_notes=None) -> (markdown lines, targets, correctness failures)

build_notes: what `scripts/patch publish -f net472 --build-notes` recorded for the patched driver's net472 build (the
overrides and substitutions this machine's NuGet source needed), shown in the section.

Power BI Desktop runs the driver on .NET Framework 4.7.2; this machine has no .NET Framework, and Debian's Mono 6.8 runs
net472 assemblies with .NET Framework's class libraries (reimplemented) on a different runtime. Every figure is the
median of the interleaved runs. The targets are issue 33's; like the host scenarios' they are goals: a miss is reported
here (and in summary.json as monoTargets) and does not change verify's exit status. Correctness failures do.
"""
import core
from core import MB, Section, fmt
from verify_notes import describe_substitution

LIMITS = core.TARGETS["mono"]

FULL_READ = "mono-full-read"
PARTIAL_READ = "mono-partial-read"
# The same over http: beside the https columns they set apart what Mono's TLS allocates (the targets stay on https).
FULL_READ_HTTP = "mono-full-read-http"
PARTIAL_READ_HTTP = "mono-partial-read-http"
ONE_QUERY = "mono-one-query"
FOUR_ON_ONE = "mono-concurrent-4-on-1"

FULL_COLLECTIONS = ("Full collections", "fullCollections", "")

FULL_READ_METRICS = core.rows(
    "peakWorkingSetBytes",
    ("Full collections (Mono: major collections)", "fullCollections", ""),
    ("Minor collections (nursery)", "gen0Collections", ""),
    "wallSeconds", "rowsPerSecond", "firstBatchSeconds", "longestBatchWaitSeconds",
    ("Peak GC heap (sampled)", "peakGcHeapBytes", "MB"),
    "gcHeapAfterDisposeDeltaBytes", "gcHeapAfterDisposeDatabaseKeptDeltaBytes",
    ("Values checked", "valuesChecked", ""))

PARTIAL_READ_METRICS = core.rows(
    "peakWorkingSetBytes", "peakWorkingSetAboveBeforeOpenBytes", FULL_COLLECTIONS,
    "heapRightAfterDispose", "heapTwoSecondsAfterDispose",
    ("Dispose (reader, statement, connection, database)", "partial-read.disposeSeconds", "ms"),
    "downloadsStartedAfterDispose", "bytesSentAfterDispose")

CONCURRENT_METRICS = core.rows(
    "peakWorkingSetBytes", "peakWorkingSetAboveBeforeOpenBytes", FULL_COLLECTIONS, "wallSeconds", "gcHeapAfterDisposeDeltaBytes")

NOT_MEASURED = [
    "Total allocated bytes: Mono's class libraries count only the calling thread's allocations "
    "(`GC.GetAllocatedBytesForCurrentThread`); there is no process-wide counter (`GC.GetTotalAllocatedBytes` is .NET Core's).",
    "Why each full collection ran, and bytes allocated on the large object heap: the probe reads them from the runtime's GC "
    "events, which Mono does not send (no `Microsoft-Windows-DotNETRuntime` event source); and no `dotnet-counters` "
    "recording (Mono has no EventPipe). `MONO_LOG_LEVEL=debug MONO_LOG_MASK=gc` prints each collection with its cause "
    "(docs/decisions.md uses it).",
    "The GC's committed memory (`GC.GetGCMemoryInfo`, .NET Core's), and a heap dump (`--heap-report` reads .NET dumps).",
]

NOT_TOLD = [
    "Mono's collector (SGen) is not .NET Framework's: two generations (a 4 MiB nursery and a major heap) and a large object "
    "space from 8,000 bytes, where .NET Framework has three generations and a large object heap from 85,000 bytes. A full "
    "collection here is an SGen major collection, started when the major heap or the large object space has grown by its "
    "allowance; on .NET Framework the same allocations make Gen0/Gen1 collections and fewer Gen2s, and buffers between "
    "8,000 and 85,000 bytes are not large objects there.",
    "TLS and HTTP are Mono's (BoringSSL through btls, its own HttpClientHandler), not Schannel and .NET Framework's "
    "HttpWebRequest stack: the https cost, the buffers of the HTTP stack and the time to first batch differ. Mono's TLS "
    "stream allocates two fresh 16.5 KB buffers on every read, which returns one TLS record at most (against the mock, "
    "about 8 bytes of large objects per byte of body, the same for both drivers); .NET Framework's SslStream keeps one "
    "buffer per stream (from a shared cache, and 16 KB is no large object there). The http columns leave it out.",
    "The resident set on Linux is not a Windows working set (Windows trims and counts shared pages differently), and the "
    "thread pool and timer implementations are Mono's.",
    "What carries over: the class libraries' behaviour the driver relies on (a body read that ignores cancellation, "
    "no `GC.GetGCMemoryInfo`, `CancellationTokenRegistration.Dispose` only), the netstandard2.0/net462 builds of "
    "Apache.Arrow and K4os the driver loads there, and which driver allocates what and how much it keeps.",
]


def section(results_dir, build_notes=None):
    groups = core.group(core.load(results_dir))
    s = Section(groups)
    runtime = next((run.get("gc", {}).get("runtimeName") or run.get("runtime") for runs in groups.values() for run in runs
                    if (run.get("gc", {}).get("runtimeName") or run.get("runtime"))), "Mono")
    s.lines += ["## Mono 6.8, the .NET Framework 4.7.2 stand-in", "",
                "Power BI Desktop runs the driver on .NET Framework 4.7.2. This machine has none: the net472 builds of the "
                f"stock and patched drivers run here under {runtime}, which runs net472 assemblies with its own .NET "
                "Framework class libraries, by the memory probe's net472 build, over https with the mock's RSA certificate "
                "(what a warehouse presents; Mono 6.8 cannot read ECDSA certificates), every value checked, stock and "
                "patched interleaved in their own processes; medians.", ""]
    if build_notes is not None:
        overrides, substitutions = build_notes.get("overrides") or [], build_notes.get("substitutions") or []
        s.lines += ["Both net472 drivers were built by `scripts/patch publish -f net472 --fit-nuget-source`"
                    + (", which added:" if overrides else " with no override.")]
        s.lines += [""] + [f"- `{o['argument']}`: {o['reason']}" for o in overrides] if overrides else []
        s.lines += [""] + [f"- {describe_substitution(x)}" for x in substitutions] if substitutions else []
        s.lines.append("")
    if not groups:
        s.lines += ["No run under Mono finished (the verify log says why).", ""]
    full_read, partial_read = with_http(groups, FULL_READ, FULL_READ_HTTP), with_http(groups, PARTIAL_READ, PARTIAL_READ_HTTP)
    if full_read:
        s.lines += ["### Full read", ""]
        if FULL_READ_HTTP in full_read:
            s.lines += [f"`{FULL_READ_HTTP}` is the same read over http: Mono's TLS stream allocates two fresh 16.5 KB "
                        "buffers on every read (`BufferOffsetSize2.Reset`), which Mono's collector counts as large objects "
                        "(from 8,000 bytes), the same for both drivers; over http what is left is the drivers' own. The "
                        "targets are on https. The wall times include checking every value, which under Mono takes most "
                        "of them (docs/decisions.md).", ""]
        s.side_by_side(full_read, FULL_READ_METRICS)
        s.runs_line(full_read)
    if partial_read:
        s.lines += ["### Partial read", "",
                    "The first batch of the same result, then everything disposed at once, each file sent at the "
                    "partial-read rate (as the host scenario `partial-read`).", ""]
        s.side_by_side(partial_read, PARTIAL_READ_METRICS)
        s.runs_line(partial_read)
    if any(groups.get((d, c)) for d in ("stock", "patched") for c in (ONE_QUERY, FOUR_ON_ONE)):
        s.lines += ["### 4 queries at once on one database", "",
                    "Four queries of a quarter of the rows (four data sets) at once on one database, each on its own "
                    f"connection and thread (`{FOUR_ON_ONE}`); `{ONE_QUERY}` is one of them alone.", ""]
        s.side_by_side((ONE_QUERY, FOUR_ON_ONE), CONCURRENT_METRICS)
        s.runs_line((ONE_QUERY, FOUR_ON_ONE))
    targets(s)
    s.lines += ["### Targets on Mono", ""] + core.target_rows(s.targets)
    s.lines += ["", "Goals: a miss is reported, it does not change verify's exit status (Mono is a stand-in).", ""]
    s.lines += ["### What Mono cannot measure", ""] + [f"- {line}" for line in NOT_MEASURED] + [""]
    s.lines += ["### What Mono cannot tell about .NET Framework", ""] + [f"- {line}" for line in NOT_TOLD] + [""]
    failures = [f"Mono: {f}" for f in core.correctness(groups)]
    s.lines += ["### Mono correctness", ""]
    s.lines += ["Every row each run read was checked against the data set generator; the patched driver's pools were back to "
                "zero in use and zero retained after dispose."] if not failures else [f"- {f}" for f in failures]
    return s.lines + [""], s.targets, failures


def with_http(groups, scenario, http_scenario):
    """The scenario and its http twin, each where a driver ran it."""
    return tuple(c for c in (scenario, http_scenario) if groups.get(("stock", c)) or groups.get(("patched", c)))


def targets(s):
    """The Mono section's targets (limits: targets.json's mono), on the medians of the Mono runs."""
    s.peak_target("full read: peak working set vs stock", FULL_READ, "peakWorkingSetBytes", LIMITS["fullReadPeakWorkingSetVsStock"])
    stock, patched = s.med("stock", FULL_READ, "fullCollections"), s.med("patched", FULL_READ, "fullCollections")
    s.target("full read: full collections vs stock", "<= stock's",
             f"{patched:.0f} vs {stock:.0f}" if stock is not None and patched is not None else "n/a",
             stock is not None and patched is not None and patched <= stock)
    s.ratio_target("full read: wall time vs stock", ("patched", FULL_READ, "wallSeconds"), ("stock", FULL_READ, "wallSeconds"),
                   LIMITS["fullReadWallTimeVsStock"], unit="s", digits=3)
    within = LIMITS["fullReadGcHeapAfterDisposeWithinMB"]
    delta = s.med("patched", FULL_READ, "gcHeapAfterDisposeDeltaBytes")
    s.target("full read: GC heap after dispose vs before open (patched)", f"within {within} MB", fmt(delta, "MB"),
             delta is not None and abs(delta) <= within * MB)
    runs = [run for d in ("stock", "patched") for run in s.runs(d, FULL_READ)]
    right = all(run.get("rowsVerified") and run.get("valueErrors", 1) == 0 and run.get("sampleEvery") == 1 for run in runs)
    s.target("full read: every value checked and right (every run)", "all",
             f"{sum(1 for run in runs if run.get('rowsVerified') and run.get('valueErrors', 1) == 0)} of {len(runs)} runs" if runs else "n/a",
             bool(runs) and right)
    patched_runs = s.runs("patched", FULL_READ)
    empty = all((run.get("overlayMetrics") or {}).get("inUseBytes", 1) == 0 and (run.get("overlayMetrics") or {}).get("retainedBytes", 1) == 0
                for run in patched_runs)
    s.target("full read: pools in use and retained after dispose (patched, every run)", "0",
             "0" if patched_runs and empty else ("n/a" if not patched_runs else "not 0"), bool(patched_runs) and empty)
    s.peak_target("partial read: peak working set above before open vs stock", PARTIAL_READ, "peakWorkingSetAboveBeforeOpenBytes",
                  LIMITS["partialReadPeakAboveBeforeOpenVsStock"])
    s.ratio_target("4 queries at once on one database, peak above before open vs one query (patched)",
                   ("patched", FOUR_ON_ONE, "peakWorkingSetAboveBeforeOpenBytes"), ("patched", ONE_QUERY, "peakWorkingSetAboveBeforeOpenBytes"),
                   LIMITS["fourQueriesOnOneDatabasePeakAboveBeforeOpenVsOneQuery"])
