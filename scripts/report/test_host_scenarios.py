#!/usr/bin/python3
"""scripts/report/host_scenarios.py: the small-budget scenario's bound on what the database's budget had in use, and the
runtime the section names.

    test_host_scenarios.py [--trx FILE]     (run by scripts/test)
"""
import sys
import unittest

import host_scenarios
import unittest_trx

MIB = 1024 * 1024
# tag 21's concurrent-16-on-1 (2026-11-29): a 32 MiB budget, the largest of the sixteen readers' files 8,574,411 bytes.
LIMIT, LARGEST = 32 * MIB, 8_574_411
# 32 MiB + 16 x (8,574,411 + 2 x 4,194,304) bytes, worked out by hand.
BOUND = 304_962_736


def run(peak_in_use):
    return {"driver": "patched", "scenario": host_scenarios.SMALL_BUDGET, "workload": "concurrent", "rows": 718_750,
            "expectedRows": 718_750, "errors": [], "rowsVerified": True, "valueErrors": 0, "wallSeconds": 4.0,
            "peakWorkingSetBytes": 400 * MIB, "peakWorkingSetAboveBeforeOpenBytes": 300 * MIB,
            "concurrent": {"largestFileBytes": LARGEST},
            "overlayMetrics": {"inUseBytes": 0, "retainedBytes": 0,
                               "budget": {"limitBytes": LIMIT, "peakInUseBytes": peak_in_use}}}


class SmallBudgetBound(unittest_trx.RunFilesCase):
    def bound_target(self, peaks):
        self.write([run(peak) for peak in peaks], self.dir / "host")
        _, targets, _ = host_scenarios.section(self.dir / "host", self.dir / "report")
        [target] = [t for t in targets if "budget in use within" in t["name"]]
        return target

    def test_the_bound_is_the_budget_plus_a_file_and_two_decode_blocks_per_reader(self):
        self.assertEqual(BOUND, host_scenarios.budget_bound(LIMIT, LARGEST, readers=16))

    def test_a_reader_holding_its_block_decoded_ahead_stays_within(self):
        # 245,390,156 bytes: the highest of verify's second run on tag 21, over the one-block bound of 2026-11-28.
        target = self.bound_target([211_829_878, 245_390_156, BOUND])
        self.assertTrue(target["met"], target)
        self.assertIn("bound 290.8 MB", target["measured"])

    def test_one_run_past_the_bound_misses(self):
        target = self.bound_target([211_829_878, BOUND + 1, 241_161_075])
        self.assertFalse(target["met"], target)


class RuntimeNamed(unittest_trx.RunFilesCase):
    def intro(self, runtimes):
        self.write([dict(run(0), runtime=name) if name else run(0) for name in runtimes], self.dir / "host")
        lines, _, _ = host_scenarios.section(self.dir / "host", self.dir / "report")
        return [line for line in lines if line.startswith("The probe ran on")]

    def test_the_section_names_the_runtime_its_runs_report(self):
        self.assertEqual(["The probe ran on .NET 10.0.12."], self.intro([".NET 10.0.12", ".NET 10.0.12"]))

    def test_runs_on_two_runtimes_name_both(self):
        self.assertEqual(["The probe ran on .NET 10.0.12 and .NET 8.0.22."], self.intro([".NET 8.0.22", ".NET 10.0.12"]))

    def test_runs_without_a_runtime_say_so(self):
        self.assertEqual(["The probe ran on a runtime it did not name."], self.intro([None, None]))

    def test_the_cpu_cache_the_gc_sizes_its_youngest_generation_from_is_named(self):
        self.write([dict(run(0), runtime=".NET 10.0.12", cpuCacheBytes=314_572_800)], self.dir / "host")
        lines, _, _ = host_scenarios.section(self.dir / "host", self.dir / "report")
        [line] = [line for line in lines if line.startswith("The probe ran on")]
        self.assertTrue(line.startswith("The probe ran on .NET 10.0.12, on a CPU whose largest cache is 300 MiB (.NET's GC"), line)


if __name__ == "__main__":
    sys.exit(unittest_trx.main(sys.modules[__name__], "host-scenarios", sys.argv[1:]))
