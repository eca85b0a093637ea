#!/usr/bin/env bash
# Does decoding the next LZ4 block ahead (adbc.databricks.memory.decode_ahead, issue 34) give back the overlap of the
# decode with a consumer's per-value work? Runs verify's one-query scenario (a quarter of the rows, seed 1, every value
# checked by the probe) on the stock driver and on the patched driver with decode-ahead off (series 1.5.0) and on, runs
# interleaved; --contended keeps one core busy with another process (yes > /dev/null) throughout, as a host's other
# evaluations do.
#
#   benchmarks/DecodeAhead/run.sh --verify-out DIR [--runs N] [--rows N] [--contended]
#
# DIR: the --out folder of a finished scripts/verify run (or one laid out alike); its mock/, probe/stock/ and
# probe/patched/ are used. --rows is the whole result verify measures (default 11500000); the query reads a quarter.
# Prints, per driver, the medians of the wall time and of the peak working set above before open, and their ratios.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo_root/benchmarks/benchmark-mock.sh"

verify_out="" runs=3 rows=11500000 contended=0
while [ $# -gt 0 ]; do
    case "$1" in
        --verify-out) verify_out="$(cd "${2:?}" && pwd)"; shift 2 ;;
        --runs) runs="${2:?}"; shift 2 ;;
        --rows) rows="${2:?}"; shift 2 ;;
        --contended) contended=1; shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
require_verify_probes stock patched
quarter=$((rows / 4))
start_benchmark_mock
busy_pid=""
trap 'if [ -n "$busy_pid" ]; then kill "$busy_pid" 2>/dev/null || true; fi; if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; fi; rm -rf "$out"' EXIT
log_dir="$out" build_notes="$out/build-notes.json"
"$repo_root/scripts/verify.d/build_notes.py" "$build_notes" init
statement="$(dotnet "$verify_out/probe/patched/MemoryProbe.dll" --workload concurrent --queries 1 --rows "$quarter" --print-statement)"
prepare_statement "$statement" >/dev/null || { echo "run.sh: the mock did not prepare $statement" >&2; exit 1; }

if [ "$contended" -eq 1 ]; then
    yes > /dev/null &
    busy_pid=$!
fi
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $([ "$contended" -eq 1 ] && echo "one core kept busy by yes (pid $busy_pid)" || echo "no added load")"
for run in $(seq 1 "$runs"); do
    for variant in stock off on; do
        driver=patched property=(--property "adbc.databricks.memory.decode_ahead=$([ "$variant" = on ] && echo true || echo false)")
        if [ "$variant" = stock ]; then
            driver=stock property=()
        fi
        dotnet "$verify_out/probe/$driver/MemoryProbe.dll" --mock-url "$mock_url" --label "$variant" --scenario "one-query-$variant" \
            --workload concurrent --queries 1 --rows "$quarter" --sample-every 1 "${property[@]}" \
            --output "$out/results/$variant-$run.json" >/dev/null \
            || { echo "run.sh: probe ($variant, run $run) failed" >&2; exit 1; }
    done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out/results" "$runs" <<'PY'
import json, os, statistics, sys
MB = 1024 * 1024
folder, runs = sys.argv[1], int(sys.argv[2])
results = {v: [json.load(open(os.path.join(folder, f"{v}-{r}.json"))) for r in range(1, runs + 1)] for v in ("stock", "off", "on")}
def med(variant, key):
    return statistics.median(r[key] for r in results[variant])
print("| Driver | Runs | Wall (runs) | Wall, median | vs stock | Peak above before open, median | vs stock |")
print("|---|---:|---|---:|---:|---:|---:|")
for variant, name in (("stock", "stock"), ("off", "patched, decode-ahead off (1.5.0)"), ("on", "patched, decode-ahead on")):
    walls = " / ".join(f"{r['wallSeconds']:.2f}" for r in results[variant])
    print(f"| {name} | {runs} | {walls} s | {med(variant, 'wallSeconds'):.2f} s | {med(variant, 'wallSeconds') / med('stock', 'wallSeconds'):.2f}x | "
          f"{med(variant, 'peakWorkingSetAboveBeforeOpenBytes') / MB:,.1f} MB | {med(variant, 'peakWorkingSetAboveBeforeOpenBytes') / med('stock', 'peakWorkingSetAboveBeforeOpenBytes'):.2f}x |")
print(f"\non / off, wall: {med('on', 'wallSeconds') / med('off', 'wallSeconds'):.2f}x; peak above before open: "
      f"{med('on', 'peakWorkingSetAboveBeforeOpenBytes') / med('off', 'peakWorkingSetAboveBeforeOpenBytes'):.2f}x")
PY
