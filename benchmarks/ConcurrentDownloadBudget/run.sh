#!/usr/bin/env bash
# How much of the patched driver's peak with four queries at once on one database is each reader's own download budget?
# Runs verify's concurrent scenarios (one query, and four at once on one database: a quarter of the rows each, seeds
# 1-4, every value checked) on the patched driver with the reader's download budget
# (adbc.databricks.cloudfetch.memory_buffer_size_mb) at tag 21's default 100 MB, at 25 MB (what four readers would each
# get from a 100 MB budget shared by the database) and at 16 MB (one ~8.5 MB file at a time), runs interleaved.
#
#   benchmarks/ConcurrentDownloadBudget/run.sh --verify-out DIR [--runs N] [--rows N]
#
# DIR: the --out folder of a finished scripts/verify run; its mock/ and probe/patched/ are used. --rows is the whole
# result verify measures (default 11500000); each query reads a quarter of it. Prints, per budget, the medians of the
# peak working set above before open and of the wall time, and four queries' peak over one query's.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo_root/benchmarks/benchmark-mock.sh"

verify_out="" runs=3 rows=11500000
while [ $# -gt 0 ]; do
    case "$1" in
        --verify-out) verify_out="$(cd "${2:?}" && pwd)"; shift 2 ;;
        --runs) runs="${2:?}"; shift 2 ;;
        --rows) rows="${2:?}"; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
require_verify_probes patched
probe_dll="$verify_out/probe/patched/MemoryProbe.dll"
quarter=$((rows / 4))
start_benchmark_mock
log_dir="$out" build_notes="$out/build-notes.json" repo_root="$repo_root"
"$repo_root/scripts/verify.d/build_notes.py" "$build_notes" init
mapfile -t statements < <(dotnet "$probe_dll" --workload concurrent --queries 4 --rows "$quarter" --print-statement)
for statement in "${statements[@]}"; do
    prepare_statement "$statement" >/dev/null || { echo "run.sh: the mock did not prepare $statement" >&2; exit 1; }
done

for run in $(seq 1 "$runs"); do
    for budget in 100 25 16; do
        for queries in 1 4; do
            dotnet "$probe_dll" --mock-url "$mock_url" --label patched --scenario "budget-$budget-queries-$queries" \
                --workload concurrent --queries "$queries" --databases 1 --rows "$quarter" --sample-every 1 \
                --property "adbc.databricks.cloudfetch.memory_buffer_size_mb=$budget" \
                --output "$out/results/$budget-$queries-$run.json" >/dev/null \
                || { echo "run.sh: probe (budget $budget MB, $queries queries, run $run) failed" >&2; exit 1; }
        done
    done
done

python3 - "$out/results" <<'PY'
import glob, json, os, statistics, sys
MB = 1024 * 1024
runs = {}
for path in glob.glob(os.path.join(sys.argv[1], "*.json")):
    run = json.load(open(path))
    budget = run["properties"]["adbc.databricks.cloudfetch.memory_buffer_size_mb"]
    runs.setdefault((int(budget), run["concurrent"]["queries"]), []).append(run)
def med(key, budget, queries):
    return statistics.median(r[key] for r in runs[(budget, queries)])
print("| Reader's download budget | Runs | One query: peak above before open | Four on one database: peak above before open | Four / one | One query: wall | Four: wall |")
print("|---:|---:|---:|---:|---:|---:|---:|")
for budget in sorted({b for b, _ in runs}, reverse=True):
    one, four = med("peakWorkingSetAboveBeforeOpenBytes", budget, 1), med("peakWorkingSetAboveBeforeOpenBytes", budget, 4)
    print(f"| {budget} MB | {len(runs[(budget, 4)])} | {one / MB:,.1f} MB | {four / MB:,.1f} MB | {four / one:.2f}x | "
          f"{med('wallSeconds', budget, 1):.2f} s | {med('wallSeconds', budget, 4):.2f} s |")
PY
