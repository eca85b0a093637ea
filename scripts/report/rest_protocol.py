"""The report's "REST protocol" section: the full read and the partial read over the driver's Statement Execution REST
API (`adbc.databricks.protocol=rest`), stock vs patched, from the memory probe's runs against the mock over https
(scripts/verify.d/rest-protocol.sh runs them into OUT/results-rest/).

    section(results_dir) -> (markdown lines, correctness failures)

The metrics are the Thrift path's (allocated, Gen2, heap after dispose, peak working set, wall time), medians of the
interleaved runs. No target is judged here: issue 20's ratios were set for the Thrift path, and the REST figures are
shown beside them; every row read is still checked, and the patched driver's pools must be back to zero.
"""
import core
from core import Section

FULL_READ_PREFIX = "rest-cloudfetch"
PARTIAL_READ = "rest-partial-read"

FULL_READ_METRICS = core.rows(
    "allocatedBytes", "gen2Collections", "peakGcHeapBytes", "peakWorkingSetBytes", "gcHeapAfterDisposeDeltaBytes",
    "gcHeapAfterDisposeDatabaseKeptDeltaBytes", "wallSeconds", "rowsPerSecond", "firstBatchSeconds")

PARTIAL_READ_METRICS = core.rows(
    "allocatedBytes", "gen2Collections", "peakWorkingSetBytes", "peakWorkingSetAboveBeforeOpenBytes",
    "heapRightAfterDispose", "heapTwoSecondsAfterDispose",
    ("Wall time (open, first batch, dispose, settle)", "wallSeconds", "s"),
    "downloadsStartedAfterDispose", "bytesSentAfterDispose", "poolBytesInUseRightAfterDispose")


def section(results_dir):
    groups = core.group(core.load(results_dir))
    s = Section(groups)
    full = sorted({scenario for _, scenario in groups if scenario.startswith(FULL_READ_PREFIX)})
    s.lines += ["## REST protocol (Statement Execution API)", "",
                "The same reads over `adbc.databricks.protocol=rest`: the driver's `StatementExecutionConnection` against "
                "the mock's REST API, over https (the REST path calls https://<host> only; the mock's generated certificate "
                "is trusted), CloudFetch `EXTERNAL_LINKS` with LZ4, stock and patched interleaved in their own probe "
                "processes, medians. Informational: the goals above were set for the Thrift path.", ""]
    if full:
        s.lines += ["### Full read", ""]
        s.side_by_side(full, FULL_READ_METRICS)
        s.runs_line(full)
    if groups.get(("stock", PARTIAL_READ)) or groups.get(("patched", PARTIAL_READ)):
        s.lines += ["### Partial read", "",
                    "The first batch, then reader, statement, connection and database disposed at once, each file sent at "
                    "the partial-read rate (as in the Thrift host scenario `partial-read`).", ""]
        s.side_by_side((PARTIAL_READ,), PARTIAL_READ_METRICS)
        s.runs_line((PARTIAL_READ,))
    failures = [f"REST: {f}" for f in core.correctness(groups)]
    s.lines += ["### REST correctness", ""]
    s.lines += ["Every row each REST run read was checked against the data set generator; the patched driver's pools were "
                "back to zero in use and zero retained after dispose."] if not failures else [f"- {f}" for f in failures]
    return s.lines + [""], failures
