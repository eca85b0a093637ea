#!/usr/bin/python3
"""scripts/report/verify_notes.py: the "Build and measurement" section's netstandard2.0 and net472 builds, per target and
driver, from the build notes `scripts/patch build --build-notes` writes, and a failed build as a correctness failure.

    test_verify_notes.py [--trx FILE]     (run by scripts/test)
"""
import sys
import unittest

import unittest_trx
import verify_notes

STAND_IN = {"package": "System.IO.Pipes.AccessControl", "pinned": "5.0.0", "resolved": "5.0.0", "by": "ApacheThrift 0.25.0",
            "standIn": "ApacheThrift 0.25.0 needs it on netstandard2.0 only for its named-pipe server transport"}
THRIFT = {"package": "ApacheThrift", "pinned": "0.22.0", "resolved": "0.25.0", "by": "AdbcDrivers.HiveServer2"}


def build(driver, framework, succeeded=True, errors=(), warnings=None, overrides=("-p:WarningsNotAsErrors=NU1603",)):
    return {"driver": driver, "framework": framework, "succeeded": succeeded, "errors": list(errors),
            "warnings": {"NU1603": 40, "Microsoft.Build.Tasks.Git": 7} if warnings is None else warnings,
            "overrides": list(overrides), "substitutions": [THRIFT, STAND_IN]}


class TargetBuilds(unittest.TestCase):
    def test_each_target_has_a_row_with_stock_beside_patched_and_the_stand_in_is_named(self):
        notes = {"targetBuilds": [build("stock", "netstandard2.0"), build("patched", "netstandard2.0", warnings={}),
                                  build("stock", "net472", overrides=("-p:IsWindows=true",)), build("patched", "net472")]}
        text = "\n".join(verify_notes.section(notes))
        self.assertIn("| netstandard2.0 | built: 0 errors, 47 warnings (Microsoft.Build.Tasks.Git 7, NU1603 40) | built: 0 errors, 0 warnings |", text)
        self.assertIn("| net472 | built: 0 errors, 47 warnings", text)
        self.assertIn("Their overrides: `-p:IsWindows=true`, `-p:WarningsNotAsErrors=NU1603`.", text)
        self.assertEqual(1, text.count("built against an empty stand-in for System.IO.Pipes.AccessControl 5.0.0 (ApacheThrift 0.25.0 asks for it"))
        self.assertEqual([], verify_notes.build_failures(notes))

    def test_a_failed_build_shows_its_errors_and_is_a_correctness_failure(self):
        notes = {"targetBuilds": [build("stock", "net472"), build("patched", "net472", succeeded=False,
                                                                  errors=["Lz4.cs(3,1): error CS0246: 'Span' not found"])]}
        text = "\n".join(verify_notes.section(notes))
        self.assertIn("| net472 | built: 0 errors, 47 warnings (Microsoft.Build.Tasks.Git 7, NU1603 40) | **FAILED**: 1 errors", text)
        self.assertIn("    Lz4.cs(3,1): error CS0246: 'Span' not found", text)
        self.assertEqual(["the patched driver does not build for net472 (Build and measurement)"], verify_notes.build_failures(notes))

    def test_notes_without_target_builds_add_no_table(self):
        text = "\n".join(verify_notes.section({"overrides": [], "datasets": []}))
        self.assertNotIn("| Target |", text)
        self.assertEqual([], verify_notes.build_failures(None))


if __name__ == "__main__":
    sys.exit(unittest_trx.main(sys.modules[__name__], "report-verify-notes", sys.argv[1:]))
