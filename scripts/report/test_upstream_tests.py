#!/usr/bin/python3
"""scripts/report/upstream_tests.py: how scripts/verify reads upstream's TRX files per class, continues a run after a
hung test, and finds the tests that pass stock and not patched. The TRX and blame sequence files here are written the
way vstest writes them (TestDefinitions with each test's class and method, Results, the abort in a RunInfo; blame's
Sequence_*.xml with Completed="False" on the test that hung), shaped after files of a real run against the mock.

    test_upstream_tests.py [--trx FILE]     (run by scripts/test)
"""
import json
import pathlib
import sys
import uuid
from xml.sax.saxutils import quoteattr

import unittest_trx
import upstream_tests

NS = "AdbcDrivers.Databricks.Tests"
ABORT = ("The active test run was aborted. Reason: Test host process crashed : [DIAG] --- Environment ---")


def trx(path, tests, aborted=False):
    """A vstest TRX of `tests`: (class, method, case name or None for the method's own name, TRX outcome)."""
    definitions, results = [], []
    for class_name, method, case, outcome in tests:
        test_id, name = str(uuid.uuid4()), case or f"{class_name}.{method}"
        definitions.append(f'<UnitTest name={quoteattr(name)} storage="t.dll" id="{test_id}"><Execution id="{uuid.uuid4()}" />'
                           f'<TestMethod codeBase="t.dll" adapterTypeName="executor://xunit/VsTestRunner3/netcore/" '
                           f'className="{class_name}" name="{method}" /></UnitTest>')
        results.append(f'<UnitTestResult executionId="{uuid.uuid4()}" testId="{test_id}" testName={quoteattr(name)} '
                       f'computerName="vm" duration="00:00:00.01" outcome="{outcome}" />')
    infos = f'<RunInfos><RunInfo computerName="vm" outcome="Error" timestamp="2026-11-26T13:35:31+00:00"><Text>{ABORT}</Text></RunInfo></RunInfos>' if aborted else ""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('<?xml version="1.0" encoding="utf-8"?>\n<TestRun id="x" name="run" '
                    'xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">'
                    f'<TestDefinitions>{"".join(definitions)}</TestDefinitions><Results>{"".join(results)}</Results>'
                    f'<ResultSummary outcome="Failed"><Counters total="{len(tests)}" />{infos}</ResultSummary></TestRun>\n',
                    encoding="utf-8-sig")


def sequence(folder, started):
    """Blame's sequence file: every started test (class, method, display name), the last one not completed."""
    lines = [f'<Test Name="{c}.{m}" DisplayName={quoteattr(d or f"{c}.{m}")} Source="t.dll" Completed="{i < len(started) - 1}" />'
             for i, (c, m, d) in enumerate(started)]
    path = pathlib.Path(folder) / str(uuid.uuid4()) / f"Sequence_{uuid.uuid4().hex}.xml"
    path.parent.mkdir(parents=True)
    path.write_text('<?xml version="1.0"?>\n<TestSequence>\n' + "\n".join(lines) + "\n</TestSequence>")


class Scratch(unittest_trx.TemporaryFolderCase):

    def attempt(self, run, number, tests, hung=None):
        """Attempt NUMBER of RUN: its TRX, and when a test hung (class, method, display name) the abort and the sequence."""
        folder = self.dir / run / f"attempt-{number}"
        trx(folder / "attempt.trx", tests, aborted=hung is not None)
        if hung is not None:
            sequence(folder, [(c, m, d) for c, m, d, _ in tests] + [hung])
        return self.dir / run


