#!/usr/bin/python3
"""scripts/report/rest_protocol.py and the report writer's options: the REST protocol's section from the memory probe's
results (medians of the runs, stock beside patched, the correctness checks), and how write_report.py takes the REST
results and upstream's test summary.

    test_rest_protocol.py [--trx FILE]     (run by scripts/test)
"""
import sys
import unittest

import rest_protocol
import unittest_trx
import write_report

MB = 1024 * 1024


def full_read(driver, run, allocated_mb, wall, in_use=0, verified=True):
    return {"driver": driver, "scenario": "rest-cloudfetch-11m", "rowsVerified": verified, "valueErrors": 0 if verified else 3,
            "errors": [] if verified else ["row 7: wrong value"], "allocatedBytes": allocated_mb * MB, "gen2Collections": 2 if driver == "patched" else 20,
            "peakWorkingSetBytes": (150 if driver == "patched" else 330) * MB, "gcHeapAfterDisposeDeltaBytes": 0,
            "wallSeconds": wall, "overlayMetrics": {"inUseBytes": in_use, "retainedBytes": 0} if driver == "patched" else None, "_run": run}


def partial_read(driver, run, started_after, heap_delta_mb=0):
    return {"driver": driver, "scenario": "rest-partial-read", "workload": "partial-read", "rowsVerified": True, "valueErrors": 0,
            "allocatedBytes": 40 * MB, "gen2Collections": 0, "peakWorkingSetBytes": 200 * MB, "peakWorkingSetAboveBeforeOpenBytes": 90 * MB,
            "gcHeapBeforeOpenBytes": 10 * MB, "gcHeapAfterDisposeDeltaBytes": heap_delta_mb * MB, "wallSeconds": 3.0,
            "partial-read": {"downloadsStartedAfterDispose": started_after, "bytesSentAfterDispose": 0, "gcHeapRightAfterDisposeBytes": 11 * MB},
            "overlayMetrics": {"inUseBytes": 0, "retainedBytes": 0} if driver == "patched" else None}


class RestSection(unittest_trx.RunFilesCase):
    def test_medians_of_each_driver_side_by_side_with_the_ratio(self):
        self.write([full_read("stock", 1, 600, 6.0), full_read("stock", 2, 580, 5.0), full_read("stock", 3, 590, 9.0),
                    full_read("patched", 1, 90, 2.0), full_read("patched", 2, 87, 2.5), full_read("patched", 3, 88, 1.0),
                    partial_read("stock", 1, 3, heap_delta_mb=-5), partial_read("patched", 1, 0, heap_delta_mb=1)])
        lines, failures = rest_protocol.section(self.dir)
        text = "\n".join(lines)
        self.assertEqual([], failures)
        # Medians: stock 590 MB and 6.0 s, patched 88 MB and 2.0 s.
        self.assertIn("| Total allocated | 590.0 MB | 88.0 MB | 0.15 |", text)
        self.assertIn("| Wall time | 6.00 s | 2.00 s | 0.33 |", text)
        self.assertIn("| Peak working set | 330.0 MB | 150.0 MB | 0.45 |", text)
        self.assertIn("| Downloads started after the dispose | 3 | 0 |", text)
        # A difference that went below zero gets no ratio.
        self.assertIn("| GC heap 2 s later, minus before open | -5.0 MB | 1.0 MB |  |", text)
        self.assertIn("| GC heap right after the dispose (compacting collection), minus before open | 1.0 MB | 1.0 MB |", text)
        self.assertIn("Runs per column (medians shown): stock/rest-cloudfetch-11m: 3, patched/rest-cloudfetch-11m: 3", text)

    def test_wrong_rows_and_pool_bytes_left_in_use_are_correctness_failures(self):
        self.write([full_read("stock", 1, 600, 6.0, verified=False), full_read("patched", 1, 90, 2.0, in_use=4096)])
        lines, failures = rest_protocol.section(self.dir)
        self.assertEqual(2, len(failures), failures)
        self.assertTrue(failures[0].startswith("REST: patched/rest-cloudfetch-11m"), failures)
        self.assertIn("in use 4096", failures[0])
        self.assertTrue(failures[1].startswith("REST: stock/rest-cloudfetch-11m"), failures)


class ReportArguments(unittest.TestCase):
    def test_options_go_anywhere_and_positionals_keep_their_order(self):
        self.assertEqual({"results_dir": "R", "output_dir": "O", "counters_dir": "C", "notes_file": "N", "host_dir": "H",
                          "upstream_summary": "U", "rest_dir": "REST", "mono_dir": None, "mono_notes_file": None},
                         write_report.arguments(["--upstream-tests", "U", "R", "O", "--rest-results", "REST", "C", "N", "H"]))
        self.assertEqual({"results_dir": "R", "output_dir": "O", "counters_dir": None, "notes_file": None, "host_dir": None,
                          "upstream_summary": None, "rest_dir": None, "mono_dir": None, "mono_notes_file": None},
                         write_report.arguments(["R", "O"]))

    def test_a_missing_output_dir_or_an_extra_argument_is_a_usage_error(self):
        for argv in (["R"], ["R", "O", "C", "N", "H", "extra"], ["R", "O", "--rest-results"]):
            with self.assertRaises(SystemExit) as exit:
                write_report.arguments(argv)
            self.assertEqual(2, exit.exception.code, argv)


if __name__ == "__main__":
    sys.exit(unittest_trx.main(sys.modules[__name__], "rest-protocol-report", sys.argv[1:]))
