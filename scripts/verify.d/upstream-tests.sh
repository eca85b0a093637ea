# Sourced by scripts/verify. Upstream's own test project (adbc-drivers/databricks csharp/test: its E2E suite, which
# needs a workspace, and its unit tests) against the mock server, stock and patched: built in the stock worktree and in
# the patched checkout, run once per protocol (thrift: every test; rest: the E2E classes, with the REST protocol),
# each run's TRX files compared per class by scripts/report/upstream_tests.py. A test that passes stock and not patched
# is a correctness failure (verify exits 1), unless it passes patched when run again (then it is reported as flaky).
#
#   upstream_test_layout REPOSITORY     sets upstream_test_project, upstream_e2e_dir and upstream_rest_only_classes;
#                                       returns 1 where the test project is not run
#   build_upstream_tests DRIVER SRC     dotnet build of the test project in SRC (the stock worktree, the patched checkout)
#   write_upstream_test_configs         the test configuration of each protocol and the driver configuration
#                                       (scripts/verify.d/upstream_test_config.py says what they hold and why)
#   run_upstream_tests DRIVER PROTOCOL SRC [NAME [FILTER]]
#                                       one run into OUT/upstream-tests/NAME (default DRIVER-PROTOCOL), attempt by attempt
#   run_and_compare_upstream_tests STOCK_SRC PATCHED_SRC
#                                       every run, the comparison, the regressions run again patched; sets
#                                       upstream_summary (OUT/upstream-tests/summary.json, for the report)
#
# Why each setting (the mock's README has the client's side of it):
#   - the mock serves https (start_https_mock_server): the REST path calls https://<hostName> and drops a uri's port,
#     so the REST configuration gives hostName as 127.0.0.1:PORT; the Thrift one gives hostName 127.0.0.1 and port
#     PORT (Thrift refuses a hostName with a port, and a uri together with a hostName). Both trust exactly the mock's
#     generated certificate (http_options.tls.trusted_certificate_path).
#   - ADBC_DATABRICKS_CONFIG_FILE adds, under whatever a test sets itself (the driver lets passed-in properties win),
#     no retries of 408/429/502-504 and transport errors (a refused connection is otherwise retried for 15 minutes)
#     and the certificate, for the tests that build their own properties (StatementExecutionDriverE2ETests).
#   - --blame-hang-timeout: a test that hangs ends its test host; the next attempt runs what was left (the tests after
#     it, and its class again without it), so one hang costs the timeout, not the rest of the suite.
#
# Uses from scripts/verify: out, log_dir, repo_root, msbuild_args, build_notes, https_mock_url, https_mock_cert, quietly.
upstream_tests_hang_seconds=120

# upstream_rest_only_classes: left out of the thrift run. StatementExecutionDriverE2ETests opens REST connections
# itself from the configuration's hostName, which the Thrift configuration gives without the port: there it can only
# reach port 443 and fail (and it hung in some runs, at 120 s each); it runs in the rest run.
upstream_test_layout() {
    case "$1" in
        adbc-drivers/databricks)
            upstream_test_project=csharp/test/AdbcDrivers.Databricks.Tests.csproj
            upstream_e2e_dir=csharp/test/E2E
            upstream_rest_only_classes=(AdbcDrivers.Databricks.Tests.E2E.StatementExecution.StatementExecutionDriverE2ETests) ;;
        # apache/arrow-adbc's tags 21-24 (Apache.Arrow.Adbc.Tests.Drivers.Databricks) are not run: their driver has had
        # no change since 2025-12-02, their series is proved by their unit tests, the harness and the probe, and the
        # older suite (Thrift only) would add two builds and about 10 minutes to each tag's verify. Adding it is a case
        # here, with no REST run.
        *) return 1 ;;
    esac
}

# The MSBuild properties of every build and run of the test project: verify's own, the overrides the driver's publish
# needed on this NuGet source (build notes), then what upstream's test project needs besides
# (patches/csharp-v1.1.7/README.md): net8.0 only, and NU1603/NU1605 (a substituted version, the test project's
# OpenTelemetry.Api downgrade) as warnings, with WarningsAsErrors emptied since the SDK lists NU1605 there.
upstream_test_properties() {
    local property
    upstream_props=()
    # Each property once, the last value winning (as MSBuild takes it), so the command in the report reads plainly.
    while IFS= read -r property; do
        upstream_props+=("$property")
    done < <(python3 - "$build_notes" "${msbuild_args[@]}" -p:TargetFrameworks=net8.0 '-p:WarningsNotAsErrors=NU1603%3BNU1605' -p:WarningsAsErrors= <<'PY'
import json, sys
notes, given = sys.argv[1], sys.argv[2:]
overrides = [o["argument"] for o in json.load(open(notes)).get("overrides", [])]
# verify's own arguments first, then the publish's overrides, then what the test project needs.
ordered = given[:-3] + overrides + given[-3:]
last = {argument.split("=", 1)[0]: argument for argument in ordered}
print("\n".join(dict.fromkeys(last[argument.split("=", 1)[0]] for argument in ordered)))
PY
)
}

build_upstream_tests() {
    local driver="$1" src="$2"
    upstream_test_properties
    quietly "upstream-tests-build-$driver" dotnet build "$src/$upstream_test_project" -c Release "${upstream_props[@]}" -nologo
}

