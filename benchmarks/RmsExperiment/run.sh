#!/usr/bin/env bash
# Item 5 of issue 9: does a capped RecyclableMemoryStreamManager earn its place for decoded CloudFetch files?
# Measures the patched tag-21 driver twice on the ~1 GB result of scripts/verify, interleaved (pool, rms, pool, ...):
#   pool  the overlay as committed: decoded files in arrays of the scope's Lz4BufferPool;
#   rms   the same with rms-variant.patch: decoded files in contiguous large buffers of a scope-owned
#         RecyclableMemoryStreamManager (exponential large buffers, free bytes capped at the pool's 128 MiB, largest
#         pooled buffer the pool's 32 MiB); downloads still use the Lz4BufferPool.
#
#   benchmarks/RmsExperiment/run.sh --adbc CHECKOUT [--out DIR] [--runs N] [--rows N] [--reuse]
#
# CHECKOUT: an arrow-adbc work tree at apache-arrow-adbc-21 (the overlay and series are applied here if they are
# not yet; the variant patch is applied for one publish and reverted). --reuse skips publishing and building when
# OUT already holds drivers/{pool,rms}, probe/{pool,rms} and mock. Prints a table of medians (summarize.py).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
adbc="" out="$repo_root/artifacts/rms-experiment" runs=3 rows=11500000 reuse=0
while [ $# -gt 0 ]; do
    case "$1" in
        --adbc) adbc="$(cd "${2:?}" && pwd)"; shift 2 ;;
        --out) mkdir -p "${2:?}"; out="$(cd "$2" && pwd)"; shift 2 ;;
        --runs) runs="${2:?}"; shift 2 ;;
        --rows) rows="${2:?}"; shift 2 ;;
        --reuse) reuse=1; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$out/logs" "$out/results"

publish() { # NAME: the driver as the checkout's tree is now
    # The same publish as scripts/verify's, for net8.0 only (the probe's target).
    dotnet publish "$adbc/csharp/src/Drivers/Databricks/Apache.Arrow.Adbc.Drivers.Databricks.csproj" -c Release -f net8.0 \
        -o "$out/drivers/$1" -nologo -p:NoWarn=NU1603 -p:TargetFrameworks=net8.0 \
        -p:ErrorOnDuplicatePublishOutputFiles=false -p:EnableSourceLink=false >"$out/logs/publish-$1.log" 2>&1 \
        || { echo "publish $1 failed: $out/logs/publish-$1.log" >&2; exit 1; }
}

if [ "$reuse" -eq 0 ]; then
    [ -n "$adbc" ] || { echo "run.sh: --adbc CHECKOUT is required (or --reuse)" >&2; exit 2; }
    "$repo_root/scripts/patch" apply --adbc "$adbc"
    rm -rf "$out/drivers" "$out/probe" "$out/mock"
    publish pool
    git -C "$adbc" apply "$here/rms-variant.patch"
    trap 'git -C "$adbc" apply -R "$here/rms-variant.patch"' EXIT
    publish rms
    git -C "$adbc" apply -R "$here/rms-variant.patch"
    trap - EXIT
    for variant in pool rms; do
        dotnet build "$repo_root/integration-tests/MemoryProbe" -c Release -p:DriverDir="$out/drivers/$variant" \
            -o "$out/probe/$variant" -nologo >"$out/logs/probe-$variant.log" 2>&1
    done
    dotnet build "$repo_root/integration-tests/MockDatabricks.Server" -c Release -o "$out/mock" -nologo >"$out/logs/mock-build.log" 2>&1
fi

source "$repo_root/scripts/verify.d/mock-server.sh"
mock_pid=""
trap '[ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null || true' EXIT
start_mock_server "$out/mock/MockDatabricks.Server.dll" "$out/logs/mock.log" || { echo "the mock server did not start" >&2; exit 1; }

rm -f "$out/results"/*.json
scenario="cloudfetch-$((rows / 1000000))m"
# One discarded run first: the mock server's first result and a cold page cache otherwise land on whichever variant
# goes first (in the first measurements that made the first pool run 3-6x slower than every other run).
dotnet "$out/probe/pool/MemoryProbe.dll" --mock-url "$mock_url" --label warmup --scenario "$scenario" \
    --rows "$rows" --sample-every 1000 --output "$out/logs/warmup.json" >/dev/null
for run in $(seq 1 "$runs"); do
    for variant in pool rms; do
        dotnet "$out/probe/$variant/MemoryProbe.dll" --mock-url "$mock_url" --label "$variant" --scenario "$scenario" \
            --rows "$rows" --sample-every 1000 --output "$out/results/$variant-$run.json" | tail -n 1
    done
done
python3 "$here/summarize.py" "$out/results"