class ReadingTrx(Scratch):
    def test_each_result_gets_its_class_method_and_outcome(self):
        trx(self.dir / "a.trx", [
            (f"{NS}.DriverTests", "CanExecuteQuery", None, "Passed"),
            (f"{NS}.StatementTests", "CanExecuteDecimalQuery", f'{NS}.StatementTests.CanExecuteDecimalQuery(sqlExpression: "cast(0 as decimal(1, 0))")', "Failed"),
            (f"{NS}.DriverTests", "CanGetObjects", None, "NotExecuted"),
            (f"{NS}.DriverTests", "TimesOut", None, "Timeout")])
        results, aborted = upstream_tests.read_trx(self.dir / "a.trx")
        self.assertFalse(aborted)
        self.assertEqual([
            (f"{NS}.DriverTests", "CanExecuteQuery", f"{NS}.DriverTests.CanExecuteQuery", "passed"),
            (f"{NS}.StatementTests", "CanExecuteDecimalQuery", f'{NS}.StatementTests.CanExecuteDecimalQuery(sqlExpression: "cast(0 as decimal(1, 0))")', "failed"),
            (f"{NS}.DriverTests", "CanGetObjects", f"{NS}.DriverTests.CanGetObjects", "skipped"),
            (f"{NS}.DriverTests", "TimesOut", f"{NS}.DriverTests.TimesOut", "failed")], [tuple(r) for r in results])

    def test_an_aborted_run_is_recognised_by_its_run_info(self):
        trx(self.dir / "a.trx", [(f"{NS}.DriverTests", "CanExecuteQuery", None, "Passed")], aborted=True)
        self.assertTrue(upstream_tests.read_trx(self.dir / "a.trx")[1])


class E2eClasses(Scratch):
    def test_classes_are_those_declared_under_the_folder_with_their_namespace(self):
        (self.dir / "E2E" / "Telemetry").mkdir(parents=True)
        (self.dir / "E2E" / "DriverTests.cs").write_text(
            "// a helper class to share state\nnamespace AdbcDrivers.Databricks.Tests\n{\n    public class DriverTests : Base\n    {\n"
            "        internal sealed class Nested { }\n    }\n}\n")
        (self.dir / "E2E" / "Telemetry" / "AuthTypeTests.cs").write_text(
            "\ufeffnamespace AdbcDrivers.Databricks.Tests.E2E.Telemetry;\n\npublic partial class AuthTypeTests\n{\n    // the class under test\n}\n")
        self.assertEqual({f"{NS}.DriverTests", f"{NS}.Nested", f"{NS}.E2E.Telemetry.AuthTypeTests"},
                         upstream_tests.e2e_classes(self.dir / "E2E"))

    def test_the_filter_selects_each_class_by_its_name_and_a_dot(self):
        self.assertEqual(f"FullyQualifiedName~{NS}.A.|FullyQualifiedName~{NS}.B.", upstream_tests.class_filter({f"{NS}.B", f"{NS}.A"}))


