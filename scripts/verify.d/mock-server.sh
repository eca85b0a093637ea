# Sourced by scripts/verify and the benchmark scripts that run the memory probe. Starts a built mock server
# (MockDatabricks.Server.dll) on a free port of 127.0.0.1 and waits until it answers /health.
#
#   start_mock_server DLL LOG [server options...]
#   start_https_mock_server DLL LOG CERT_PEM [server options...]
#
# start_mock_server serves http and sets mock_pid and mock_url. start_https_mock_server serves https with a certificate
# the server generates, writes that certificate's PEM to CERT_PEM (clients trust exactly it), and sets https_mock_pid
# and https_mock_url: the driver's REST (Statement Execution) path always calls https://<hostName>, so the REST runs and
# upstream's tests need it, while the Thrift measurements stay on http as before. Each returns 1 (after printing the
# log's tail) when the server does not come up within ~30 s. The caller owns the process: kill it when done (a trap on
# EXIT).
start_mock_server() {
    local dll="$1" log="$2"
    shift 2
    local status=0
    launch_mock_server "$dll" "$log" "" "$@" || status=1
    mock_pid="$launched_pid" mock_url="$launched_url"  # the pid also on failure: the caller's trap stops the process
    return "$status"
}

start_https_mock_server() {
    local dll="$1" log="$2" cert="$3"
    shift 3
    rm -f "$cert"
    local status=0
    launch_mock_server "$dll" "$log" "$cert" --https --tls-cert-out "$cert" "$@" || status=1
    https_mock_pid="$launched_pid" https_mock_url="$launched_url"
    return "$status"
}

# launch_mock_server DLL LOG CERT_PEM_OR_EMPTY [server options...]: sets launched_pid and launched_url.
launch_mock_server() {
    local dll="$1" log="$2" cert="$3" trust=()
    shift 3
    [ -n "$cert" ] && trust=(--cacert "$cert")
    dotnet "$dll" --port 0 "$@" >"$log" 2>&1 &
    launched_pid=$!
    launched_url=""
    for _ in $(seq 1 100); do
        launched_url="$(grep -oE 'https?://127\.0\.0\.1:[0-9]+' "$log" | head -n 1 || true)"
        [ -n "$launched_url" ] && curl -fsS "${trust[@]}" "$launched_url/health" >/dev/null 2>&1 && return 0
        launched_url=""
        sleep 0.3
    done
    tail "$log" >&2
    return 1
}
