#!/usr/bin/python3
"""scripts/report/mono_runtime.py: the section "Mono 6.8, the .NET Framework 4.7.2 stand-in" from the memory probe's
net472 runs (medians, stock beside patched, issue 33's targets, what Mono cannot measure, the correctness checks), and
how write_report.py takes the Mono results.

    test_mono_runtime.py [--trx FILE]     (run by scripts/test)
"""
import sys
import unittest

import mono_runtime
import unittest_trx
import write_report

MB = 1024 * 1024
MONO = "Mono 6.8.0.105 (Debian 6.8.0.105+dfsg-3.3+deb12u1)"


def run(driver, scenario, **values):
    result = {"driver": driver, "scenario": scenario, "rowsVerified": True, "valueErrors": 0, "sampleEvery": 1, "errors": [],
              "allocatedBytes": None, "gc": {"runtimeName": MONO},
              "overlayMetrics": {"inUseBytes": 0, "retainedBytes": 0} if driver == "patched" else None}
    result.update(values)
    return result


def full_read(driver, peak_mb, full, wall, heap_mb=0.0):
    return run(driver, mono_runtime.FULL_READ, peakWorkingSetBytes=peak_mb * MB, fullCollections=full, wallSeconds=wall,
               gcHeapAfterDisposeDeltaBytes=heap_mb * MB)


def above(driver, scenario, peak_above_mb):
    return run(driver, scenario, peakWorkingSetAboveBeforeOpenBytes=peak_above_mb * MB, gcHeapBeforeOpenBytes=10 * MB,
               **({"partial-read": {"gcHeapRightAfterDisposeBytes": 11 * MB}} if scenario == mono_runtime.PARTIAL_READ else {}))


