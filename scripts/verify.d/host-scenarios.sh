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
# And issue 34's, where the consumer or the network is the bottleneck, each run by three drivers side by side
# (stock, patched, and for the network scenarios stock-wide: the stock build with upstream's own connection properties
# at the wide settings, 16 parallel downloads, a prefetch of 16 and a 400 MB memory buffer), one query each (the
# concurrent workload with one query), a scenario's drivers one after another in each run:
#
#   consumer-heavy            a quarter of the rows, every value converted and checked (--sample-every 1), as a Power
#                             BI mashup engine converts every value: the consumer is the bottleneck
#   consumer-heavy-contended  the same while another process keeps one core busy (a shell loop started before the probe
#                             and ended by its pid after it; its CPU time goes into the run's JSON), as a host's other
#                             evaluations do
#   network-loopback          the full result at loopback speed, every --sample-every-th row checked (as the full read:
#                             checking every value would make the consumer the bottleneck again): the network
#                             scenarios' baseline
#   network-per-stream        the same with each file sent at 16 MiB/s after 50 ms to its first byte (the mock's
#                             throttle and slow faults): downloads in flight set the pace
#   network-shared-link       the same with every download sharing one 64 MiB/s link (the mock's link fault): more
#                             downloads in flight cannot go faster than the link
#
# HOST_SCENARIOS (a global verify sets from --host-scenarios, comma-separated) limits the run to those scenarios.
# Uses from scripts/verify: probe (function), results, counters, out, rows, runs, mock_url, repo_root, log_dir,
# build_notes, sample_every; and the options below, which verify parses.
partial_read_bps=16777216
idle_trim_seconds=10
small_budget_mb=32
per_stream_bps=16777216
first_byte_ms=50
shared_link_bps=67108864
# Upstream's connection properties (DatabricksParameters.CloudFetchParallelDownloads, .CloudFetchPrefetchCount,
# .CloudFetchMemoryBufferSize) at the wide settings: the wide-16x16 scenario and the stock-wide driver.
wide_properties=(--property adbc.databricks.cloudfetch.parallel_downloads=16 --property adbc.databricks.cloudfetch.prefetch_count=16
    --property adbc.databricks.cloudfetch.memory_buffer_size_mb=400)
host_scenario_names=(partial-read partial-read-held one-query sequential-4 concurrent-4-on-1 concurrent-4-dbs concurrent-16-on-1
    long-lived wide-16x16 consumer-heavy consumer-heavy-contended network-loopback network-per-stream network-shared-link)
HOST_SCENARIOS="${HOST_SCENARIOS:-}"
contention_pid=""

# wanted SCENARIO...: true when any of them is to run (all are, without --host-scenarios).
wanted() {
    local name
    [ -z "$HOST_SCENARIOS" ] && return 0
    for name in "$@"; do
        case ",$HOST_SCENARIOS," in *",$name,"*) return 0 ;; esac
    done
    return 1
}

# check_host_scenarios: every name of --host-scenarios is a scenario (verify calls it before building anything).
check_host_scenarios() {
    local name
    for name in ${HOST_SCENARIOS//,/ }; do
        case " ${host_scenario_names[*]} " in
            *" $name "*) ;;
            *) echo "verify: error: unknown host scenario '$name' (known: ${host_scenario_names[*]})" >&2; return 1 ;;
        esac
    done
}

