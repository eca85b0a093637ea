#!/usr/bin/python3
"""scripts/report/full_read.py: the full read's targets (evaluate_targets), whose misses make scripts/verify exit 3, each
met and missed at its limit in scripts/report/targets.json, and write_report.py's exit status from them. Every expected
value is worked out by hand from the runs below.

    test_full_read.py [--trx FILE]     (run by scripts/test)
"""
import contextlib
import io
import json
import pathlib
import sys
import tempfile
import unittest

import full_read
import unittest_trx
import write_report

MB = 1024 * 1024
SCENARIO = "cloudfetch-11m"


def run(driver, scenario=SCENARIO, **values):
    result = {"driver": driver, "scenario": scenario, "rowsVerified": True, "valueErrors": 0,
              "overlayMetrics": {"inUseBytes": 0, "retainedBytes": 0} if driver == "patched" else None}
    result.update(values)
    return result


def stock():
    return run("stock", allocatedBytes=100 * MB, gen2Collections=20, wallSeconds=10.0, peakWorkingSetBytes=200 * MB)


def patched(**values):
    """A patched run exactly at apache/arrow-adbc's limits: 0.05x allocated, 0.1x Gen2, 0.5x wall, 0.2x peak, 1 MB heap."""
    result = run("patched", allocatedBytes=5 * MB, gen2Collections=2, wallSeconds=5.0, peakWorkingSetBytes=40 * MB,
                 gen2CollectionsByReason={"induced_not_forced": 0, "alloc_soh": 2},
                 gcHeapAfterDisposeDeltaBytes=MB, gcHeapAfterDisposeDatabaseKeptDeltaBytes=-MB)
    result.update(values)
    return result


def evaluate(runs, repository="apache/arrow-adbc"):
    groups = {}
    for result in runs:
        groups.setdefault((result["driver"], result["scenario"]), []).append(result)
    targets = full_read.evaluate_targets(groups, SCENARIO, SCENARIO + "-x2", SCENARIO + "-undisposed", repository)
    return {t["name"]: (t["target"], t["measured"], t["met"]) for t in targets}


ALLOCATED, GEN2, WALL, PEAK = ("Total allocated vs stock", "Gen2 collections vs stock", "Wall time vs stock",
                               "Peak working set vs stock")
INDUCED = "Gen2 induced by GC.AddMemoryPressure (patched, any run)"
HEAP = "GC heap after dispose + compacting GC vs before open (patched)"
KEPT = "... the same with the disposed database object still referenced (patched)"
GROWTH = "Peak working set growth when the result doubles (patched)"
DOUBLED_WALL = "Measurement: wall time when the result doubles (patched), doubled / single"
UNDISPOSED = "Peak working set, batches never disposed (patched), vs stock with batches disposed"
# Each target as the report words apache/arrow-adbc's limit (scripts/report/targets.json).
LIMITS = {ALLOCATED: "<= 0.05x", GEN2: "<= 0.1x (stretch: 0)", WALL: "<= 0.5x", PEAK: "<= 0.2x", INDUCED: "0",
          HEAP: "within 1 MB", KEPT: "within 1 MB", GROWTH: "< 10%", DOUBLED_WALL: "<= 2.2x", UNDISPOSED: "<= 1.0x"}


def at_limits(met, measured):
    """What evaluate gives when every target named in measured is met (or every one missed) at apache/arrow-adbc's limit."""
    return {name: (LIMITS[name], value, met) for name, value in measured.items()}


