# Sourced by the benchmarks' run.sh scripts that measure with a finished scripts/verify run's builds; sources verify's
# mock-server.sh and prepare-datasets.sh (set repo_root first).
#   require_verify_probes DRIVER...: --verify-out was given and its probe/DRIVER/MemoryProbe.dll exists for each DRIVER.
#   start_benchmark_mock: a scratch folder $out (with results/) and that run's mock server on it, with a result cache
#   large enough for verify's ~1 GB result; both go away when the script exits.
source "$repo_root/scripts/verify.d/mock-server.sh"
source "$repo_root/scripts/verify.d/prepare-datasets.sh"

require_verify_probes() {
    [ -n "$verify_out" ] || { echo "run.sh: --verify-out DIR is required (a scripts/verify --out folder)" >&2; exit 2; }
    local driver
    for driver in "$@"; do
        [ -f "$verify_out/probe/$driver/MemoryProbe.dll" ] || { echo "run.sh: $verify_out/probe/$driver/MemoryProbe.dll is missing" >&2; exit 2; }
    done
}

start_benchmark_mock() {
    out="$(mktemp -d)"
    mock_pid=""
    trap 'if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; fi; rm -rf "$out"' EXIT
    mkdir -p "$out/results"
    start_mock_server "$verify_out/mock/MockDatabricks.Server.dll" "$out/mock.log" --cache-mb 4096 \
        || { echo "run.sh: the mock server did not start" >&2; exit 1; }
}