# Every data set the host scenarios read, prepared before the timed runs (one statement per line from the probe).
prepare_host_datasets() {
    local dll="$out/probe/patched/MemoryProbe.dll" statement
    {
        if wanted partial-read partial-read-held wide-16x16 network-loopback network-per-stream network-shared-link; then
            dotnet "$dll" --workload partial-read --rows "$rows" --print-statement
        fi
        if wanted one-query sequential-4 concurrent-4-on-1 concurrent-4-dbs consumer-heavy consumer-heavy-contended; then
            dotnet "$dll" --workload concurrent --queries 4 --rows $((rows / 4)) --print-statement
        fi
        if wanted concurrent-16-on-1; then
            dotnet "$dll" --workload concurrent --queries 16 --rows $((rows / 16)) --print-statement
        fi
        if wanted long-lived; then
            dotnet "$dll" --workload sequential --queries 100 --rows $((rows / 20)) --print-statement
        fi
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
        results="$host_results" pipeline_probes "$run"
    done
}

host_probe() {
    local driver="$1" run="$2" quarter=$((rows / 4)) twentieth=$((rows / 20))
    wanted partial-read && probe "$driver" partial-read "$rows" "$run" --workload partial-read --hold-ms 0 --download-bps "$partial_read_bps"
    wanted partial-read-held && probe "$driver" partial-read-held "$rows" "$run" --workload partial-read --hold-ms 1000 --download-bps "$partial_read_bps"
    wanted one-query && probe "$driver" one-query "$quarter" "$run" --workload concurrent --queries 1 --sample-every 1
    wanted sequential-4 && probe "$driver" sequential-4 "$quarter" "$run" --workload sequential --queries 4 --sample-every 1
    wanted concurrent-4-on-1 && probe "$driver" concurrent-4-on-1 "$quarter" "$run" --workload concurrent --queries 4 --databases 1 --sample-every 1
    wanted concurrent-4-dbs && probe "$driver" concurrent-4-dbs "$quarter" "$run" --workload concurrent --queries 4 --databases 4 --sample-every 1
    wanted concurrent-16-on-1 && probe "$driver" concurrent-16-on-1 $((rows / 16)) "$run" --workload concurrent --queries 16 --databases 1 --sample-every 1 \
        --property "adbc.databricks.memory.budget_mb=$small_budget_mb"
    wanted long-lived && probe "$driver" long-lived "$twentieth" "$run" --workload sequential --queries 100 --warmup-queries 80 --warmup-rows "$twentieth" \
        --sample-every 1 --idle-seconds $((idle_trim_seconds + 5)) --property "adbc.databricks.memory.buffer_pool_idle_trim_seconds=$idle_trim_seconds"
    wanted wide-16x16 && probe "$driver" wide-16x16 "$rows" "$run" "${wide_properties[@]}"
    return 0
}

# pipeline_probes RUN: issue 34's scenarios (above), each scenario's drivers one after another.
pipeline_probes() {
    local run="$1" quarter=$((rows / 4)) driver
    local network=(--workload concurrent --queries 1 --sample-every "$sample_every")
    for driver in stock patched; do
        wanted consumer-heavy && probe "$driver" consumer-heavy "$quarter" "$run" --workload concurrent --queries 1 --sample-every 1
    done
    for driver in stock patched; do
        wanted consumer-heavy-contended && contended_probe "$driver" consumer-heavy-contended "$quarter" "$run" \
            --workload concurrent --queries 1 --sample-every 1
    done
    for driver in stock stock-wide patched; do
        wanted network-loopback && pipeline_probe "$driver" network-loopback "$run" "${network[@]}"
    done
    for driver in stock stock-wide patched; do
        wanted network-per-stream && pipeline_probe "$driver" network-per-stream "$run" "${network[@]}" \
            --download-bps "$per_stream_bps" --ttfb-ms "$first_byte_ms"
    done
    for driver in stock stock-wide patched; do
        wanted network-shared-link && pipeline_probe "$driver" network-shared-link "$run" "${network[@]}" --link-bps "$shared_link_bps"
    done
    return 0
}

# pipeline_probe DRIVER SCENARIO RUN [probe options]: the full result; stock-wide is the stock build at the wide settings.
pipeline_probe() {
    local driver="$1" scenario="$2" run="$3"
    shift 3
    if [ "$driver" = stock-wide ]; then
        probe "$driver" "$scenario" "$rows" "$run" "$@" "${wide_properties[@]}"
    else
        probe "$driver" "$scenario" "$rows" "$run" "$@"
    fi
}

# contended_probe DRIVER SCENARIO ROWS RUN [probe options]: the probe run while a shell loop keeps one core busy; the loop
# is ended by its pid (verify's exit trap ends it too), and its CPU time and wall time go into the run's JSON.
contended_probe() {
    local driver="$1" scenario="$2" run="$4" started stat ticks
    sh -c 'while :; do :; done' &
    contention_pid=$!
    started=$(date +%s.%N)
    probe "$@"
    # utime and stime, fields 14 and 15 of /proc/PID/stat (after the command name in parentheses), in clock ticks.
    stat="$(cat "/proc/$contention_pid/stat" 2>/dev/null || true)"
    ticks="$(getconf CLK_TCK)"
    kill "$contention_pid" 2>/dev/null || true
    wait "$contention_pid" 2>/dev/null || true
    contention_pid=""
    python3 - "$results/$driver-$scenario-$run.json" "$stat" "$ticks" "$started" "$(date +%s.%N)" <<'PYTHON' || true
import json, sys
path, stat, ticks, started, ended = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
fields = stat.rsplit(")", 1)[-1].split()
with open(path) as handle:
    run = json.load(handle)
run["contention"] = {"cpuSeconds": (int(fields[11]) + int(fields[12])) / ticks if len(fields) > 12 else None,
                     "wallSeconds": ended - started}
with open(path, "w") as handle:
    json.dump(run, handle, indent=2)
PYTHON
}
