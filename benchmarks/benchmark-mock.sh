# Sourced by the benchmarks' run.sh scripts that measure with a finished scripts/verify run's builds (after
# scripts/verify.d/mock-server.sh). start_benchmark_mock: a scratch folder $out (with results/) and that run's mock
# server on it, with a result cache large enough for verify's ~1 GB result; both go away when the script exits.
start_benchmark_mock() {
    out="$(mktemp -d)"
    mock_pid=""
    trap 'if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; fi; rm -rf "$out"' EXIT
    mkdir -p "$out/results"
    start_mock_server "$verify_out/mock/MockDatabricks.Server.dll" "$out/mock.log" --cache-mb 4096 \
        || { echo "run.sh: the mock server did not start" >&2; exit 1; }
}