class ContinuingAfterAHang(Scratch):
    def test_the_next_attempt_skips_finished_classes_and_the_hung_method_but_reruns_its_class(self):
        run = self.attempt("stock-thrift", 1, [
            (f"{NS}.Unit.ATests", "One", None, "Passed"),
            (f"{NS}.BTests", "Two", None, "Failed"),
            (f"{NS}.CTests", "Before", None, "Passed")],
            hung=(f"{NS}.CTests", "Hangs", f"{NS}.CTests.Hangs(applyWithQueries: True)"))
        self.assertEqual(f"(FullyQualifiedName~{NS}.BTests.|FullyQualifiedName~{NS}.CTests.)&FullyQualifiedName!~{NS}.BTests."
                         f"&FullyQualifiedName!~{NS}.Unit.ATests.&FullyQualifiedName!={NS}.CTests.Hangs",
                         upstream_tests.Run(run).next_filter(f"FullyQualifiedName~{NS}.BTests.|FullyQualifiedName~{NS}.CTests."))
        self.assertEqual(f"FullyQualifiedName!~{NS}.BTests.&FullyQualifiedName!~{NS}.Unit.ATests.&FullyQualifiedName!={NS}.CTests.Hangs",
                         upstream_tests.Run(run).next_filter(""))

    def test_attempts_merge_and_every_hung_method_stays_out(self):
        self.attempt("r", 1, [(f"{NS}.ATests", "One", None, "Passed")], hung=(f"{NS}.BTests", "Hangs", None))
        run = self.attempt("r", 2, [(f"{NS}.BTests", "Fine", None, "Passed"), (f"{NS}.ATests", "One", None, "Failed")],
                           hung=(f"{NS}.CTests", "AlsoHangs", None))
        merged = upstream_tests.Run(run)
        self.assertEqual({f"{NS}.ATests.One": "passed", f"{NS}.BTests.Fine": "passed", f"{NS}.BTests.Hangs": "hung",
                          f"{NS}.CTests.AlsoHangs": "hung"}, {name: r.outcome for name, r in merged.results.items()})
        self.assertEqual(f"FullyQualifiedName!~{NS}.ATests.&FullyQualifiedName!~{NS}.BTests."
                         f"&FullyQualifiedName!={NS}.BTests.Hangs&FullyQualifiedName!={NS}.CTests.AlsoHangs", merged.next_filter(""))

    def test_a_finished_attempt_ends_the_run(self):
        self.attempt("r", 1, [(f"{NS}.ATests", "One", None, "Passed")], hung=(f"{NS}.BTests", "Hangs", None))
        run = self.attempt("r", 2, [(f"{NS}.BTests", "Fine", None, "Passed")])
        self.assertIsNone(upstream_tests.Run(run).next_filter(""))
        self.assertFalse(upstream_tests.Run(run).incomplete())

    def test_an_abort_without_an_unfinished_test_cannot_be_continued_and_leaves_the_run_incomplete(self):
        trx(self.dir / "r" / "attempt-1" / "attempt.trx", [(f"{NS}.ATests", "One", None, "Passed")], aborted=True)
        run = upstream_tests.Run(self.dir / "r")
        self.assertIsNone(run.next_filter(""))
        self.assertTrue(run.incomplete())

    def test_no_more_than_the_maximum_attempts(self):
        for number in range(1, upstream_tests.MAX_ATTEMPTS + 1):
            run = self.attempt("r", number, [(f"{NS}.T{number}", "One", None, "Passed")], hung=(f"{NS}.H{number}", "Hangs", None))
        self.assertIsNone(upstream_tests.Run(run).next_filter(""))
        self.assertEqual(upstream_tests.MAX_ATTEMPTS, len(upstream_tests.Run(run).hung))


