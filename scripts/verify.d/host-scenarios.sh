# Sourced by scripts/verify. What a Power BI host does besides one full read (issue 16), each scenario run stock and
# patched interleaved, --runs times, by the memory probe (integration-tests/MemoryProbe, --workload): results go to
# OUT/results-host/DRIVER-SCENARIO-RUN.json and counter recordings beside the others in OUT/counters/; the report
# adds a "Host scenarios" section (scripts/report/host_scenarios.py). The scenarios and why each is shaped as it is:
#
#   partial-read         first batch of the ~1 GB result, then reader, statement, connection and database disposed at
#                        once, with each file sent at --partial-read-bps (a real network: downloads are in flight then)
#   partial-read-held    the same, the reader kept 1 s after its first batch (the pipeline fills up meanwhile)
#   one-query            one query of a quarter of the rows (seed 1), every value checked: the concurrent baseline
#   sequential-4         four such queries one after another on one database (seeds 1-4): the wall-time baseline
#   concurrent-4-on-1    the four at once on one database (one memory scope), each on its own connection
#   concurrent-4-dbs     the four at once, one database each
#   concurrent-16-on-1   sixteen queries of a sixteenth of the rows (seeds 1-16) at once on one database whose memory
#                        budget is 32 MiB (adbc.databricks.memory.budget_mb; stock ignores it): every value checked, no
#                        query starves, and what the database holds in use stays within the budget plus one file per
#                        reader (the rule that lets every reader progress)
#   long-lived           100 queries of a twentieth of the rows on one database kept open (80 warm-up queries of the
#                        same size first, through their own databases: a fresh process's tiered JIT grew the working
#                        set by ~10 % over its first 100 queries, which a process that has run for hours is past;
#                        every value checked, as in the other multi-query scenarios: checking every 1000th, the
#                        warm-up left the patched process ~12 MB below the working set it settles at, and the drift
#                        and trim figures measured that settling, not the driver), then idle past the pools' trim
#                        period (--idle-trim-seconds, given to both drivers; stock ignores it)
#   wide-16x16           the full result with parallel downloads and prefetch at 16 and a 400 MB download budget
#                        (the JDBC-like settings of adbc-drivers/databricks PR #377)
#
# Uses from scripts/verify: probe (function), results, counters, out, rows, runs, mock_url, repo_root, log_dir,
# build_notes; and the options below, which verify parses.
partial_read_bps=16777216
idle_trim_seconds=10
small_budget_mb=32

# Every data set the host scenarios read, prepared before the timed runs (one statement per line from the probe).
prepare_host_datasets() {
    local dll="$out/probe/patched/MemoryProbe.dll" statement
    {
        dotnet "$dll" --workload partial-read --rows "$rows" --print-statement
        dotnet "$dll" --workload concurrent --queries 4 --rows $((rows / 4)) --print-statement
        dotnet "$dll" --workload concurrent --queries 16 --rows $((rows / 16)) --print-statement
        dotnet "$dll" --workload sequential --queries 100 --rows $((rows / 20)) --print-statement
    } | sort -u | while IFS= read -r statement; do
        prepare_statement "$statement" || true
    done
}

# run_host_scenarios: every scenario above, stock then patched, run by run. Sets host_results (a global: the report
# step passes it to the report writer).
run_host_scenarios() {
    local run driver
    host_results="$out/results-host"
    rm -rf "$host_results"
    mkdir -p "$host_results"
    for run in $(seq 1 "$runs"); do
        for driver in stock patched; do
            results="$host_results" host_probe "$driver" "$run"
        done
    done
}

host_probe() {
    local driver="$1" run="$2" quarter=$((rows / 4)) twentieth=$((rows / 20))
    probe "$driver" partial-read "$rows" "$run" --workload partial-read --hold-ms 0 --download-bps "$partial_read_bps"
    probe "$driver" partial-read-held "$rows" "$run" --workload partial-read --hold-ms 1000 --download-bps "$partial_read_bps"
    probe "$driver" one-query "$quarter" "$run" --workload concurrent --queries 1 --sample-every 1
    probe "$driver" sequential-4 "$quarter" "$run" --workload sequential --queries 4 --sample-every 1
    probe "$driver" concurrent-4-on-1 "$quarter" "$run" --workload concurrent --queries 4 --databases 1 --sample-every 1
    probe "$driver" concurrent-4-dbs "$quarter" "$run" --workload concurrent --queries 4 --databases 4 --sample-every 1
    probe "$driver" concurrent-16-on-1 $((rows / 16)) "$run" --workload concurrent --queries 16 --databases 1 --sample-every 1 \
        --property "adbc.databricks.memory.budget_mb=$small_budget_mb"
    probe "$driver" long-lived "$twentieth" "$run" --workload sequential --queries 100 --warmup-queries 80 --warmup-rows "$twentieth" \
        --sample-every 1 --idle-seconds $((idle_trim_seconds + 5)) --property "adbc.databricks.memory.buffer_pool_idle_trim_seconds=$idle_trim_seconds"
    probe "$driver" wide-16x16 "$rows" "$run" --property adbc.databricks.cloudfetch.parallel_downloads=16 \
        --property adbc.databricks.cloudfetch.prefetch_count=16 --property adbc.databricks.cloudfetch.memory_buffer_size_mb=400
}
