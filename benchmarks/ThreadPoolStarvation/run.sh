#!/usr/bin/env bash
# Which part of the patched driver's wall time gain is the memory work, and which the asynchronous queue waits?
# Runs the memory probe on scripts/verify's ~1 GB result for each driver, interleaved, in two thread-pool settings:
#   default   as a host process starts: the pool's default minimum (on 2 cores, 2 threads), so upstream's blocking
#             queue waits can starve it;
#   min16     the pool's minimum forced to 16 threads (DOTNET_ThreadPool_ForceMinWorkerThreads; CLR settings are
#             hexadecimal, so 10 = 16), which removes the starvation stall from every driver alike.
#
#   benchmarks/ThreadPoolStarvation/run.sh --verify-out DIR [--probe LABEL=PROBE_DIR]... [--runs N] [--rows N]
#
# DIR: the --out folder of a finished scripts/verify run; its mock/ and probe/{stock,patched}/ are used. --probe adds
# another probe build, e.g. a patched driver without the queue-wait patch
# (dotnet build integration-tests/MemoryProbe -c Release -p:DriverDir=PUBLISHED_DRIVER -o PROBE_DIR).
# Prints, per driver and setting, the medians of wall time and of the longest wait for one batch.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo_root/benchmarks/benchmark-mock.sh"

verify_out="" runs=3 rows=11500000
declare -a probes=()
while [ $# -gt 0 ]; do
    case "$1" in
        --verify-out) verify_out="$(cd "${2:?}" && pwd)"; shift 2 ;;
        --probe) probes+=("${2:?}"); shift 2 ;;
        --runs) runs="${2:?}"; shift 2 ;;
        --rows) rows="${2:?}"; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
require_verify_probes stock patched
probes=("stock=$verify_out/probe/stock" "patched=$verify_out/probe/patched" "${probes[@]}")
start_benchmark_mock

# scripts/verify's preparation: the result is built and cached before any timed run.
log_dir="$out" build_notes="$out/build-notes.json"
prepare_dataset "$verify_out/probe/patched/MemoryProbe.dll" "$rows" || { echo "run.sh: the mock did not prepare the result" >&2; exit 1; }

for run in $(seq 1 "$runs"); do
    for setting in default min16; do
        for entry in "${probes[@]}"; do
            label="${entry%%=*}" dir="${entry#*=}"
            env_args=()
            [ "$setting" = min16 ] && env_args=(DOTNET_ThreadPool_ForceMinWorkerThreads=10)
            env "${env_args[@]}" dotnet "$dir/MemoryProbe.dll" --mock-url "$mock_url" --label "$label" --scenario "$setting" \
                --rows "$rows" --sample-every 1000 --output "$out/results/$label-$setting-$run.json" >/dev/null \
                || { echo "run.sh: probe $label ($setting, run $run) failed" >&2; exit 1; }
        done
    done
done

python3 - "$out/results" <<'PY'
import glob, json, os, statistics, sys
rows = {}
for path in glob.glob(os.path.join(sys.argv[1], "*.json")):
    run = json.load(open(path))
    rows.setdefault((run["driver"], run["scenario"]), []).append(run)
print("| Driver | Thread pool | Runs | Wall time (median) | Longest wait for one batch (median) | vs stock, same setting |")
print("|---|---|---:|---:|---:|---:|")
for (driver, setting), runs in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0] != "stock", kv[0][0])):
    wall = statistics.median(r["wallSeconds"] for r in runs)
    wait = statistics.median(r["longestBatchWaitSeconds"] for r in runs)
    stock = statistics.median(r["wallSeconds"] for r in rows[("stock", setting)])
    print(f"| {driver} | {setting} | {len(runs)} | {wall:.2f} s | {wait:.2f} s | {wall / stock:.2f}x |")
PY
