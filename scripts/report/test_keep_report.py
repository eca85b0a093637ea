#!/usr/bin/python3
"""scripts/keep-report, run as a maintainer runs it on a verify output made here in a temporary folder: what it copies,
which links it keeps, the run line and the index it writes, and what makes it keep nothing.

    test_keep_report.py [--trx FILE]     (run by scripts/test)
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

import unittest_trx

REPO = pathlib.Path(__file__).resolve().parents[2]
BASE_LINE = "Base: csharp/v1.1.7 (adbc-drivers/databricks 25c55f1aceb159926607d7d7d7da304ddb15a017); stock is ..."
INDEX = "# Results\n\n<!-- kept reports: scripts/keep-report writes this table -->\nold row\n<!-- end of kept reports -->\n\nHistory.\n"


class KeepReport(unittest.TestCase):
    def setUp(self):
        temp = tempfile.TemporaryDirectory()
        self.addCleanup(temp.cleanup)
        self.root = pathlib.Path(temp.name)
        self.out, self.checkout, self.results = self.root / "out", self.root / "checkout", self.root / "results"
        for folder in (self.out / "report", self.out / "counters", self.checkout, self.results):
            folder.mkdir(parents=True)
        (self.results / "README.md").write_text(INDEX)

    def write_run(self, report, notes=None):
        (self.out / "report" / "report.md").write_text(report)
        (self.out / "report" / "summary.json").write_text(json.dumps({"targets": [], "log": f"{self.out}/logs/a.log"}))
        (self.out / "report" / "gc-heap.png").write_bytes(b"\x89PNG chart")
        (self.out / "counters" / "patched-1.csv").write_text("counters")
        if notes is not None:
            (self.out / "build-notes.json").write_text(json.dumps(notes))

    def keep(self, *options):
        return subprocess.run([sys.executable, str(REPO / "scripts" / "keep-report"), str(self.out), "--results",
                               str(self.results), *options], capture_output=True, text=True)

    def test_keeps_report_and_summary_with_the_run_and_only_links_that_resolve(self):
        self.write_run("\n".join([
            "# Stock vs patched", "", BASE_LINE, "",
            "![GC heap over time](gc-heap.png)",
            "| patched-1 | [../counters/patched-1.csv](../counters/patched-1.csv) |",
            "[the notes](../build-notes.json), [targets](summary.json#targets), [upstream](https://github.com/apache/arrow-adbc), [above](#targets)",
            f"(cd {self.out}/work/stock-src/csharp/test && dotnet test --results-directory {self.out}/upstream-tests)",
            f"(cd {self.checkout}/csharp/test)", ""]),
            {"base": {"tag": "csharp/v1.1.7"},
             "run": {"date": "2026-11-27", "checkout": str(self.checkout),
                     "arguments": ["--adbc", "../checkout", "--out", str(self.out), "--skip-rest"]}})

        result = self.keep()

        self.assertEqual(0, result.returncode, result.stderr)
        kept = self.results / "csharp-v1.1.7"
        self.assertEqual(["report.md", "summary.json"], sorted(p.name for p in kept.iterdir()))  # no binary chart
        text = (kept / "report.md").read_text()
        self.assertEqual(["# Stock vs patched", "",
                          "Run 2026-11-27: `scripts/verify --adbc CHECKOUT --out OUT --skip-rest`. Kept by scripts/keep-report "
                          "(links to files of the run that are not kept are plain text).", "", BASE_LINE],
                         text.splitlines()[:5])
        self.assertNotIn("](gc-heap.png)", text)
        self.assertIn("| patched-1 | `patched-1.csv` |", text)
        self.assertIn("the notes, [targets](summary.json#targets), [upstream](https://github.com/apache/arrow-adbc), [above](#targets)", text)
        self.assertIn("(cd STOCK_WORKTREE/csharp/test && dotnet test --results-directory OUT/upstream-tests)", text)
        self.assertIn("(cd CHECKOUT/csharp/test)", text)
        self.assertNotIn(str(self.root), text + (kept / "summary.json").read_text())
        self.assertEqual({"targets": [], "log": "OUT/logs/a.log"}, json.loads((kept / "summary.json").read_text()))
        self.assertIn("<!-- kept reports: scripts/keep-report writes this table -->\n| Base | Run | Command |\n|---|---|---|\n"
                      "| [csharp-v1.1.7](csharp-v1.1.7/report.md) | 2026-11-27 | `scripts/verify --adbc CHECKOUT --out OUT --skip-rest` |\n"
                      "<!-- end of kept reports -->\n\nHistory.\n", (self.results / "README.md").read_text())

    def test_without_build_notes_the_base_comes_from_the_report_and_the_run_from_the_options(self):
        self.write_run(f"# Stock vs patched\n\n{BASE_LINE.replace('csharp/v1.1.7', 'apache-arrow-adbc-21')}\n")
        stale = self.results / "apache-arrow-adbc-21" / "old-chart.png"
        stale.parent.mkdir()
        stale.write_bytes(b"old")

        result = self.keep("--command", "scripts/verify --adbc CHECKOUT", "--date", "2026-11-26")

        self.assertEqual(0, result.returncode, result.stderr)
        self.assertFalse(stale.exists(), "a kept folder holds one run: an earlier run's chart goes")
        self.assertIn("Run 2026-11-26: `scripts/verify --adbc CHECKOUT`.", (stale.parent / "report.md").read_text())

    def test_a_missing_report_is_an_error_and_nothing_is_kept(self):
        result = self.keep()

        self.assertEqual(2, result.returncode)
        self.assertIn(f"keep-report: error: {self.out} has no report (report/report.md and report/summary.json)", result.stderr)
        self.assertEqual(["README.md"], [p.name for p in self.results.iterdir()])
        self.assertEqual(INDEX, (self.results / "README.md").read_text())

    def test_a_base_without_a_patches_folder_or_a_path_of_this_machine_keeps_nothing(self):
        self.write_run(f"# Stock\n\n{BASE_LINE.replace('csharp/v1.1.7', 'csharp/v9.9.9')}\n")
        self.assertIn("base 'csharp/v9.9.9' has no folder under patches/", self.keep().stderr)

        self.write_run(f"# Stock\n\n{BASE_LINE}\nlog: {self.root}/elsewhere/log.txt\n")
        result = self.keep()

        self.assertEqual(2, result.returncode)
        self.assertIn(f"paths of this machine would be kept: {self.root}/elsewhere/log.txt", result.stderr)
        self.assertEqual(["README.md"], [p.name for p in self.results.iterdir()])


if __name__ == "__main__":
    sys.exit(unittest_trx.main(sys.modules[__name__], "report-keep-report", sys.argv[1:]))
