#!/usr/bin/env bash
# Installs the Debian packages the tests need when they are missing: the lz4 CLI and liblz4 (reference
# LZ4 implementations), git (patch tool tests), curl, thrift-compiler (only for the check that the mock's checked-in
# Thrift code is current, scripts/regenerate-mock-thrift.sh --check; building needs only the .NET SDK), node and npm
# (the Node.js conformance suite; Debian's packages when missing), mono-complete (the overlay's net472 tests and
# scripts/verify's .NET Framework section run under Mono). Then the suite's npm packages, pinned by its
# package-lock.json (npm ci), when its node_modules is missing or older than the lock file. Then the repository's
# dotnet tools (.config/dotnet-tools.json: dotnet-counters, which records scripts/verify's probe runs), from NuGet.
# Needs root (or sudo) only when something is missing.
set -euo pipefail

missing=()
command -v lz4 >/dev/null 2>&1 || missing+=(lz4)
ldconfig -p 2>/dev/null | grep -q 'liblz4\.so\.1' || missing+=(liblz4-1)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v thrift >/dev/null 2>&1 || missing+=(thrift-compiler)
# The Node.js conformance suite (integration-tests/NodeConformance) runs the official Databricks Node.js driver.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
# Mono 6.8, the .NET Framework 4.7.2 stand-in: the overlay's net472 tests run under it (scripts/test), and scripts/verify
# measures the net472 drivers with it (Power BI Desktop runs the driver on .NET Framework 4.7.2).
command -v mono >/dev/null 2>&1 || missing+=(mono-complete)

if [ ${#missing[@]} -gt 0 ]; then
    echo "prerequisites: installing ${missing[*]}" >&2
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

node_suite="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/integration-tests/NodeConformance"
if [ ! -d "$node_suite/node_modules" ] || [ "$node_suite/package-lock.json" -nt "$node_suite/node_modules" ]; then
    echo "prerequisites: npm ci in integration-tests/NodeConformance" >&2
    (cd "$node_suite" && npm ci --no-audit --no-fund --loglevel=error)
    touch "$node_suite/node_modules"
fi

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Warns only: scripts/verify then runs its probes unrecorded, and scripts/test's recording check fails on its own.
if ! (cd "$repo_root" && dotnet tool restore >/dev/null); then
    echo "prerequisites: warning: dotnet tool restore failed (dotnet-counters)" >&2
fi
