#!/usr/bin/env python3
"""Adds up the result files of one scripts/test run and prints the closing line CI reads:
'tests: N passed, N failed, N skipped'. Exits 1 when a test failed or no test ran at all.
Reads TRX files (dotnet test, and the scripts that write TRX) and xunit v2 XML files (*.xunit.xml: xunit's console
runner, which runs the net472 builds under Mono)."""
import pathlib
import sys
import xml.etree.ElementTree as ET

NS = {"t": "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"}


def trx_counts(path: pathlib.Path):
    counters = ET.parse(path).getroot().find("t:ResultSummary/t:Counters", NS)
    if counters is None:
        return None
    return (int(counters.get("passed", 0)), int(counters.get("failed", 0)) + int(counters.get("error", 0)),
            int(counters.get("notExecuted", 0)))


def xunit_counts(path: pathlib.Path):
    """xunit v2 XML: one <assembly> per test assembly; 'errors' are failures outside a test (a class fixture, the runner)."""
    assemblies = ET.parse(path).getroot().findall("assembly")
    if not assemblies:
        return None
    count = lambda key: sum(int(a.get(key, 0)) for a in assemblies)
    return count("passed"), count("failed") + count("errors"), count("skipped")


def main(folder: str) -> int:
    passed = failed = skipped = 0
    files = [(p, trx_counts) for p in pathlib.Path(folder).glob("*.trx")]
    files += [(p, xunit_counts) for p in pathlib.Path(folder).glob("*.xunit.xml")]
    for path, read in sorted(files):
        suite = read(path)
        if suite is None:
            continue
        print(f"  {path.name.split('.')[0]}: {suite[0]} passed, {suite[1]} failed, {suite[2]} skipped")
        passed, failed, skipped = passed + suite[0], failed + suite[1], skipped + suite[2]
    print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
