# Sourced by scripts/verify. Before the timed probe runs, asks the mock server to build and cache the CloudFetch
# files of each measured result (POST /admin/datasets/prepare with the exact SQL text the probe sends). Without
# it the first query of a result generates its files inside the probe's timed window: a doubled result then took
# 7x as long as the single one, and the wall time and working-set numbers measured the mock as much as the driver.
# The statement comes from the probe itself (--print-statement), so the two cannot drift apart.
#
# Uses from scripts/verify: mock_url, log_dir, build_notes, repo_root.

# Cache size for the mock when verify starts it: both results (1x and 2x rows) must stay cached across every run.
# Upper bound at ~100 bytes per row uncompressed (the files are LZ4-compressed, so smaller), plus a quarter.
mock_cache_mb_for() {
    local rows="$1"
    local mb=$(( rows * 3 * 100 / 1048576 * 5 / 4 ))
    [ "$mb" -lt 4096 ] && mb=4096
    echo "$mb"
}

# prepare_dataset PROBE_DLL ROWS: prints what the mock prepared; returns 1 when the mock cannot prepare.
prepare_dataset() {
    local probe_dll="$1" rows="$2" statement
    statement="$(dotnet "$probe_dll" --rows "$rows" --print-statement)" \
        || { echo "verify: the probe could not print its statement (needs --print-statement)" >&2; return 1; }
    prepare_statement "$statement"
}

# prepare_statement STATEMENT [URL [CERT_PEM]]: the same for one SQL text, on the mock at URL (default mock_url; an
# https mock's certificate to trust: CERT_PEM).
prepare_statement() {
    local statement="$1" url="${2:-$mock_url}" trust=() body code response
    [ -n "${3:-}" ] && trust=(--cacert "$3")
    body="$(python3 -c 'import json, sys; print(json.dumps({"statement": sys.argv[1]}))' "$statement")"
    response="$log_dir/prepare-$(printf '%s' "$url $statement" | cksum | cut -d' ' -f1).json"
    code="$(curl -sS "${trust[@]}" -o "$response" -w '%{http_code}' --max-time 1800 -X POST -H 'Content-Type: application/json' \
        --data "$body" "$url/admin/datasets/prepare" 2>>"$log_dir/prepare.log" || true)"
    if [ "$code" != 200 ]; then
        echo "  warning: the mock server did not prepare '$statement' (HTTP ${code:-none}: $(head -c 200 "$response" 2>/dev/null));" >&2
        echo "           the first run of that result generates its files inside the timed window" >&2
        return 1
    fi
    "$repo_root/scripts/verify.d/build_notes.py" "$build_notes" dataset "$statement" "$(cat "$response")" | sed 's/^/  /'
}
