#!/usr/bin/env python3
"""Medians of the RMS experiment's probe runs (run.sh), and whether rms is within 5 % of pool on each metric."""
import json
import statistics
import sys
from pathlib import Path

MB = 1024 * 1024  # as scripts/report does
METRICS = [
    ("allocatedBytes", "Allocated", MB, "MB"),
    ("peakWorkingSetBytes", "Peak working set", MB, "MB"),
    ("wallSeconds", "Wall time", 1, "s"),
    ("peakGcHeapBytes", "Peak GC heap", MB, "MB"),
    ("gen2Collections", "Gen2 collections", 1, ""),
]
DECIDING = {"allocatedBytes", "peakWorkingSetBytes", "wallSeconds"}
TOLERANCE = 1.05


def main(folder: Path) -> None:
    runs = {"pool": [], "rms": []}
    for path in sorted(folder.glob("*.json")):
        result = json.loads(path.read_text())
        if not result["rowsVerified"]:
            sys.exit(f"{path.name}: rows not verified: {result['errors']}")
        runs[path.stem.split("-")[0]].append(result)
    print(f"runs: pool {len(runs['pool'])}, rms {len(runs['rms'])} (medians)\n")
    print("| Metric | pool (one bounded pool) | rms (capped RecyclableMemoryStreamManager) | rms / pool | every run (pool; rms) |")
    print("|---|---:|---:|---:|---|")
    verdict = True
    for key, name, scale, unit in METRICS:
        pool = statistics.median(r[key] for r in runs["pool"])
        rms = statistics.median(r[key] for r in runs["rms"])
        ratio = rms / pool if pool else float("nan")
        each = "; ".join(", ".join(f"{r[key] / scale:.1f}" for r in runs[v]) for v in ("pool", "rms"))
        suffix = f" {unit}" if unit else ""
        print(f"| {name} | {pool / scale:,.1f}{suffix} | {rms / scale:,.1f}{suffix} | {ratio:.2f} | {each} |")
        if key in DECIDING:
            verdict &= ratio <= TOLERANCE
    print(f"\nrms within 5 % of pool on allocated bytes, peak working set and wall time: {'yes' if verdict else 'no'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