class Regressions(Scratch):
    def runs(self, stock, patched, rerun=None):
        runs = [upstream_tests.Run(self.attempt("stock", 1, stock)), upstream_tests.Run(self.attempt("patched", 1, patched))]
        return runs + [upstream_tests.Run(self.attempt("rerun", 1, rerun)) if rerun is not None else None]

    def test_passing_stock_and_failing_or_not_running_patched_regresses_and_nothing_else_does(self):
        stock = [(f"{NS}.A", "Fails", None, "Passed"), (f"{NS}.A", "Missing", None, "Passed"), (f"{NS}.A", "BothFail", None, "Failed"),
                 (f"{NS}.A", "SkippedStock", None, "NotExecuted"), (f"{NS}.A", "BothPass", None, "Passed")]
        patched = [(f"{NS}.A", "Fails", None, "Failed"), (f"{NS}.A", "BothFail", None, "Failed"),
                   (f"{NS}.A", "SkippedStock", None, "Failed"), (f"{NS}.A", "BothPass", None, "Passed")]
        found = upstream_tests.regressions(*self.runs(stock, patched))
        self.assertEqual([(f"{NS}.A", "Fails", [f"{NS}.A.Fails (failed)"], False),
                          (f"{NS}.A", "Missing", [f"{NS}.A.Missing (not run)"], False)],
                         [(r["class"], r["method"], r["cases"], r["flaky"]) for r in found])

    def test_theory_cases_named_after_the_time_of_the_run_are_compared_by_count(self):
        stock = [(f"{NS}.DateTimeValueTests", "TestTimestampData", f"{NS}.DateTimeValueTests.TestTimestampData(value: 2026-11-26 13:35:01)", "Passed"),
                 (f"{NS}.DateTimeValueTests", "TestTimestampData", f"{NS}.DateTimeValueTests.TestTimestampData(value: 2026-11-26 13:35:02)", "Passed")]
        same = [(f"{NS}.DateTimeValueTests", "TestTimestampData", f"{NS}.DateTimeValueTests.TestTimestampData(value: 2026-11-26 13:41:07)", "Passed"),
                (f"{NS}.DateTimeValueTests", "TestTimestampData", f"{NS}.DateTimeValueTests.TestTimestampData(value: 2026-11-26 13:41:08)", "Passed")]
        self.assertEqual([], upstream_tests.regressions(*self.runs(stock, same)))
        one_fails = [same[0], same[1][:3] + ("Failed",)]
        found = upstream_tests.regressions(*self.runs(stock, one_fails))
        self.assertEqual([[f"{NS}.DateTimeValueTests.TestTimestampData(value: 2026-11-26 13:41:08) (failed)"]], [r["cases"] for r in found])

    def test_a_hung_case_regresses(self):
        stock = [(f"{NS}.A", "Hangs", f"{NS}.A.Hangs(x: 1)", "Passed")]
        stock_run = upstream_tests.Run(self.attempt("stock", 1, stock))
        patched_run = upstream_tests.Run(self.attempt("patched", 1, [], hung=(f"{NS}.A", "Hangs", f"{NS}.A.Hangs(x: 1)")))
        self.assertEqual([[f"{NS}.A.Hangs(x: 1) (hung)"]], [r["cases"] for r in upstream_tests.regressions(stock_run, patched_run)])

    def test_a_regression_that_passes_when_run_again_patched_is_flaky(self):
        stock = [(f"{NS}.A", "Timing", None, "Passed"), (f"{NS}.A", "Broken", None, "Passed")]
        patched = [(f"{NS}.A", "Timing", None, "Failed"), (f"{NS}.A", "Broken", None, "Failed")]
        rerun = [(f"{NS}.A", "Timing", None, "Passed"), (f"{NS}.A", "Broken", None, "Failed")]
        found = upstream_tests.regressions(*self.runs(stock, patched, rerun))
        self.assertEqual({"Timing": True, "Broken": False}, {r["method"]: r["flaky"] for r in found})