write_upstream_test_configs() {
    local folder="$out/upstream-tests" port
    mkdir -p "$folder"
    port="${https_mock_url##*:}"
    python3 "$repo_root/scripts/verify.d/upstream_test_config.py" "$folder" "$port" "$https_mock_cert"
}

run_upstream_tests() {
    local driver="$1" protocol="$2" src="$3" name="${4:-$1-$2}" base_filter="${5:-}" run_dir attempt=1 filter shown_filter=""
    run_dir="$out/upstream-tests/$name"
    rm -rf "$run_dir"
    mkdir -p "$run_dir"
    if [ -z "$base_filter" ] && [ "$protocol" = rest ]; then
        # The REST run is for the E2E classes: the unit tests do not depend on the protocol and ran in the thrift run.
        base_filter="$(python3 "$repo_root/scripts/report/upstream_tests.py" e2e-filter "$src/$upstream_e2e_dir")"
    elif [ -z "$base_filter" ]; then
        local class
        for class in "${upstream_rest_only_classes[@]}"; do
            base_filter="${base_filter:+$base_filter&}FullyQualifiedName!~$class."
        done
    fi
    filter="$base_filter"
    upstream_test_properties
    # The command of the run's first attempt, for the report (the REST run's E2E filter as the command that prints it).
    if [ "$protocol" = rest ] && [ -z "${5:-}" ]; then
        shown_filter=" --filter \"\$(scripts/report/upstream_tests.py e2e-filter $src/$upstream_e2e_dir)\""
    elif [ -n "$base_filter" ]; then
        shown_filter=" --filter '$base_filter'"
    fi
    echo "$name: (cd $src/$(dirname "$upstream_test_project") && DATABRICKS_TEST_CONFIG_FILE=$out/upstream-tests/test-config-$protocol.json" \
        "ADBC_DATABRICKS_CONFIG_FILE=$out/upstream-tests/driver-config.json DOTNET_ROLL_FORWARD=Major" \
        "dotnet test $(basename "$upstream_test_project") --no-build -c Release ${upstream_props[*]}" \
        "--blame-hang-timeout ${upstream_tests_hang_seconds}s --blame-hang-dump-type none$shown_filter" \
        "--logger 'trx;LogFileName=attempt.trx' --results-directory $run_dir/attempt-1)" >>"$out/upstream-tests/commands.txt"
    while :; do
        # The same mock state for every run: no session or operation of an earlier run left.
        curl -fsS --cacert "$https_mock_cert" -X POST "$https_mock_url/admin/reset" >/dev/null 2>&1 || true
        (
            cd "$src/$(dirname "$upstream_test_project")"
            unset DATABRICKS_CONFIG_FILE
            DATABRICKS_TEST_CONFIG_FILE="$out/upstream-tests/test-config-$protocol.json" \
            ADBC_DATABRICKS_CONFIG_FILE="$out/upstream-tests/driver-config.json" DOTNET_ROLL_FORWARD=Major \
                dotnet test "$(basename "$upstream_test_project")" --no-build -c Release "${upstream_props[@]}" \
                --blame-hang-timeout "${upstream_tests_hang_seconds}s" --blame-hang-dump-type none \
                ${filter:+--filter "$filter"} --logger "trx;LogFileName=attempt.trx" \
                --results-directory "$run_dir/attempt-$attempt" -nologo
        ) >"$log_dir/upstream-tests-$name-$attempt.log" 2>&1 || true
        filter="$(python3 "$repo_root/scripts/report/upstream_tests.py" next-filter "$run_dir" "$base_filter")" || break
        echo "  $name: a test hung (attempt $attempt, log: $log_dir/upstream-tests-$name-$attempt.log); attempt $((attempt + 1)) runs the tests after it"
        attempt=$((attempt + 1))
    done
    echo "  $name: $(python3 "$repo_root/scripts/report/upstream_tests.py" totals "$run_dir")"
}

# Every run of both drivers, stock and patched interleaved per protocol, then the comparison. A regression is run again
# patched (only its methods) before it counts, so a test that failed once under load is not taken for one.
run_and_compare_upstream_tests() {
    local stock_src="$1" patched_src="$2" protocol runs=() reruns=() regressed
    rm -f "$out/upstream-tests/commands.txt"
    for protocol in thrift rest; do
        run_upstream_tests stock "$protocol" "$stock_src"
        run_upstream_tests patched "$protocol" "$patched_src"
        runs+=("stock-$protocol=$out/upstream-tests/stock-$protocol" "patched-$protocol=$out/upstream-tests/patched-$protocol")
    done
    upstream_summary="$out/upstream-tests/summary.json"
    python3 "$repo_root/scripts/report/upstream_tests.py" compare "$upstream_summary" "$patched_src/$upstream_e2e_dir" "${runs[@]}" >/dev/null || true
    for protocol in thrift rest; do
        regressed="$(python3 "$repo_root/scripts/report/upstream_tests.py" regressed-filter "$upstream_summary" "$protocol")" || continue
        echo "  patched-$protocol: tests passing stock did not pass patched; running them again patched"
        run_upstream_tests patched "$protocol" "$patched_src" "patched-$protocol-rerun" "$regressed"
        reruns+=("patched-$protocol-rerun=$out/upstream-tests/patched-$protocol-rerun")
    done
    if [ ${#reruns[@]} -gt 0 ]; then
        python3 "$repo_root/scripts/report/upstream_tests.py" compare "$upstream_summary" "$patched_src/$upstream_e2e_dir" "${runs[@]}" "${reruns[@]}" >/dev/null || true
    fi
}
