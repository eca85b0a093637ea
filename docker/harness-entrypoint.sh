#!/usr/bin/env bash
# Entry point of the harness container (docker/harness.Dockerfile runs it from the mounted repository).
# What it runs depends on what is mounted:
#
#   1. an arrow-adbc checkout at /adbc (docker/compose.checkout.yaml): `scripts/verify` against it and the
#      compose network's mock server: stock and patched drivers, harness tests, memory probe, report in
#      /out/verify. The whole job; it needs a NuGet source that serves the driver's dependencies.
#   2. no checkout (CI): the harness plumbing against the mock service by its compose name. The mock server's
#      suite (MockDatabricks.Tests, already built on the host, run from the read-only mount: no restore, no
#      build here) in url mode, TRX in /out. The real-driver part is skipped, and the output says why.
#   3. in addition to 2, with a published driver folder at /driver (docker/compose.driver.yaml) and Harness.Tests
#      built on the host against that same folder: the harness suite against that driver, TRX in /out.
#
# Exit status: 0 all passed; 1 a suite failed or the mock never became healthy; 2 a missing prerequisite
# (the repository not mounted, a build missing, Harness.Tests built against another driver); verify's own
# status in mode 1.
#
# Environment (docker/compose.yaml sets the first three):
#   MOCK_DATABRICKS_URL        the mock server (default http://mock:8080, its compose service name)
#   HARNESS_REPO               this repository, mounted read-only (default /repo)
#   HARNESS_OUT                writable output folder (default /out)
#   HARNESS_CHECKOUT           where a checkout is looked for (default /adbc; used when it is a git checkout)
#   VERIFY_ARGS                more arguments for scripts/verify, split on spaces (e.g. "--rows 2000000 --runs 1")
#   HARNESS_DRIVER_DIR         published driver folder for mode 3 (docker/compose.driver.yaml sets /driver)
#   HARNESS_TESTS_DIR          Harness.Tests build output for mode 3 (default: the host's Release build in the repo)
#   HARNESS_EXPECT_DRIVER      stock|patched, passed to Harness.Tests (turns a driver mix-up into a failure)
#   HARNESS_CONFIGURATION      configuration of the host builds to run (default Release)
#   HARNESS_MOCK_WAIT_SECONDS  how long to wait for the mock's /health (default 60)
set -euo pipefail

repo="${HARNESS_REPO:-/repo}"
out="${HARNESS_OUT:-/out}"
mock_url="${MOCK_DATABRICKS_URL:-http://mock:8080}"
checkout="${HARNESS_CHECKOUT:-/adbc}"
configuration="${HARNESS_CONFIGURATION:-Release}"
wait_seconds="${HARNESS_MOCK_WAIT_SECONDS:-60}"

log() { echo "harness: $*"; }
fail() { echo "harness: error: $*" >&2; exit "${2:-2}"; }

[ -d "$repo/docker" ] || fail "the repository is not mounted at $repo"
mkdir -p "$out" && [ -w "$out" ] || fail "$out is not writable (mount a writable output folder there)"
command -v dotnet >/dev/null && dotnet --list-sdks >/dev/null 2>&1 \
    || fail "no working .NET SDK in the image (on a local base, mount the host's SDK: docker/compose.local-sdk.yaml)"
# Someone else's HOME (compose `user:` with a uid that has none) would stop dotnet and git from writing state.
if [ ! -w "${HOME:-/nonexistent}" ]; then
    export HOME=/tmp/harness-home
    mkdir -p "$HOME"
fi

# Bounded wait for the mock. Not compose's `depends_on: condition: service_healthy`: podman without systemd never
# runs healthchecks, so the mock would stay "starting" forever and the harness would never start.
wait_for_mock() {
    local i
    for i in $(seq 1 "$wait_seconds"); do
        if curl -fsS --max-time 2 "$mock_url/health" >/dev/null 2>&1; then
            log "mock healthy at $mock_url after ${i} attempt(s)"
            return 0
        fi
        sleep 1
    done
    fail "the mock did not answer $mock_url/health within ${wait_seconds} s" 1
}

