#!/usr/bin/python3
"""The recording path of scripts/verify, end to end: record_counters (scripts/verify.d/counters.sh) runs a small child
that publishes known values on the overlay's own meter (integration-tests/CountersSubject, built by scripts/test)
under `dotnet dotnet-counters collect`, and the report's parser (counter_recordings.read_recording) reads the CSV back.

    test_counters_recording.py [--trx FILE]     (run by scripts/test; needs `dotnet tool restore` done)

Fails when dotnet-counters does not record the overlay's meter with its tags, when the child's exit code is lost,
or when the report reads the recording wrong.
"""
import csv
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

import counter_recordings
import metric_names
import unittest_trx

REPO = pathlib.Path(__file__).resolve().parents[2]
SUBJECT = REPO / "artifacts" / "bin" / "CountersSubject" / "Release" / "net10.0" / "CountersSubject.dll"
MIB = 1024 * 1024
SCOPE = "7"


def record(csv, *command):
    """record_counters CSV LOG COMMAND... as scripts/verify calls it: (recorded_status, printed output)."""
    script = ('set -euo pipefail; repo_root="$1"; shift; source "$repo_root/scripts/verify.d/counters.sh"; '
              'record_counters "$@"; printf "recorded_status=%s\\n" "$recorded_status"')
    done = subprocess.run(["bash", "-c", script, "bash", str(REPO), str(csv), str(csv) + ".log", *command],
                          capture_output=True, text=True, timeout=300, check=True)
    status = [line for line in done.stdout.splitlines() if line.startswith("recorded_status=")][-1]
    return status.split("=", 1)[1], done.stdout


class RecordedRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not SUBJECT.exists():
            raise AssertionError(f"{SUBJECT} is not built (scripts/test builds the solution first)")
        cls.dir = tempfile.TemporaryDirectory()
        cls.csv = pathlib.Path(cls.dir.name) / "patched-subject-1.csv"
        cls.status, cls.output = record(cls.csv, "dotnet", str(SUBJECT), "3")
        with open(cls.csv, newline="") as handle:
            cls.rows = list(csv.DictReader(handle))

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def values(self, instrument, **tags):
        """Every recorded value of one instrument of the overlay's meter with exactly these tags, in order."""
        found = []
        for row in self.rows:
            name, row_tags = counter_recordings.parse_counter_name(row["Counter Name"])
            if row["Provider"] == metric_names.METER_NAME and name == instrument and row_tags == tags:
                found.append(float(row["Mean/Increment"]))
        return found

    def test_the_childs_exit_code_comes_through(self):
        self.assertEqual("3", self.status)
        self.assertIn("counters subject: exiting with 3", self.output)

    def test_in_use_is_recorded_per_scope_and_pool_with_its_values(self):
        lz4 = self.values(metric_names.IN_USE, pool=metric_names.LZ4_BUFFERS_POOL, scope=SCOPE)
        self.assertGreaterEqual(len(lz4), 2, lz4)
        self.assertEqual(3 * MIB, lz4[0])
        self.assertEqual(2 * MIB, lz4[-1])
        self.assertEqual({3 * MIB, 2 * MIB}, set(lz4))
        self.assertEqual({1000.0}, set(self.values(metric_names.IN_USE, pool=metric_names.ARROW_BATCHES_POOL, scope=SCOPE)))

    def test_a_counter_is_recorded_as_increments_adding_up_to_its_total(self):
        self.assertEqual(555, sum(self.values(metric_names.COLLECTED, pool=metric_names.LZ4_BUFFERS_POOL, scope=SCOPE)))
        self.assertEqual({1.0}, set(self.values(metric_names.LIVE_SCOPES, scope=SCOPE)))

    def test_the_runtime_counters_are_recorded_too(self):
        names = {counter_recordings.parse_counter_name(row["Counter Name"])[0] for row in self.rows if row["Provider"] == "System.Runtime"}
        self.assertIn(counter_recordings.HEAP_SIZE, names)

    def test_the_report_reads_the_largest_in_use_of_one_scope_and_pool(self):
        rows, heap, in_use = counter_recordings.read_recording(self.csv)
        self.assertEqual(len(self.rows), rows)
        self.assertEqual(3 * MIB, in_use)
        self.assertIsNotNone(heap)
        section = "\n".join(counter_recordings.section(self.csv.parent, self.csv.parent / "report"))
        self.assertIn(f"| patched-subject-1 | [../patched-subject-1.csv](../patched-subject-1.csv) | {rows:,} |", section)
        self.assertIn("| 3.0 MB |", section)


class UnrecordedRun(unittest.TestCase):
    def test_a_child_that_never_starts_gives_no_exit_code_and_a_header_only_csv(self):
        with tempfile.TemporaryDirectory() as folder:
            csv = pathlib.Path(folder) / "stock-missing-1.csv"
            status, _ = record(csv, "dotnet", str(pathlib.Path(folder) / "no-such-program.dll"))
            self.assertEqual("", status)
            self.assertEqual("Timestamp,Provider,Counter Name,Counter Type,Mean/Increment", csv.read_text().strip())
            self.assertEqual((0, None, None), counter_recordings.read_recording(csv))


if __name__ == "__main__":
    os.chdir(REPO)
    sys.exit(unittest_trx.main(sys.modules[__name__], "counters-recording", sys.argv[1:]))
