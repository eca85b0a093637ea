"""Runs a module's unittest cases and writes their outcomes as a TRX file, which scripts/trx_summary.py adds up with the
.NET suites' in scripts/test. The report's Python tests end with:

    if __name__ == "__main__":
        sys.exit(unittest_trx.main(sys.modules[__name__], "NAME", sys.argv[1:]))     # argv: [--trx FILE]
"""
import datetime
import json
import pathlib
import tempfile
import unittest
import uuid
from xml.sax.saxutils import quoteattr


class TemporaryFolderCase(unittest.TestCase):
    """A test with a temporary folder of its own (self.dir), deleted after it."""

    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self._dir.name)

    def tearDown(self):
        self._dir.cleanup()


class RunFilesCase(TemporaryFolderCase):
    """A test over probe results in a temporary folder (self.dir), written as scripts/verify names them."""

    def write(self, runs, directory=None):
        """Each run as DRIVER-SCENARIO-N.json in directory (default self.dir)."""
        directory = directory or self.dir
        directory.mkdir(parents=True, exist_ok=True)
        for index, result in enumerate(runs):
            (directory / f"{result['driver']}-{result['scenario']}-{index}.json").write_text(json.dumps(result))


class OutcomeResult(unittest.TextTestResult):
    """Remembers each test's outcome by name, for the TRX (an error in setUpClass fails the class's tests)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = {}

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes[test.id()] = "Passed"

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes[test.id()] = "Failed"

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes[test.id()] = "Failed"

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes[test.id()] = "NotExecuted"


def write_trx(path, name, outcomes, started):
    """The TRX scripts/trx_summary.py adds up: one UnitTestResult per test, and the counters."""
    counts = {state: list(outcomes.values()).count(state) for state in ("Passed", "Failed", "NotExecuted")}
    stamp = started.isoformat()
    results = "".join(f'<UnitTestResult testId="{uuid.uuid4()}" testName={quoteattr(test)} outcome="{state}" '
                      f'startTime="{stamp}" />' for test, state in sorted(outcomes.items()))
    pathlib.Path(path).write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f'<TestRun id="{uuid.uuid4()}" name={quoteattr(name)} xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">'
        f'<Results>{results}</Results><ResultSummary outcome="{"Failed" if counts["Failed"] else "Completed"}">'
        f'<Counters total="{len(outcomes)}" executed="{counts["Passed"] + counts["Failed"]}" passed="{counts["Passed"]}" '
        f'failed="{counts["Failed"]}" error="0" notExecuted="{counts["NotExecuted"]}" /></ResultSummary></TestRun>\n')


def main(module, name, argv):
    """Runs every test of `module`; 0 when all passed and at least one ran."""
    trx = argv[argv.index("--trx") + 1] if "--trx" in argv else None
    started = datetime.datetime.now(datetime.timezone.utc)
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = unittest.TextTestRunner(verbosity=2, resultclass=OutcomeResult).run(suite)
    if trx:
        write_trx(trx, name, result.outcomes, started)
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1
