"""The report's "Counter recordings" section: the CSV recording of each probe run by `dotnet-counters collect`
(scripts/verify.d/counters.sh), listed with its largest GC heap and overlay in-use figures, not judged.

    section(counters_dir, output_dir) -> markdown lines
"""
import csv
import os
import pathlib
import re

import metric_names
from core import fmt

# dotnet-counters' CSV: Timestamp,Provider,Counter Name,Counter Type,Mean/Increment, one row per counter (and per tag
# combination) per refresh. The counter name is NAME (UNIT), or NAME (UNIT / 1 sec) for a rate, then the measurement's
# tags in brackets, sorted by key: "adbc.databricks.memory.in_use (By)[pool=lz4_buffers;scope=1]".
COUNTER_NAME = re.compile(r"^(?P<name>[^ \[]+)(?: \((?P<unit>[^)]*)\))?(?:\[(?P<tags>[^\]]*)\])?$")
HEAP_SIZE = "dotnet.gc.last_collection.heap.size"


def parse_counter_name(text):
    """("adbc.databricks.memory.in_use", {"pool": "lz4_buffers", "scope": "1"}) from a CSV counter name."""
    match = COUNTER_NAME.match(text or "")
    if not match:
        return text or "", {}
    tags = dict(tag.split("=", 1) for tag in (match.group("tags") or "").split(";") if "=" in tag)
    return match.group("name"), tags


def read_recording(path):
    """(rows, largest GC heap, largest in use of any one scope and pool) of one dotnet-counters CSV. The GC heap is
    System.Runtime's dotnet.gc.last_collection.heap.size summed over its generations at each timestamp (the heap
    as the last collection left it); in use is the overlay's adbc.databricks.memory.in_use, bytes."""
    rows, in_use, heap_at = 0, None, {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            rows += 1
            try:
                value = float(row["Mean/Increment"])
            except (KeyError, TypeError, ValueError):
                continue
            name, tags = parse_counter_name(row.get("Counter Name"))
            if row.get("Provider") == "System.Runtime" and name == HEAP_SIZE:
                heap_at.setdefault(row.get("Timestamp"), {})[tags.get("gc.heap.generation")] = value
            elif (row.get("Provider") == metric_names.METER_NAME and name == metric_names.IN_USE
                  and metric_names.SCOPE_TAG in tags and metric_names.POOL_TAG in tags):
                in_use = max(in_use or 0.0, value)
    heap = max((sum(by_generation.values()) for by_generation in heap_at.values()), default=None)
    return rows, heap, in_use


def section(counters_dir, out):
    """Each run's CSV by its path relative to the report, with the largest GC heap (bytes; shown in MiB like the rest of
    the report) and the largest adbc.databricks.memory.in_use (bytes) of any one scope and pool (the overlay's meter;
    the stock driver has none)."""
    files = sorted(pathlib.Path(counters_dir).glob("*.csv")) if counters_dir else []
    lines = ["## Counter recordings", ""]
    if not files:
        return lines + ["None (dotnet-counters was not restored or not run).", ""]
    lines += [f"System.Runtime and the overlay's meter ({metric_names.METER_NAME}), recorded every second by "
              "`dotnet-counters collect`. GC heap after a collection: System.Runtime's dotnet.gc.last_collection.heap.size, "
              "all generations (the runtime's meter has no live heap size; Peak GC heap above is the probe's own, sampled every 50 ms).", "",
              "| Run | CSV | Rows | Max GC heap after a collection | Max in use (one scope, pool) |", "|---|---|---|---|---|"]
    for path in files:
        rows, heap, in_use = read_recording(path)
        relative = os.path.relpath(path, out)
        lines.append(f"| {path.stem} | [{relative}]({relative}) | {rows:,} | "
                     f"{fmt(heap, 'MB')} | {fmt(in_use, 'MB')} |")
    return lines + ["", "An empty recording (header only) means dotnet-counters could not record the run; the run itself "
                    "still counted.", ""]