class Summary(Scratch):
    def setUp(self):
        super().setUp()
        e2e = self.dir / "E2E"
        e2e.mkdir()
        (e2e / "DriverTests.cs").write_text(f"namespace {NS}\n{{\n    public class DriverTests {{ }}\n    public class StatementTests {{ }}\n}}\n")
        self.e2e = e2e
        self.runs = {
            "stock-thrift": self.attempt("stock-thrift", 1, [
                (f"{NS}.DriverTests", "Query", None, "Passed"), (f"{NS}.DriverTests", "Metadata", None, "Failed"),
                (f"{NS}.StatementTests", "Skip", None, "NotExecuted"), (f"{NS}.Unit.PoolTests", "Rent", None, "Passed"),
                (f"{NS}.Unit.PoolTests", "Return", None, "Passed")]),
            "patched-thrift": self.attempt("patched-thrift", 1, [
                (f"{NS}.DriverTests", "Query", None, "Failed"), (f"{NS}.DriverTests", "Metadata", None, "Failed"),
                (f"{NS}.StatementTests", "Skip", None, "NotExecuted"), (f"{NS}.Unit.PoolTests", "Rent", None, "Passed")],
                hung=(f"{NS}.Unit.PoolTests", "Return", None)),
            "stock-rest": self.attempt("stock-rest", 1, [(f"{NS}.DriverTests", "Query", None, "Failed")]),
            "patched-rest": self.attempt("patched-rest", 1, [(f"{NS}.DriverTests", "Query", None, "Failed")]),
        }
        # After the hang, the attempt that ran what was left: nothing, the hung test was the last.
        self.attempt("patched-thrift", 2, [])

    def test_classes_side_by_side_per_run_with_e2e_apart_from_the_rest(self):
        summary = upstream_tests.compare(self.runs, self.e2e)
        self.assertEqual(["stock-thrift", "patched-thrift", "stock-rest", "patched-rest"], summary["columns"])
        self.assertEqual({"stock-thrift": {"passed": 1, "failed": 1}, "patched-thrift": {"failed": 2},
                          "stock-rest": {"failed": 1}, "patched-rest": {"failed": 1}}, summary["e2eClasses"][f"{NS}.DriverTests"])
        self.assertEqual({"stock-thrift": {"passed": 2}, "patched-thrift": {"passed": 1, "hung": 1}, "stock-rest": {}, "patched-rest": {}},
                         summary["otherTotals"])
        self.assertEqual([f"{NS}.Unit.PoolTests"], list(summary["otherDifferences"]))
        self.assertEqual({"DriverTests.Query", "Unit.PoolTests.Return"},
                         {f"{upstream_tests.short_class(r['class'])}.{r['method']}" for r in summary["regressions"]["thrift"]})
        self.assertEqual([], summary["regressions"]["rest"])

    def test_the_section_shows_each_cell_as_passed_failed_skipped_and_names_the_regressions(self):
        lines, failures = upstream_tests.section(upstream_tests.compare(self.runs, self.e2e), ["stock-thrift: (cd ...)"])
        text = "\n".join(lines)
        self.assertIn("| Class (E2E/) | stock-thrift | patched-thrift | stock-rest | patched-rest |", text)
        self.assertIn("| DriverTests | 1 / 1 / 0 | 0 / 2 / 0 | 0 / 1 / 0 | 0 / 1 / 0 |", text)
        self.assertIn("| StatementTests | 0 / 0 / 1 | 0 / 0 / 1 | - | - |", text)
        self.assertIn("| Outside E2E/ (Unit/ and the files beside it) | 2 / 0 / 0 | 1 / 1 / 0 (1 hung) | - | - |", text)
        self.assertIn(f"- patched-thrift: {NS}.Unit.PoolTests.Return", text)
        self.assertIn("stock-thrift: (cd ...)", text)
        self.assertEqual(2, len(failures))
        self.assertTrue(any(f.startswith("DriverTests.Query (thrift) passes stock, not patched") for f in failures), failures)

    def test_compare_exits_1_on_a_regression_and_writes_the_summary_and_a_filter_of_the_regressed_methods(self):
        path = self.dir / "summary.json"
        status = upstream_tests.main(["compare", str(path), str(self.e2e)] + [f"{k}={v}" for k, v in self.runs.items()])
        self.assertEqual(1, status)
        self.assertEqual(0, upstream_tests.main(["regressed-filter", str(path), "thrift"]))
        self.assertEqual(f"FullyQualifiedName={NS}.DriverTests.Query|FullyQualifiedName={NS}.Unit.PoolTests.Return",
                         upstream_tests.regressed_filter(json.loads(path.read_text()), "thrift"))
        self.assertEqual(1, upstream_tests.main(["regressed-filter", str(path), "rest"]))

    def test_no_regression_when_patched_matches_stock(self):
        runs = {"stock-thrift": self.runs["stock-thrift"], "patched-thrift": self.attempt("same", 1, [
            (f"{NS}.DriverTests", "Query", None, "Passed"), (f"{NS}.DriverTests", "Metadata", None, "Failed"),
            (f"{NS}.StatementTests", "Skip", None, "NotExecuted"), (f"{NS}.Unit.PoolTests", "Rent", None, "Passed"),
            (f"{NS}.Unit.PoolTests", "Return", None, "Passed")])}
        lines, failures = upstream_tests.section(upstream_tests.compare(runs, self.e2e))
        self.assertEqual([], failures)
        self.assertIn("None: every test that passes stock passes patched, in every protocol's run.", lines)


if __name__ == "__main__":
    sys.exit(unittest_trx.main(sys.modules[__name__], "upstream-tests-report", sys.argv[1:]))