class FullReadTargets(unittest.TestCase):
    def test_every_target_met_at_or_within_its_limit(self):
        targets = evaluate([stock(), patched(),
                            run("patched", SCENARIO + "-x2", peakWorkingSetBytes=43 * MB, wallSeconds=11.0),
                            run("patched", SCENARIO + "-undisposed", peakWorkingSetBytes=200 * MB)])
        self.assertEqual(at_limits(True, {
            ALLOCATED: "0.050x",
            GEN2: "2 vs 20",
            WALL: "0.500x",
            PEAK: "0.200x",
            INDUCED: "0",
            HEAP: "1.0 MB",
            KEPT: "-1.0 MB",
            GROWTH: "7.5% (medians of 1 and 1 runs)",
            DOUBLED_WALL: "2.20x (medians of 1 and 1 runs)",
            UNDISPOSED: "200.0 MB vs 200.0 MB",
        }), targets)

    def test_every_target_missed_just_past_its_limit(self):
        targets = evaluate([stock(), patched(allocatedBytes=5.1 * MB, gen2Collections=3, wallSeconds=5.1,
                                             peakWorkingSetBytes=50 * MB, gen2CollectionsByReason={"induced_not_forced": 1},
                                             gcHeapAfterDisposeDeltaBytes=MB + 1, gcHeapAfterDisposeDatabaseKeptDeltaBytes=-MB - 1),
                            # 55 MB is 10% above 50 MB, not below 10%; 11.23 s is 2.202x of 5.1 s.
                            run("patched", SCENARIO + "-x2", peakWorkingSetBytes=55 * MB, wallSeconds=11.23),
                            run("patched", SCENARIO + "-undisposed", peakWorkingSetBytes=200 * MB + 1)])
        self.assertEqual(at_limits(False, {
            ALLOCATED: "0.051x",
            GEN2: "3 vs 20",
            WALL: "0.510x",
            PEAK: "0.250x",
            INDUCED: "1",
            HEAP: "1.0 MB",
            KEPT: "-1.0 MB",
            GROWTH: "10.0% (medians of 1 and 1 runs)",
            DOUBLED_WALL: "2.20x (medians of 1 and 1 runs)",
            UNDISPOSED: "200.0 MB vs 200.0 MB",
        }), targets)

    def test_the_new_home_has_looser_ratio_limits_and_an_unknown_repository_gets_apache_arrow_adbc_s(self):
        # 0.3x allocated, 0.6x wall, 0.4x peak: adbc-drivers/databricks' limits exactly.
        runs = [stock(), patched(allocatedBytes=30 * MB, wallSeconds=6.0, peakWorkingSetBytes=80 * MB)]
        new_home = evaluate(runs, "adbc-drivers/databricks")
        self.assertEqual(("<= 0.3x", "0.300x", True), new_home[ALLOCATED])
        self.assertEqual(("<= 0.6x", "0.600x", True), new_home[WALL])
        self.assertEqual(("<= 0.4x", "0.400x", True), new_home[PEAK])
        for repository in ("apache/arrow-adbc", "someone/else"):
            old_home = evaluate(runs, repository)
            self.assertEqual(("<= 0.05x", "0.300x", False), old_home[ALLOCATED])
            self.assertEqual(("<= 0.5x", "0.600x", False), old_home[WALL])
            self.assertEqual(("<= 0.2x", "0.400x", False), old_home[PEAK])

    def test_gen2_none_patched_meets_the_target_even_when_stock_has_none(self):
        targets = evaluate([run("stock", gen2Collections=0), patched(gen2Collections=0)])
        self.assertEqual(("<= 0.1x (stretch: 0)", "0 vs 0", True), targets[GEN2])

    def test_missing_figures_are_n_a_and_not_met(self):
        result = patched()
        del result["wallSeconds"], result["gen2CollectionsByReason"], result["gcHeapAfterDisposeDeltaBytes"]
        targets = evaluate([stock(), result])
        self.assertEqual(("<= 0.5x", "n/a", False), targets[WALL])
        self.assertEqual(("0", "n/a (no Gen2 reasons recorded)", False), targets[INDUCED])
        self.assertEqual(("within 1 MB", "n/a", False), targets[HEAP])

    def test_only_the_targets_whose_runs_exist(self):
        self.assertEqual([INDUCED, HEAP, KEPT], list(evaluate([patched()])))
        self.assertEqual({}, evaluate([stock()]))
        self.assertEqual([ALLOCATED, GEN2, WALL, PEAK, INDUCED, HEAP, KEPT], list(evaluate([stock(), patched()])))


def write(runs):
    """write_report.main on these runs: its exit status, summary.json and report.md."""
    with tempfile.TemporaryDirectory() as directory:
        results = pathlib.Path(directory) / "results"
        results.mkdir()
        for index, result in enumerate(runs):
            (results / f"{result['driver']}-{result['scenario']}-{index}.json").write_text(json.dumps(result))
        with contextlib.redirect_stdout(io.StringIO()):  # main prints the report
            status = write_report.main(results, pathlib.Path(directory) / "report")
        report = pathlib.Path(directory) / "report"
        return status, json.loads((report / "summary.json").read_text()), (report / "report.md").read_text()


class RuntimeNamed(unittest.TestCase):
    def test_the_full_read_names_the_runtime_and_the_cpu_cache_its_runs_report_under_gc(self):
        gc = {"runtime": "10.0.12", "runtimeName": ".NET 10.0.12", "cpuCacheBytes": 32 * MB}
        _, _, report = write([stock() | {"gc": gc}, patched(gc=gc)])
        self.assertIn("The probe ran on .NET 10.0.12, on a CPU whose largest cache is 32 MiB (", report)


class ExitStatus(unittest.TestCase):
    """write_report.py's exit status, which scripts/verify turns into its own: 0 all met, 2 a target missed (verify: 3),
    1 a correctness failure."""

    def status(self, runs):
        status, summary, _ = write(runs)
        return status, summary

    def test_all_met_is_0_a_missed_target_2_and_a_wrong_row_1(self):
        self.assertEqual(0, self.status([stock(), patched()])[0])
        status, summary = self.status([stock(), patched(wallSeconds=5.1)])
        self.assertEqual(2, status)
        self.assertEqual([WALL], [t["name"] for t in summary["targets"] if not t["met"]])
        status, summary = self.status([stock(), patched(rowsVerified=False, valueErrors=3)])
        self.assertEqual(1, status)
        self.assertEqual(1, len(summary["correctnessFailures"]))
        self.assertTrue(summary["correctnessFailures"][0].startswith(f"patched/{SCENARIO} ("), summary)


if __name__ == "__main__":
    sys.exit(unittest_trx.main(sys.modules[__name__], "full-read-report", sys.argv[1:]))
