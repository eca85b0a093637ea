#!/usr/bin/env python3
"""Adds up the TRX result files of one scripts/test run and prints the closing line CI reads:
'tests: N passed, N failed, N skipped'. Exits 1 when a test failed or no test ran at all."""
import pathlib
import sys
import xml.etree.ElementTree as ET

NS = {"t": "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"}


def main(folder: str) -> int:
    passed = failed = skipped = 0
    for trx in sorted(pathlib.Path(folder).glob("*.trx")):
        counters = ET.parse(trx).getroot().find("t:ResultSummary/t:Counters", NS)
        if counters is None:
            continue
        suite = (int(counters.get("passed", 0)), int(counters.get("failed", 0)) + int(counters.get("error", 0)),
                 int(counters.get("notExecuted", 0)))
        print(f"  {trx.stem}: {suite[0]} passed, {suite[1]} failed, {suite[2]} skipped")
        passed, failed, skipped = passed + suite[0], failed + suite[1], skipped + suite[2]
    print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
