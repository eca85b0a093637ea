# Sourced by scripts/verify. The net472 builds of the stock and patched drivers measured under Mono 6.8 (Debian's
# mono-complete), the .NET Framework 4.7.2 stand-in: Power BI Desktop runs the driver on .NET Framework 4.7.2 (issue
# 33). The memory probe's net472 build (integration-tests/MemoryProbe, -p:ProbeTargetFramework=net472) runs under mono
# against a mock of its own serving https with an RSA certificate (what a warehouse presents; Mono 6.8 cannot read the
# default ECDSA one), stock and patched interleaved, --runs times, every value checked; the full and the partial read
# also over http (the Thrift runs' mock) unless --skip-mono-http: beside the https figures they set apart what Mono's
# TLS adds (its stream allocates fresh 16.5 KB buffers on every read, large objects to Mono) from what the drivers
# allocate. Results go to OUT/results-mono/DRIVER-SCENARIO-RUN.json; the report adds the section "Mono 6.8, the .NET
# Framework 4.7.2 stand-in" (scripts/report/mono_runtime.py). No dotnet-counters recording: Mono has no EventPipe.
#
#   mono-full-read           the ~1 GB CloudFetch result (--rows)
#   mono-partial-read        its first batch, then everything disposed at once, each file sent at --partial-read-bps
#   mono-full-read-http, mono-partial-read-http   the same two over http
#   mono-one-query           a quarter of the rows (seed 1): the baseline of the next
#   mono-concurrent-4-on-1   four such queries (seeds 1-4) at once on one database, each on its own connection
#
# Uses from scripts/verify: adbc, stock_src, out, rows, runs, repo_root, log_dir, fit_args, partial_read_bps, mock_url,
# skip_mono_http, failed, quietly, prepare_statement, launch_mock_server, mock_cache_mb_for; sets mono_results and
# mono_build_notes (the report step passes them on) and mono_mock_pid (verify's cleanup stops it).

# mono_publish_drivers: the one place the net472 drivers are built, as `scripts/patch pack` builds that target
# (scripts/patch publish -f net472 --fit-nuget-source, which names and records what the NuGet source lacks). Returns 1
# when either does not build; the log says why.
mono_publish_drivers() {
    mono_build_notes="$out/build-notes-net472.json"
    "$repo_root/scripts/verify.d/build_notes.py" "$mono_build_notes" init
    local driver source extra
    for driver in patched stock; do
        if [ "$driver" = patched ]; then source="$adbc" extra=(--build-notes "$mono_build_notes"); else source="$stock_src" extra=(--allow-unpatched); fi
        rm -rf "$out/drivers-net472/$driver"
        if ! "$repo_root/scripts/patch" publish --adbc "$source" -f net472 "${fit_args[@]}" "${extra[@]}" \
            -o "$out/drivers-net472/$driver" >"$log_dir/publish-net472-$driver.log" 2>&1; then
            tail -n 20 "$log_dir/publish-net472-$driver.log" >&2
            echo "verify: the $driver driver did not build for net472 (log: $log_dir/publish-net472-$driver.log)" >&2
            return 1
        fi
        grep -E '^  (override|NuGet:)' "$log_dir/publish-net472-$driver.log" | sed "s/^/  $driver net472: /" || true
    done
}

run_mono_section() {
    mono_results="$out/results-mono"
    rm -rf "$mono_results"
    mkdir -p "$mono_results"
    command -v mono >/dev/null 2>&1 || { echo "verify: mono is not installed (scripts/prerequisites.sh installs mono-complete)" >&2; failed=1; return 0; }
    echo "runtime: $(mono --version | head -n 1)"
    if ! mono_publish_drivers; then
        failed=1
        return 0
    fi
    local driver
    for driver in stock patched; do
        quietly "probe-net472-$driver" dotnet build "$repo_root/integration-tests/MemoryProbe" -c Release -p:ProbeTargetFramework=net472 \
            -p:DriverDir="$out/drivers-net472/$driver" -o "$out/probe-net472/$driver" -nologo
    done

    local cert="$out/mock-rsa/certificate.pem" quarter=$((rows / 4)) run statement
    mkdir -p "$out/mock-rsa"
    rm -f "$cert"
    # Its own mock: the one the Thrift runs use serves http, the REST runs' https one an ECDSA certificate.
    launch_mock_server "$out/mock/MockDatabricks.Server.dll" "$log_dir/mock-rsa.log" "$cert" --https --tls-cert-out "$cert" \
        --tls-key rsa --cache-mb "$(mock_cache_mb_for "$rows")" || { failed=1; return 0; }
    mono_mock_pid="$launched_pid"
    local url="$launched_url"
    echo "https mock server (RSA certificate): $url"
    {
        mono "$out/probe-net472/patched/MemoryProbe.exe" --rows "$rows" --print-statement
        mono "$out/probe-net472/patched/MemoryProbe.exe" --workload concurrent --queries 4 --rows "$quarter" --print-statement
    } | sort -u | while IFS= read -r statement; do
        prepare_statement "$statement" "$url" "$cert" || true
    done

    for run in $(seq 1 "$runs"); do
        for driver in stock patched; do
            mono_probe "$driver" mono-full-read "$rows" "$run" "$url" "$cert"
        done
        if [ "$skip_mono_http" -eq 0 ]; then  # the Thrift runs' mock: step 8 prepared this result there
            for driver in stock patched; do
                mono_probe "$driver" mono-full-read-http "$rows" "$run" "$mock_url" ""
                mono_probe "$driver" mono-partial-read-http "$rows" "$run" "$mock_url" "" --workload partial-read --hold-ms 0 --download-bps "$partial_read_bps"
            done
        fi
        for driver in stock patched; do
            mono_probe "$driver" mono-partial-read "$rows" "$run" "$url" "$cert" --workload partial-read --hold-ms 0 --download-bps "$partial_read_bps"
            mono_probe "$driver" mono-one-query "$quarter" "$run" "$url" "$cert" --workload concurrent --queries 1
            mono_probe "$driver" mono-concurrent-4-on-1 "$quarter" "$run" "$url" "$cert" --workload concurrent --queries 4 --databases 1
        done
    done
    kill "$mono_mock_pid" 2>/dev/null || true
    mono_mock_pid=""
}

# mono_probe DRIVER SCENARIO ROWS RUN URL CERT [probe options...]: one run of the net472 probe under mono (CERT empty: http).
mono_probe() {
    local driver="$1" scenario="$2" probe_rows="$3" run="$4" url="$5" cert="$6" trust=()
    shift 6
    local name="$driver-$scenario-$run"
    if [ -n "$cert" ]; then trust=(--trusted-certificate "$cert"); fi
    if ! mono "$out/probe-net472/$driver/MemoryProbe.exe" --mock-url "$url" ${trust[@]+"${trust[@]}"} --label "$driver" \
        --scenario "$scenario" --rows "$probe_rows" --sample-every 1 --output "$mono_results/$name.json" "$@" \
        >"$log_dir/mono-$name.log" 2>&1; then
        echo "  $name: FAILED (log: $log_dir/mono-$name.log)" >&2
        failed=1
    fi
    tail -n 1 "$log_dir/mono-$name.log"
}
