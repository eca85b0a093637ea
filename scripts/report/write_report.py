#!/usr/bin/python3
"""Turns the memory probe's JSON results (one file per run) into the stock-vs-patched report: report.md, with a section
per kind of run, its charts, and summary.json. The targets' limits are in scripts/report/targets.json.

    write_report.py [--upstream-tests SUMMARY_JSON] [--rest-results DIR] [--mono-results DIR [--mono-build-notes FILE]]
                    RESULTS_DIR OUTPUT_DIR
                    [COUNTERS_DIR [BUILD_NOTES_JSON [HOST_RESULTS_DIR]]]

Each result file is the probe's JSON (see integration-tests/MemoryProbe); the sections are scripts/report's modules.
Exit status: 0 when every correctness check passed and every target of the full read (full_read.py) was met, 1 when a
correctness check failed, 2 when only a full-read target was missed (the caller decides whether that fails the run).
COUNTERS_DIR holds the CSV recording of each probe run by `dotnet-counters collect` (counter_recordings.py).
BUILD_NOTES_JSON is scripts/verify's record of build overrides and prepared data sets (verify_notes.py).
HOST_RESULTS_DIR holds the probe's host workloads (host_scenarios.py, pipeline_scenarios.py); their targets are goals
(a miss is reported with its cause, not hidden), listed in summary.json as hostTargets, and do not turn the exit status to 2.
--upstream-tests: upstream's test project run against the mock, stock and patched, compared per class (upstream_tests.py's
summary); --rest-results: the probe's runs over the REST protocol (rest_protocol.py); --mono-results: the net472 drivers
under Mono, the .NET Framework stand-in (mono_runtime.py; its targets are goals, listed in summary.json as monoTargets),
with the net472 build's notes (--mono-build-notes, written by `scripts/patch publish --build-notes`). Every section's
correctness failures count toward the exit status.
Uses matplotlib (Debian: python3-matplotlib), run with the system python.
"""
import argparse
import json
import pathlib
import sys

import core
import counter_recordings
import full_read
import host_scenarios
import mono_runtime
import rest_protocol
import upstream_tests
import verify_notes


def main(results_dir, output_dir, counters_dir=None, notes_file=None, host_dir=None, upstream_summary=None, rest_dir=None,
         mono_dir=None, mono_notes_file=None):
    runs = core.load(results_dir)
    if not runs and not host_dir:
        print(f"report: no probe results in {results_dir}", file=sys.stderr)
        return 1
    out = pathlib.Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    notes = verify_notes.read(notes_file)
    if runs:
        lines, targets, failures = full_read.section(runs, notes, out)
    else:
        # scripts/verify --host-only: the host scenarios alone.
        base = (notes or {}).get("base")
        lines = ["# Host scenarios" + (f" on {base['tag']}" if base else ""), "",
                 "The full-read runs were not part of this run (`scripts/verify --host-only`).", ""]
        targets, failures = [], []
    host_targets, mono_targets = [], []
    if host_dir:
        host_lines, host_targets, host_failures = host_scenarios.section(host_dir, out)
        lines += host_lines
        failures += host_failures
    if rest_dir:
        rest_lines, rest_failures = rest_protocol.section(rest_dir)
        lines += rest_lines
        failures += rest_failures
    if mono_dir:
        mono_lines, mono_targets, mono_failures = mono_runtime.section(mono_dir, verify_notes.read(mono_notes_file))
        lines += mono_lines
        failures += mono_failures
    if upstream_summary:
        upstream_lines, upstream_failures = upstream_tests.section(json.loads(pathlib.Path(upstream_summary).read_text()),
                                                                    upstream_tests.commands(upstream_summary))
        lines += upstream_lines
        failures += upstream_failures
    lines += verify_notes.section(notes)
    lines += counter_recordings.section(counters_dir, out)
    (out / "report.md").write_text("\n".join(lines) + "\n")
    (out / "summary.json").write_text(json.dumps({"targets": targets, "hostTargets": host_targets, "monoTargets": mono_targets,
                                                        "correctnessFailures": failures}, indent=2) + "\n")
    print("\n".join(lines))
    if failures:
        return 1
    return 0 if all(t["met"] for t in targets) else 2


def arguments(argv):
    """main's keyword arguments from the command line (options may come between the positional arguments)."""
    parser = argparse.ArgumentParser(description="The stock-vs-patched report from the memory probe's results.")
    parser.add_argument("--upstream-tests", dest="upstream_summary", metavar="SUMMARY_JSON")
    parser.add_argument("--rest-results", dest="rest_dir", metavar="DIR")
    parser.add_argument("--mono-results", dest="mono_dir", metavar="DIR")
    parser.add_argument("--mono-build-notes", dest="mono_notes_file", metavar="FILE")
    parser.add_argument("results_dir", metavar="RESULTS_DIR")
    parser.add_argument("output_dir", metavar="OUTPUT_DIR")
    parser.add_argument("counters_dir", metavar="COUNTERS_DIR", nargs="?")
    parser.add_argument("notes_file", metavar="BUILD_NOTES_JSON", nargs="?")
    parser.add_argument("host_dir", metavar="HOST_RESULTS_DIR", nargs="?")
    return vars(parser.parse_intermixed_args(argv))


if __name__ == "__main__":
    sys.exit(main(**arguments(sys.argv[1:])))
