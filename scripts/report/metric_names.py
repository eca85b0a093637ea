"""The overlay's metric names, read from their one definition, driver-overlay/DatabricksMemoryMetricNames.cs.

    import metric_names
    metric_names.IN_USE          # "adbc.databricks.memory.in_use" (C# InUse -> IN_USE)
    metric_names.names()         # {"InUse": "adbc.databricks.memory.in_use", ...}

Run as a script it prints one name: `python3 metric_names.py MeterName` (what scripts/verify passes to dotnet-counters).
"""
import pathlib
import re
import sys

SOURCE = pathlib.Path(__file__).resolve().parents[2] / "driver-overlay" / "DatabricksMemoryMetricNames.cs"
_CONSTANT = re.compile(r'^\s*public const string (\w+) = "([^"]*)";', re.MULTILINE)


def names(source=SOURCE):
    """Every `public const string Name = "value";` of the C# file, by its C# name."""
    found = dict(_CONSTANT.findall(pathlib.Path(source).read_text(encoding="utf-8")))
    if "MeterName" not in found or "InUse" not in found:
        raise RuntimeError(f"{source}: no metric names found (is every name still a one-line public const string?)")
    return found


def _python_name(csharp_name):
    """InUse -> IN_USE, Lz4BuffersPool -> LZ4_BUFFERS_POOL, MeterName -> METER_NAME."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", csharp_name).upper()


globals().update({_python_name(name): value for name, value in names().items()})


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in names():
        sys.exit(f"usage: metric_names.py NAME (one of {', '.join(sorted(names()))})")
    print(names()[sys.argv[1]])
