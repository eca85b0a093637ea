# Sourced by scripts/verify and by scripts/test's recording check (scripts/report/test_counters_recording.py). Records one
# run of the memory probe with dotnet-counters, the local tool in .config/dotnet-tools.json, the way verify records
# every probe run: System.Runtime's counters and the overlay's meter, every second, as CSV.
#
#   counters_restore LOG          dotnet tool restore; returns non-zero (after which runs go unrecorded) when it fails
#   record_counters CSV LOG COMMAND...
#
# record_counters runs COMMAND (dotnet MemoryProbe.dll ...) as
#   dotnet dotnet-counters collect --format csv -o CSV --refresh-interval 1
#       --counters System.Runtime,<meter> -- COMMAND...
# from the repository (where dotnet finds the tool manifest), with the meter name read from its one definition
# (driver-overlay/DatabricksMemoryMetricNames.cs, through scripts/report/metric_names.py).
# dotnet-counters discards its child's output and exits 0 whatever the child returns (also when the child cannot
# start), so the probe is asked for both in files (MEMORY_PROBE_OUTPUT_FILE, MEMORY_PROBE_EXIT_CODE_FILE, see
# integration-tests/MemoryProbe/Program.cs); record_counters prints the probe's output and sets recorded_status to
# the probe's exit code, or to "" when the probe did not finish under the recording (dotnet-counters could not
# start or attach, or the probe died): the caller then runs it again unrecorded. A run left without a recording
# gets a header-only CSV, so the report lists it as not recorded. dotnet-counters' own messages go to LOG.
# Uses from the caller: repo_root.
counters_csv_header="Timestamp,Provider,Counter Name,Counter Type,Mean/Increment"

counters_restore() {
    (cd "$repo_root" && dotnet tool restore) >"$1" 2>&1
}

counters_meter=""  # read once, on the first recording

record_counters() {
    local csv="$1" log="$2" scratch status
    shift 2
    recorded_status=""
    [ -n "$counters_meter" ] || counters_meter="$(/usr/bin/python3 "$repo_root/scripts/report/metric_names.py" MeterName)"
    scratch="$(mktemp -d)"
    rm -f "$csv"
    # stdin from /dev/null: dotnet-counters stops the recording on a Q typed at the terminal.
    status=0
    (cd "$repo_root" && MEMORY_PROBE_OUTPUT_FILE="$scratch/output" MEMORY_PROBE_EXIT_CODE_FILE="$scratch/exit-code" \
        dotnet dotnet-counters collect --format csv -o "$csv" --refresh-interval 1 \
            --counters "System.Runtime,$counters_meter" -- "$@") </dev/null >"$log" 2>&1 || status=$?
    [ -f "$scratch/output" ] && cat "$scratch/output"
    if [ -s "$scratch/exit-code" ]; then
        recorded_status="$(cat "$scratch/exit-code")"
    fi
    rm -rf "$scratch"
    [ -s "$csv" ] || echo "$counters_csv_header" >"$csv"
    if [ "$status" -ne 0 ]; then
        echo "  warning: dotnet-counters exited $status (log: $log)" >&2
    fi
    return 0
}