class MonoSection(unittest_trx.RunFilesCase):
    def targets(self):
        lines, targets, failures = mono_runtime.section(self.dir)
        return "\n".join(lines), {t["name"]: t for t in targets}, failures

    def test_medians_side_by_side_and_every_target_met(self):
        self.write([full_read("stock", 350, 30, 20.0), full_read("stock", 340, 31, 22.0), full_read("stock", 360, 29, 40.0),
                    full_read("patched", 140, 20, 12.0, heap_mb=0.5), full_read("patched", 150, 25, 14.0, heap_mb=1.0),
                    full_read("patched", 130, 22, 10.0, heap_mb=0.2),
                    above("stock", mono_runtime.PARTIAL_READ, 200), above("patched", mono_runtime.PARTIAL_READ, 60),
                    above("patched", mono_runtime.ONE_QUERY, 50), above("patched", mono_runtime.FOUR_ON_ONE, 90)])
        text, targets, failures = self.targets()
        self.assertEqual([], failures)
        self.assertIn("## Mono 6.8, the .NET Framework 4.7.2 stand-in", text)
        self.assertIn(MONO, text)
        # Medians: stock 350 MB, 30 collections, 22 s; patched 140 MB, 22, 12 s.
        self.assertIn("| Peak working set | 350.0 MB | 140.0 MB | 0.40 |", text)
        self.assertIn("| Full collections (Mono: major collections) | 30 | 22 | 0.73 |", text)
        self.assertIn("| Wall time | 22.00 s | 12.00 s | 0.55 |", text)
        self.assertEqual("0.400x (140.0 MB vs 350.0 MB)", targets["full read: peak working set vs stock"]["measured"])
        self.assertEqual("22 vs 30", targets["full read: full collections vs stock"]["measured"])
        self.assertEqual("0.5 MB", targets["full read: GC heap after dispose vs before open (patched)"]["measured"])
        self.assertEqual("6 of 6 runs", targets["full read: every value checked and right (every run)"]["measured"])
        self.assertEqual("0.300x (60.0 MB vs 200.0 MB)", targets["partial read: peak working set above before open vs stock"]["measured"])
        self.assertEqual("1.80x (90.0 MB vs 50.0 MB)",
                         targets["4 queries at once on one database, peak above before open vs one query (patched)"]["measured"])
        self.assertTrue(all(t["met"] for t in targets.values()), [t for t in targets.values() if not t["met"]])
        self.assertIn("### What Mono cannot measure", text)
        self.assertIn("Total allocated bytes", text)

    def test_each_target_is_missed_where_its_figure_is_over(self):
        self.write([full_read("stock", 300, 30, 20.0), full_read("patched", 150, 51, 17.0, heap_mb=27.3),
                    above("stock", mono_runtime.PARTIAL_READ, 100), above("patched", mono_runtime.PARTIAL_READ, 41),
                    above("patched", mono_runtime.ONE_QUERY, 50), above("patched", mono_runtime.FOUR_ON_ONE, 101)])
        _, targets, failures = self.targets()
        self.assertEqual([], failures)
        missed = sorted(name for name, t in targets.items() if not t["met"])
        self.assertEqual(sorted([
            "full read: peak working set vs stock",  # 0.5x > 0.45x
            "full read: full collections vs stock",  # 51 > 30
            "full read: wall time vs stock",  # 0.85x > 0.8x
            "full read: GC heap after dispose vs before open (patched)",  # 27.3 MB > 5 MB
            "partial read: peak working set above before open vs stock",  # 0.41x > 0.4x
            "4 queries at once on one database, peak above before open vs one query (patched)",  # 2.02x > 2x
        ]), missed)

    def test_sampled_values_wrong_rows_and_pool_bytes_left_fail(self):
        self.write([full_read("stock", 300, 30, 20.0) | {"sampleEvery": 1000},
                    full_read("patched", 150, 20, 10.0) | {"rowsVerified": False, "valueErrors": 2, "errors": ["row 9: wrong"]},
                    full_read("patched", 150, 20, 10.0) | {"overlayMetrics": {"inUseBytes": 4096, "retainedBytes": 0}}])
        _, targets, failures = self.targets()
        self.assertFalse(targets["full read: every value checked and right (every run)"]["met"])
        self.assertFalse(targets["full read: pools in use and retained after dispose (patched, every run)"]["met"])
        self.assertEqual(2, len(failures), failures)
        self.assertTrue(all(f.startswith("Mono: patched/mono-full-read") for f in failures), failures)

    def test_http_runs_beside_https_and_the_targets_stay_on_https(self):
        http_full, http_partial = mono_runtime.FULL_READ_HTTP, mono_runtime.PARTIAL_READ_HTTP
        self.write([full_read("stock", 430, 108, 150.0), full_read("patched", 210, 175, 120.0),
                    full_read("stock", 310, 34, 110.0) | {"scenario": http_full},
                    full_read("patched", 115, 3, 80.0) | {"scenario": http_full},
                    above("stock", mono_runtime.PARTIAL_READ, 180), above("patched", mono_runtime.PARTIAL_READ, 114),
                    above("stock", http_partial, 180), above("patched", http_partial, 72)])
        text, targets, failures = self.targets()
        self.assertEqual([], failures)
        self.assertIn(f"| Metric | stock (mono-full-read) | patched (mono-full-read) | patched / stock | stock ({http_full}) "
                      f"| patched ({http_full}) | patched / stock |", text)
        self.assertIn("| Full collections (Mono: major collections) | 108 | 175 | 1.62 | 34 | 3 | 0.09 |", text)
        self.assertIn("| Peak working set above before open | 180.0 MB | 114.0 MB | 0.63 | 180.0 MB | 72.0 MB | 0.40 |", text)
        self.assertIn(f"Runs per column (medians shown): stock/mono-full-read: 1, patched/mono-full-read: 1, stock/{http_full}: 1", text)
        self.assertIn("BufferOffsetSize2.Reset", text)
        # The targets are the https figures', whatever http shows.
        self.assertEqual("175 vs 108", targets["full read: full collections vs stock"]["measured"])
        self.assertFalse(targets["full read: full collections vs stock"]["met"])
        self.assertEqual("0.633x (114.0 MB vs 180.0 MB)", targets["partial read: peak working set above before open vs stock"]["measured"])

    def test_without_http_runs_one_column_per_scenario(self):
        self.write([full_read("stock", 300, 30, 20.0), full_read("patched", 150, 20, 10.0)])
        text, _, _ = self.targets()
        self.assertIn("| Metric | stock (mono-full-read) | patched (mono-full-read) | patched / stock |\n", text)
        self.assertNotIn(mono_runtime.FULL_READ_HTTP, text)

    def test_the_net472_build_notes_are_shown(self):
        self.write([full_read("stock", 300, 30, 20.0)])
        notes = {"overrides": [{"argument": "-p:IsWindows=true", "reason": "upstream builds net472 only on Windows"}],
                 "substitutions": [{"package": "ApacheThrift", "resolved": "0.25.0", "pinned": "0.22.0", "by": "AdbcDrivers.HiveServer2"}]}
        text = "\n".join(mono_runtime.section(self.dir, notes)[0])
        self.assertIn("- `-p:IsWindows=true`: upstream builds net472 only on Windows", text)
        self.assertIn("- built against ApacheThrift 0.25.0; the tag pins 0.22.0", text)

    def test_no_runs_no_target_met(self):
        _, targets, failures = self.targets()
        self.assertEqual([], failures)
        self.assertTrue(targets and not any(t["met"] for t in targets.values()))


class ReportArguments(unittest.TestCase):
    def test_the_mono_results_option(self):
        self.assertEqual({"results_dir": "R", "output_dir": "O", "counters_dir": None, "notes_file": None, "host_dir": None,
                          "upstream_summary": None, "rest_dir": None, "mono_dir": "M", "mono_notes_file": "N"},
                         write_report.arguments(["R", "--mono-results", "M", "O", "--mono-build-notes", "N"]))


if __name__ == "__main__":
    sys.exit(unittest_trx.main(sys.modules[__name__], "mono-runtime-report", sys.argv[1:]))
