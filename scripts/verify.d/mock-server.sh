# Sourced by scripts/verify and the benchmark scripts that run the memory probe. Starts a built mock server
# (MockDatabricks.Server.dll) on a free port of 127.0.0.1 and waits until it answers /health.
#
#   start_mock_server DLL LOG [server options...]
#
# Sets mock_pid and mock_url; returns 1 (after printing the log's tail) when the server does not come up within
# ~30 s. The caller owns the process: kill "$mock_pid" when done (a trap on EXIT).
start_mock_server() {
    local dll="$1" log="$2"
    shift 2
    dotnet "$dll" --port 0 "$@" >"$log" 2>&1 &
    mock_pid=$!
    mock_url=""
    for _ in $(seq 1 100); do
        mock_url="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" | head -n 1 || true)"
        [ -n "$mock_url" ] && curl -fsS "$mock_url/health" >/dev/null 2>&1 && return 0
        mock_url=""
        sleep 0.3
    done
    tail "$log" >&2
    return 1
}
