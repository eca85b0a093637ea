#!/usr/bin/python3
"""scripts/report/pipeline_scenarios.py: issue 34's consumer and network scenarios in the host scenarios' section (medians
of stock, wide-tuned stock and patched, the targets as goals with their measured causes, the meter's instruments found
by name or n/a), and a report of the host scenarios alone (scripts/verify --host-only).

    test_pipeline_scenarios.py [--trx FILE]     (run by scripts/test)
"""
import json
import sys
import unittest

import host_scenarios
import pipeline_scenarios
import unittest_trx
import write_report

MB = 1024 * 1024


def run(driver, scenario, wall, peak_above_mb, first_batch=0.5, in_flight=3, contention=None, peaks=None):
    result = {"driver": driver, "scenario": scenario, "workload": "concurrent", "rowsVerified": True, "valueErrors": 0, "errors": [],
              "valuesChecked": 1000, "wallSeconds": wall, "peakWorkingSetBytes": (peak_above_mb + 100) * MB,
              "peakWorkingSetAboveBeforeOpenBytes": peak_above_mb * MB,
              "concurrent": {"firstBatchSeconds": first_batch,
                             "downloads": {"peakInFlight": in_flight, "bytesSent": 470 * MB,
                                           "linkBytesPerSecond": 64 * MB if scenario == pipeline_scenarios.SHARED_LINK else None}},
              "overlayMetrics": {"inUseBytes": 0, "retainedBytes": 0, "peaks": peaks or {}} if driver == "patched" else None}
    if contention is not None:
        result["contention"] = {"cpuSeconds": contention * wall, "wallSeconds": wall}
    return result


def scenario_runs():
    """Three runs per driver and scenario; the medians are the middle values."""
    runs = []
    for index, factor in enumerate((1.0, 1.1, 0.9)):
        runs += [run("stock", "consumer-heavy", 2.4 * factor, 200), run("patched", "consumer-heavy", 1.8 * factor, 60),
                 run("stock", "consumer-heavy-contended", 2.5 * factor, 200, contention=0.95),
                 run("patched", "consumer-heavy-contended", 3.0 * factor, 60, contention=0.9),
                 run("stock", "network-loopback", 2.0 * factor, 250), run("stock-wide", "network-loopback", 1.8 * factor, 500),
                 run("patched", "network-loopback", 1.0 * factor, 70),
                 run("stock", "network-per-stream", 10.0 * factor, 200), run("stock-wide", "network-per-stream", 2.5 * factor, 450, in_flight=16),
                 run("patched", "network-per-stream", 9.0 * factor, 60, first_batch=0.9),
                 run("stock", "network-shared-link", 7.5 * factor, 200), run("stock-wide", "network-shared-link", 7.4 * factor, 450, in_flight=16),
                 run("patched", "network-shared-link", 7.6 * factor, 80)]
    return runs


