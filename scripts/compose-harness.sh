#!/usr/bin/env bash
# Brings docker/compose.yaml up for real (mock + harness), waits for the harness to exit and always tears it
# all down again (`down -v`). Exit status: the harness's (see docker/harness-entrypoint.sh), or 1 if compose
# itself failed. What CI runs after scripts/build-images.sh; works the same with Docker.
#
#   scripts/compose-harness.sh                                   # no checkout: mock suite in url mode, TRX in artifacts/harness
#   ADBC_CHECKOUT=~/src/arrow-adbc scripts/compose-harness.sh    # scripts/verify against the checkout (compose.checkout.yaml)
#   HARNESS_DRIVER_DIR=DIR scripts/compose-harness.sh            # also Harness.Tests on that driver (compose.driver.yaml)
#                                                                # (HARNESS_TESTS_DIR: its build, default the Release one)
#
# Environment:
#   HARNESS_OUT_DIR        where the harness writes (TRX files, verify's output); default artifacts/harness
#   HARNESS_IMAGE          the harness image (default adbc-databricks-harness:local)
#   HARNESS_LOCAL_SDK      1: mount the host's .NET SDK (compose.local-sdk.yaml); 0: the image has its own.
#                          Default: 1 when the image carries the label scripts/build-images.sh sets on the local base.
#   COMPOSE_PROJECT_NAME   compose project (default adbc-dbx)
#   VERIFY_ARGS, HARNESS_EXPECT_DRIVER, HARNESS_CONFIGURATION, HARNESS_USER, MOCK_HOST_PORT: see docker/compose.yaml
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { echo "compose-harness: $*" >&2; }
die() { log "error: $*"; exit 1; }

engine_env=$("$repo_root/scripts/container-engine.sh" start) || die "no container engine (see the messages above)"
eval "$engine_env"

if command -v docker-compose >/dev/null; then
    compose=(docker-compose)
elif docker compose version >/dev/null 2>&1; then
    compose=(docker compose)
else
    die "neither docker-compose nor the docker compose plugin is installed"
fi
compose+=(-f "$repo_root/docker/compose.yaml" -p "${COMPOSE_PROJECT_NAME:-adbc-dbx}")

harness_image="${HARNESS_IMAGE:-adbc-databricks-harness:local}"
docker image inspect "$harness_image" >/dev/null 2>&1 || die "no image $harness_image: build it with scripts/build-images.sh"
local_sdk="${HARNESS_LOCAL_SDK:-}"
if [ -z "$local_sdk" ]; then
    label=$(docker image inspect --format '{{ index .Config.Labels "org.adbc-dbx.dotnet" }}' "$harness_image" 2>/dev/null || true)
    if [ "$label" = host-mount ]; then local_sdk=1; else local_sdk=0; fi
fi
if [ "$local_sdk" = 1 ]; then
    command -v dotnet >/dev/null || die "the harness image needs the host's .NET SDK mounted, and dotnet is not on PATH"
    HOST_DOTNET_ROOT="$(dirname "$(readlink -f "$(command -v dotnet)")")"
    export HOST_DOTNET_ROOT
    compose+=(-f "$repo_root/docker/compose.local-sdk.yaml")
fi
if [ -n "${ADBC_CHECKOUT:-}" ]; then
    [ -d "$ADBC_CHECKOUT" ] || die "ADBC_CHECKOUT=$ADBC_CHECKOUT is not a folder"
    ADBC_CHECKOUT="$(cd "$ADBC_CHECKOUT" && pwd)"
    export ADBC_CHECKOUT
    compose+=(-f "$repo_root/docker/compose.checkout.yaml")
fi
if [ -n "${HARNESS_DRIVER_DIR:-}" ]; then
    [ -d "$HARNESS_DRIVER_DIR" ] || die "HARNESS_DRIVER_DIR=$HARNESS_DRIVER_DIR is not a folder"
    HARNESS_DRIVER_DIR="$(cd "$HARNESS_DRIVER_DIR" && pwd)"
    HARNESS_TESTS_DIR="${HARNESS_TESTS_DIR:-$repo_root/artifacts/bin/Harness.Tests/${HARNESS_CONFIGURATION:-Release}/net10.0}"
    [ -f "$HARNESS_TESTS_DIR/Harness.Tests.dll" ] \
        || die "no Harness.Tests build in $HARNESS_TESTS_DIR: dotnet build integration-tests/Harness.Tests -c Release -p:DriverDir=$HARNESS_DRIVER_DIR"
    HARNESS_TESTS_DIR="$(cd "$HARNESS_TESTS_DIR" && pwd)"
    export HARNESS_DRIVER_DIR HARNESS_TESTS_DIR
    compose+=(-f "$repo_root/docker/compose.driver.yaml")
fi

# Absolute (compose would resolve a relative one against docker/), and created here by the caller: the engine
# would create a missing bind-mount source itself, owned by root.
HARNESS_OUT_DIR="${HARNESS_OUT_DIR:-$repo_root/artifacts/harness}"
mkdir -p "$HARNESS_OUT_DIR"
HARNESS_OUT_DIR="$(cd "$HARNESS_OUT_DIR" && pwd)"
export HARNESS_OUT_DIR

# Always, whatever happened to `up` (leftovers of an interrupted run are recreated by the next `up` anyway).
down() { "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || log "warning: compose down failed"; }
trap down EXIT
log "up: ${compose[*]} (output in $HARNESS_OUT_DIR)"
status=0
"${compose[@]}" up --no-build --abort-on-container-exit --exit-code-from harness || status=$?
[ "$status" -eq 0 ] || log "the harness (or compose) failed with status $status"
exit "$status"