# Runs a built test assembly against the mock in url mode, TRX in $out. Never builds: the assembly comes from
# the host's build in the mounted repository (or a folder given for mode 3).
failed=0
run_tests() {
    local name="$1" dll="$2"
    shift 2
    log "test: $name ($dll)"
    if ! env MOCK_DATABRICKS_MODE=url MOCK_DATABRICKS_URL="$mock_url" "$@" dotnet test "$dll" --nologo \
        --logger "trx;LogFileName=$name.trx" --results-directory "$out"; then
        failed=1
    fi
}

wait_for_mock

# ------------------------------------------------------------------------------------ 1. verify on a checkout
if [ -e "$checkout/.git" ]; then
    log "arrow-adbc checkout at $checkout: running scripts/verify against the mock at $mock_url"
    # verify builds (the patch tool, the probe, the harness, the mock) under the repository's artifacts/, so it
    # runs from a copy of the read-only mount. Sources only (3 MB); the copy's artifacts/ is kept between runs
    # so builds are incremental.
    work="$out/work/harness-repo"
    mkdir -p "$work"
    find "$work" -mindepth 1 -maxdepth 1 ! -name artifacts -exec rm -rf {} +
    tar -C "$repo" --exclude=./artifacts --exclude=./.git --exclude=./docker/.publish -cf - . | tar -C "$work" -xf -
    # The checkout belongs to a host user; without this git refuses it ("dubious ownership"). Environment-scoped
    # configuration, so nothing is written to the checkout or a config file.
    export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
    # Restored packages outlive the container, so a second run does not download the driver's dependencies again.
    export NUGET_PACKAGES="${NUGET_PACKAGES:-$out/work/nuget-packages}"
    # shellcheck disable=SC2086 # VERIFY_ARGS is a list of arguments on purpose.
    exec bash "$work/scripts/verify" --adbc "$checkout" --mock-url "$mock_url" --out "$out/verify" ${VERIFY_ARGS:-}
fi

# ------------------------------------------------------------------------------ 2. plumbing against the mock
log "no arrow-adbc checkout at $checkout: the harness plumbing runs against the mock at $mock_url"
mock_tests="$repo/artifacts/bin/MockDatabricks.Tests/$configuration/net10.0/MockDatabricks.Tests.dll"
[ -f "$mock_tests" ] || fail "$mock_tests is missing: build it on the host first (dotnet build integration-tests/MockDatabricks.Tests -c $configuration)"
run_tests compose-mock-url "$mock_tests"

# ------------------------------------------------------------------------- 3. harness suite on a driver folder
driver_name=Apache.Arrow.Adbc.Drivers.Databricks.dll
if [ -n "${HARNESS_DRIVER_DIR:-}" ]; then
    tests_dir="${HARNESS_TESTS_DIR:-$repo/artifacts/bin/Harness.Tests/$configuration/net10.0}"
    [ -f "$HARNESS_DRIVER_DIR/$driver_name" ] || fail "$HARNESS_DRIVER_DIR has no $driver_name (mount a published driver folder there)"
    [ -f "$tests_dir/Harness.Tests.dll" ] \
        || fail "no Harness.Tests build in $tests_dir: on the host, dotnet build integration-tests/Harness.Tests -c $configuration -p:DriverDir=<the same driver folder>"
    # The build copies the driver next to the tests; a different copy means the tests would run another driver.
    cmp -s "$HARNESS_DRIVER_DIR/$driver_name" "$tests_dir/$driver_name" \
        || fail "$tests_dir was built against another driver than $HARNESS_DRIVER_DIR: rebuild it with -p:DriverDir=<that folder>"
    run_tests "compose-harness-${HARNESS_EXPECT_DRIVER:-driver}" "$tests_dir/Harness.Tests.dll" HARNESS_EXPECT_DRIVER="${HARNESS_EXPECT_DRIVER:-}"
else
    log "SKIPPED the real-driver part (Harness.Tests, memory probe, report): no arrow-adbc checkout is mounted at" \
        "$checkout (docker/compose.checkout.yaml) and no published driver folder (docker/compose.driver.yaml); the stock" \
        "driver package Apache.Arrow.Adbc.Drivers.Databricks and its dependencies (Apache.Arrow, ApacheThrift," \
        "K4os.Compression.LZ4) are not built into this image and are not restored here."
fi

if [ "$failed" -ne 0 ]; then
    log "FAILED: a suite failed (TRX files in $out)"
    exit 1
fi
log "OK (TRX files in $out)"