class PipelineSection(unittest_trx.RunFilesCase):
    def section(self, runs):
        self.write(runs, self.dir / "host")
        lines, targets, failures = host_scenarios.section(self.dir / "host", self.dir / "report")
        return "\n".join(lines), {t["name"]: t for t in targets}, failures

    def test_three_drivers_side_by_side_with_both_ratios(self):
        text, _, failures = self.section(scenario_runs())
        self.assertEqual([], failures)
        self.assertIn("### Consumer and network", text)
        self.assertIn("| consumer-heavy: Wall time | 2.40 s | n/a | 1.80 s | 0.75 |  |", text)
        self.assertIn("| network-per-stream: Wall time | 10.00 s | 2.50 s | 9.00 s | 0.90 | 3.60 |", text)
        self.assertIn("| network-per-stream: Peak working set above before open | 200.0 MB | 450.0 MB | 60.0 MB | 0.30 | 0.13 |", text)
        self.assertIn("| network-per-stream: Downloads in flight at most (mock's journal) | 3 | 16 | 3 |  |  |", text)
        self.assertIn("| consumer-heavy-contended: cores the contention process used (its CPU time / the run's wall time) | 0.95 |  | 0.90 |  |  |", text)
        # The issue 16 subsections are left out when their scenarios did not run (--host-scenarios).
        self.assertNotIn("### Partial read", text)
        self.assertNotIn("### Long-lived", text)

    def test_targets_are_goals_with_their_measured_causes(self):
        _, targets, _ = self.section(scenario_runs())
        met = {name: t["met"] for name, t in targets.items()}
        self.assertEqual({
            "consumer-heavy: wall time vs stock": True,
            "consumer-heavy-contended: wall time vs stock under the same contention": False,
            "network-per-stream: wall time vs stock": False,
            "network-per-stream: wall time vs wide-tuned stock": False,
            "network-per-stream: peak working set above before open vs wide-tuned stock": True,
            "network-shared-link: wall time vs stock": False,
            "network-shared-link: peak working set above before open no higher than over loopback (network-loopback, patched)": False,
        }, met)
        self.assertEqual("0.90x (9.00 s vs 10.00 s); downloads in flight at most: stock 3, wide-tuned stock 16, patched 3",
                         targets["network-per-stream: wall time vs stock"]["measured"])
        self.assertEqual("1.20x (3.00 s vs 2.50 s); the contention process used 0.90 cores",
                         targets["consumer-heavy-contended: wall time vs stock under the same contention"]["measured"])
        self.assertIn("the link alone needs 7.34 s for the result's 470 MB", targets["network-shared-link: wall time vs stock"]["measured"])
        self.assertEqual("1.14x (80.0 MB vs 70.0 MB)",
                         targets["network-shared-link: peak working set above before open no higher than over loopback (network-loopback, patched)"]["measured"])

    def test_the_shared_link_peak_says_what_the_meter_saw_over_the_link_and_over_loopback(self):
        window = pipeline_scenarios.meter_instrument("Window")
        runs = scenario_runs()
        for result in runs:
            if result["driver"] == "patched" and result["scenario"] in pipeline_scenarios.NETWORK:
                wide = result["scenario"] == pipeline_scenarios.SHARED_LINK
                result["overlayMetrics"]["peaks"] = {window: 4 if wide else 2}
                result["overlayMetrics"]["budget"] = {"peakInUseBytes": (44.9 if wide else 32.5) * MB}
        _, targets, _ = self.section(runs)
        self.assertEqual("1.14x (80.0 MB vs 70.0 MB); the window reached 4 files over the link and 2 over loopback; "
                         "the budget's peak in use 44.9 MB vs 32.5 MB",
                         targets["network-shared-link: peak working set above before open no higher than over loopback (network-loopback, patched)"]["measured"])

    def test_meter_instruments_are_found_by_name_or_shown_as_not_available(self):
        names = {"MeterName": "Apache.Arrow.Adbc.Drivers.Databricks.Memory", "BudgetWaiters": "adbc.databricks.memory.budget.waiters",
                 "CloudFetchFilesInFlight": "adbc.databricks.cloudfetch.files_in_flight",
                 "CloudFetchFilesWaiting": "adbc.databricks.cloudfetch.files_waiting"}
        self.assertEqual("adbc.databricks.cloudfetch.files_in_flight", pipeline_scenarios.meter_instrument("InFlight", names))
        self.assertEqual("adbc.databricks.cloudfetch.files_waiting", pipeline_scenarios.meter_instrument("Waiting", names))
        self.assertIsNone(pipeline_scenarios.meter_instrument("Window", names))
        peak = pipeline_scenarios.meter_peak("adbc.databricks.cloudfetch.files_in_flight")
        self.assertEqual(5, peak(run("patched", "network-per-stream", 1, 1, peaks={"adbc.databricks.cloudfetch.files_in_flight": 5})))
        self.assertIsNone(pipeline_scenarios.meter_peak(None)(run("patched", "network-per-stream", 1, 1)))
        # Runs without the meter's peaks: the rows say n/a.
        text, _, _ = self.section(scenario_runs())
        self.assertIn("| network-per-stream: Window at most (driver's meter) | n/a | n/a | n/a |  |  |", text)

    def test_host_only_report_has_the_host_scenarios_alone_and_their_misses_do_not_fail_it(self):
        (self.dir / "results").mkdir()
        self.write(scenario_runs(), self.dir / "host")
        status = write_report.main(self.dir / "results", self.dir / "report", host_dir=self.dir / "host")
        report = (self.dir / "report" / "report.md").read_text()
        summary = json.loads((self.dir / "report" / "summary.json").read_text())
        self.assertEqual(0, status)
        self.assertTrue(report.startswith("# Host scenarios\n"))
        self.assertIn("`scripts/verify --host-only`", report)
        self.assertEqual([], summary["targets"])
        self.assertIn(False, [t["met"] for t in summary["hostTargets"]])

    def test_a_wrong_value_in_a_scenario_is_a_correctness_failure(self):
        runs = scenario_runs()
        runs[0].update(rowsVerified=False, valueErrors=2, errors=["row 9: wrong value"])
        _, _, failures = self.section(runs)
        self.assertEqual(1, len(failures))
        self.assertIn("stock/consumer-heavy", failures[0])


if __name__ == "__main__":
    sys.exit(unittest_trx.main(sys.modules[__name__], "pipeline-scenarios", sys.argv[1:]))
