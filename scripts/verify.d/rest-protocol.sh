# Sourced by scripts/verify. The full read and the partial read over the driver's REST protocol (the Statement
# Execution API, adbc.databricks.protocol=rest: adbc-drivers/databricks only; apache/arrow-adbc's driver has only the
# Thrift path), stock and patched interleaved, --runs times each, by the memory probe (--protocol rest) against the
# https mock (the REST path calls https://<hostName> only). Results go to OUT/results-rest/DRIVER-SCENARIO-RUN.json
# and counter recordings beside the others in OUT/counters/; the report adds a "REST protocol" section
# (scripts/report/rest_protocol.py) with the Thrift path's metrics.
#
#   rest-cloudfetch-Nm   the full read: the ~1 GB CloudFetch result (--rows), every --sample-every-th row checked
#   rest-partial-read    the first batch of it, then everything disposed at once, each file sent at
#                        --partial-read-bps (the Thrift host scenario partial-read, over REST)
#
# Uses from scripts/verify: probe (function), out, rows, runs, https_mock_url, https_mock_cert, partial_read_bps,
# log_dir, build_notes, repo_root.

# run_rest_probes: sets rest_results (a global: the report step passes it to the report writer).
run_rest_probes() {
    local run driver statement rest=(--protocol rest --trusted-certificate "$https_mock_cert")
    rest_results="$out/results-rest"
    rm -rf "$rest_results"
    mkdir -p "$rest_results"
    # The same result as the Thrift runs, prepared on the https mock before the timed runs.
    statement="$(dotnet "$out/probe/patched/MemoryProbe.dll" --rows "$rows" --print-statement)"
    prepare_statement "$statement" "$https_mock_url" "$https_mock_cert" || true
    for run in $(seq 1 "$runs"); do
        for driver in stock patched; do
            mock_url="$https_mock_url" results="$rest_results" probe "$driver" "rest-cloudfetch-$((rows / 1000000))m" "$rows" "$run" "${rest[@]}"
        done
        for driver in stock patched; do
            mock_url="$https_mock_url" results="$rest_results" probe "$driver" rest-partial-read "$rows" "$run" "${rest[@]}" \
                --workload partial-read --hold-ms 0 --download-bps "$partial_read_bps"
        done
    done
}
