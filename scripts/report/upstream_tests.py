#!/usr/bin/python3
"""Upstream's own test project (adbc-drivers/databricks csharp/test) run by scripts/verify against the mock, stock and
patched: its TRX files read per class, the runs compared side by side, and the report's "Upstream tests" section.

    upstream_tests.py e2e-classes E2E_DIR               the classes declared under E2E_DIR, one per line
    upstream_tests.py e2e-filter E2E_DIR                a dotnet test --filter that selects exactly those classes
    upstream_tests.py next-filter RUN_DIR BASE_FILTER   after an attempt of one run: the filter of the next attempt
                                                        (exit 0), or exit 1 when nothing is left to run
    upstream_tests.py totals RUN_DIR                    one line: passed, failed, skipped, test host starts
    upstream_tests.py compare SUMMARY_JSON E2E_DIR NAME=RUN_DIR...
                                                        the runs (stock-thrift=DIR, patched-thrift=DIR, ..., and
                                                        patched-thrift-rerun=DIR) compared into SUMMARY_JSON; prints
                                                        each correctness failure, exit 1 when there is one
    upstream_tests.py regressed-filter SUMMARY_JSON PROTOCOL
                                                        a filter of the methods that regressed (exit 1: none)

A run is one driver on one protocol. Its folder holds one results folder per attempt, attempt-N/, with the attempt's
attempt.trx and blame's Sequence_*.xml. An attempt ends early when a test hangs: dotnet test --blame-hang-timeout kills
the test host, and every test after the hung one would go unrun. The next attempt therefore runs what is left: every
class that has not run yet, plus the class of the hung test again without the hung method (blame names it: the test of
the Sequence file that did not complete). upstream's tests run one at a time (DisableTestParallelization), so the test
that did not complete is the one that hung.

Outcomes per test: passed, failed, skipped (xunit's skip, and TRX's NotExecuted), and hung (killed by the hang
timeout; counted with the failures). A test that passes stock and fails, hangs or does not run patched is a regression,
unless it passes when its method is run again patched (scripts/verify does that for every regressed method): then it is
reported as flaky.
Theory cases are matched by name, and where names differ between runs (DateTimeValueTests puts the time of the run into
its case names) by count: a method regresses when fewer of its cases pass patched than stock.
"""
import collections
import json
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

NS = {"t": "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"}
PASSED, FAILED, SKIPPED, HUNG = "passed", "failed", "skipped", "hung"
OUTCOMES = {"Passed": PASSED, "NotExecuted": SKIPPED, "Inconclusive": SKIPPED}  # anything else (Failed, Error, Timeout, Aborted) failed
ABORTED_TEXT = "test run was aborted"
# Each attempt N of a run writes RUN_DIR/attempt-N/attempt.trx (dotnet test --results-directory RUN_DIR/attempt-N
# --logger "trx;LogFileName=attempt.trx"); blame's Sequence_*.xml lands in a folder below it.
ATTEMPT_TRX = "attempt.trx"
# At most this many attempts per run: each costs a test host start and the hang timeout.
MAX_ATTEMPTS = 8

Result = collections.namedtuple("Result", "class_name method name outcome")

_NAMESPACE = re.compile(r"^\s*namespace\s+([\w.]+)", re.MULTILINE)
# A declaration at the start of a line (after modifiers), so "class" in a comment ("a helper class to ...") is not one.
_CLASS = re.compile(r"^\s*(?:(?:public|internal|private|protected|sealed|static|abstract|partial)\s+)*class\s+(\w+)", re.MULTILINE)


def e2e_classes(e2e_dir):
    """Fully qualified names of the classes declared in the C# files under e2e_dir (upstream's E2E folder)."""
    found = set()
    for source in sorted(pathlib.Path(e2e_dir).rglob("*.cs")):
        text = source.read_text(encoding="utf-8-sig")
        namespace = _NAMESPACE.search(text)
        prefix = namespace.group(1) + "." if namespace else ""
        found.update(prefix + name for name in _CLASS.findall(text))
    return found


def class_filter(classes):
    """A dotnet test --filter selecting every test of these classes (a trailing dot: ClassA never matches ClassAB)."""
    return "|".join(f"FullyQualifiedName~{name}." for name in sorted(classes))


def read_trx(path):
    """(results, aborted) of one TRX file: each result's class and method from its test definition."""
    root = ET.parse(path).getroot()
    methods = {}
    for definition in root.findall("t:TestDefinitions/t:UnitTest", NS):
        method = definition.find("t:TestMethod", NS)
        if method is not None:
            methods[definition.get("id")] = (method.get("className"), method.get("name"))
    results = []
    for result in root.findall("t:Results/t:UnitTestResult", NS):
        name = result.get("testName")
        class_name, method = methods.get(result.get("testId")) or split_name(name)
        results.append(Result(class_name, method, name, OUTCOMES.get(result.get("outcome"), FAILED)))
    texts = (info.findtext("t:Text", default="", namespaces=NS) for info in root.iter(f"{{{NS['t']}}}RunInfo"))
    aborted = any(ABORTED_TEXT in text.lower() for text in texts)
    return results, aborted


def split_name(name):
    """(class, method) of "Namespace.Class.Method(arguments)"."""
    head = name.split("(", 1)[0]
    class_name, _, method = head.rpartition(".")
    return class_name, method


def unfinished(attempt_dir):
    """The test blame's sequence shows started and not completed (the hung or crashed one), as a Result, or None."""
    for sequence in sorted(pathlib.Path(attempt_dir).rglob("Sequence_*.xml")):
        for test in ET.parse(sequence).getroot():
            if test.get("Completed") == "False":
                class_name, method = split_name(test.get("Name"))
                return Result(class_name, method, test.get("DisplayName") or test.get("Name"), HUNG)
    return None


class Run:
    """Every attempt of one run (one driver, one protocol), merged: the first outcome of each test counts."""

    def __init__(self, run_dir):
        self.dir = pathlib.Path(run_dir)
        self.attempts = sorted((d for d in self.dir.glob("attempt-*") if d.is_dir()), key=lambda d: int(d.name.split("-")[1]))
        self.results = {}
        self.hung = []
        self.last_aborted = False
        self.last_unfinished = None
        for attempt in self.attempts:
            trx = attempt / ATTEMPT_TRX
            # No TRX: the test host never reported (it could not start); nothing ran, and nothing can be continued.
            results, aborted = read_trx(trx) if trx.exists() else ([], True)
            for result in results:
                self.results.setdefault(result.name, result)
            self.last_aborted = aborted
            self.last_unfinished = unfinished(attempt) if aborted else None
            # Recorded with its display name (the case's name in the TRX); a later attempt's outcome for a case of the
            # same method (the hung method is filtered out as a whole) cannot take its place.
            if self.last_unfinished is not None:
                self.hung.append(self.last_unfinished)
        for result in self.hung:
            # The hang is what the run says about that case, whatever an earlier attempt recorded under the same name.
            self.results[result.name] = result

    def next_filter(self, base_filter):
        """The filter of the next attempt, or None when the last one finished (or cannot be continued)."""
        if not self.attempts or not self.last_aborted or self.last_unfinished is None or len(self.attempts) >= MAX_ATTEMPTS:
            return None
        current = self.last_unfinished.class_name
        done = {r.class_name for r in self.results.values()} - {current}
        parts = [f"({base_filter})"] if base_filter else []
        parts += [f"FullyQualifiedName!~{name}." for name in sorted(done)]
        # The hung method is left out with all its cases: a filter names a test by its method, not by its case.
        parts += [f"FullyQualifiedName!={method}" for method in sorted({f"{h.class_name}.{h.method}" for h in self.hung})]
        return "&".join(parts)

    def by_class(self):
        counts = collections.defaultdict(collections.Counter)
        for result in self.results.values():
            counts[result.class_name][result.outcome] += 1
        return counts

    def incomplete(self):
        """True when the last attempt was aborted and not continued: tests after it never ran."""
        return self.last_aborted


def by_method(run):
    methods = collections.defaultdict(dict)
    if run is not None:
        for result in run.results.values():
            methods[(result.class_name, result.method)][result.name] = result.outcome
    return methods


def regressions(stock, patched, rerun=None):
    """Tests that pass stock and fail, hang or do not run patched, as dicts (class, method, cases, flaky). A method
    regresses when fewer of its cases pass patched than stock; with a rerun of the regressed methods (patched), one
    whose cases all pass there is flaky (failed once, passed again), not a regression."""
    stock_methods, patched_methods, rerun_methods = by_method(stock), by_method(patched), by_method(rerun)
    found = []
    for key in sorted(stock_methods):
        stock_passed = sorted(name for name, outcome in stock_methods[key].items() if outcome == PASSED)
        patched_cases = patched_methods.get(key, {})
        patched_passed = sum(1 for outcome in patched_cases.values() if outcome == PASSED)
        if patched_passed >= len(stock_passed):
            continue
        if any(name in patched_cases for name in stock_passed) or not patched_cases:
            cases = [f"{name} ({patched_cases.get(name, 'not run')})" for name in stock_passed if patched_cases.get(name) != PASSED]
        else:
            # Case names that differ between runs (a time in the name): the patched cases that did not pass.
            cases = [f"{name} ({outcome})" for name, outcome in sorted(patched_cases.items()) if outcome != PASSED]
        rerun_passed = sum(1 for outcome in rerun_methods.get(key, {}).values() if outcome == PASSED)
        found.append({"class": key[0], "method": key[1], "cases": cases,
                      "flaky": rerun is not None and rerun_passed >= len(stock_passed)})
    return found


def regressed_filter(summary, protocol):
    """A filter selecting the methods that regressed on one protocol (every case of each), or None."""
    methods = sorted({f"{r['class']}.{r['method']}" for r in summary["regressions"].get(protocol, [])})
    return "|".join(f"FullyQualifiedName={method}" for method in methods) or None


def counts_text(counter):
    if counter is None:
        return "-"
    failed = counter[FAILED] + counter[HUNG]
    text = f"{counter[PASSED]} / {failed} / {counter[SKIPPED]}"
    return text + (f" ({counter[HUNG]} hung)" if counter[HUNG] else "")


def short_class(name):
    """The class name after upstream's test namespace prefix (AdbcDrivers.Databricks.Tests.)."""
    return re.sub(r"^AdbcDrivers\.Databricks\.Tests\.", "", name)


def totals(run):
    total = collections.Counter(r.outcome for r in run.results.values())
    return (f"{total[PASSED]} passed, {total[FAILED] + total[HUNG]} failed ({total[HUNG]} hung), {total[SKIPPED]} skipped, "
            f"{len(run.attempts)} test host start(s)")


RERUN = "-rerun"


def compare(run_dirs, e2e_dir):
    """The summary of the runs, by name: DRIVER-PROTOCOL (stock-thrift, patched-rest, ...) and patched-PROTOCOL-rerun,
    the regressed methods run again patched."""
    runs = {name: Run(folder) for name, folder in run_dirs.items() if not name.endswith(RERUN)}
    reruns = {name[:-len(RERUN)]: Run(folder) for name, folder in run_dirs.items() if name.endswith(RERUN)}
    declared = e2e_classes(e2e_dir)
    protocols = sorted({name.split("-", 1)[1] for name in runs}, key=lambda p: (p != "thrift", p))
    columns = [f"{driver}-{protocol}" for protocol in protocols for driver in ("stock", "patched") if f"{driver}-{protocol}" in runs]
    by_class = {name: run.by_class() for name, run in runs.items()}
    classes = {c for counts in by_class.values() for c in counts}
    summary = {"columns": columns, "e2eClasses": {}, "otherTotals": {}, "otherDifferences": {}, "regressions": {},
               "hung": {}, "incomplete": [], "attempts": {}}

    def cells(c):
        return {column: dict(by_class[column].get(c, {})) or None for column in columns}

    for c in sorted(classes & declared):
        summary["e2eClasses"][c] = cells(c)
    for c in sorted(classes - declared):
        row = cells(c)
        if any(row.get(f"stock-{p}") != row.get(f"patched-{p}") for p in protocols):
            summary["otherDifferences"][c] = row
    for column in columns:
        other_total = collections.Counter()
        for c in classes - declared:
            other_total.update(by_class[column].get(c, {}))
        summary["otherTotals"][column] = dict(other_total)
        summary["hung"][column] = [r.name for r in runs[column].hung]
        summary["attempts"][column] = len(runs[column].attempts)
        if runs[column].incomplete():
            summary["incomplete"].append(column)
    for protocol in protocols:
        stock, patched = runs.get(f"stock-{protocol}"), runs.get(f"patched-{protocol}")
        if stock and patched:
            summary["regressions"][protocol] = regressions(stock, patched, reruns.get(f"patched-{protocol}"))
    return summary


def commands(summary_path):
    """The command of each run, as scripts/verify.d/upstream-tests.sh wrote them beside the summary (commands.txt)."""
    path = pathlib.Path(summary_path).parent / "commands.txt"
    return path.read_text().splitlines() if path.exists() else None


def section(summary, commands=None):
    """The report's markdown lines and its correctness failures, from compare()'s summary."""
    columns = summary["columns"]
    lines = ["## Upstream tests against the mock", "",
             "adbc-drivers/databricks' own test project (`csharp/test`), built from the stock and the patched checkout, run "
             "against the mock server (over https) with a test configuration scripts/verify writes "
             "(`DATABRICKS_TEST_CONFIG_FILE`): every test with the Thrift protocol, and the E2E classes again with the REST "
             "protocol. Each cell: passed / failed / skipped (a hung test, stopped by the hang timeout, counts as failed). "
             "Most failures are what the mock does not serve (DDL and DML, a workspace's tables, its telemetry and "
             "feature-flag endpoints); what verify checks is the comparison: a test that passes stock must pass patched.", ""]
    if commands:
        lines += ["The command of each run's first attempt (the later attempts add a --filter of what was left):", "", "```"] + commands + ["```", ""]
    lines += ["| Class (E2E/) | " + " | ".join(columns) + " |", "|---" + "|---:" * len(columns) + "|"]
    e2e_total = {column: collections.Counter() for column in columns}
    for c, row in summary["e2eClasses"].items():
        lines.append("| " + " | ".join([short_class(c)] + [counts_text(collections.Counter(row[col]) if row[col] else None) for col in columns]) + " |")
        for column in columns:
            e2e_total[column].update(row[column] or {})
    lines.append(f"| **E2E/, {len(summary['e2eClasses'])} classes** | " + " | ".join(f"**{counts_text(e2e_total[col])}**" for col in columns) + " |")
    if any(summary["otherTotals"][col] for col in columns):
        lines.append("| Outside E2E/ (Unit/ and the files beside it) | " + " | ".join(
            counts_text(collections.Counter(summary["otherTotals"][col])) if summary["otherTotals"][col] else "-" for col in columns) + " |")
    lines.append("")
    if summary["otherDifferences"]:
        lines += ["Classes outside E2E/ whose counts differ between stock and patched:", ""]
        lines += [f"- {short_class(c)}: " + ", ".join(f"{col} {counts_text(collections.Counter(row[col]) if row[col] else None)}" for col in columns)
                  for c, row in summary["otherDifferences"].items()]
        lines.append("")
    hung = [(col, name) for col in columns for name in summary["hung"][col]]
    if hung:
        lines += ["Hung (stopped by the hang timeout; the run went on with the tests after it):", ""]
        lines += [f"- {col}: {name}" for col, name in hung] + [""]
    lines += ["Test host starts per run: " + ", ".join(f"{col} {summary['attempts'][col]}" for col in columns) + ".", ""]
    failures = []
    for col in summary["incomplete"]:
        # Patched: a regression could hide in what did not run. Stock: only the comparison is poorer, and it says so.
        text = f"upstream tests {col}: the run was aborted and could not be continued; tests after the abort did not run"
        if col.startswith("patched"):
            failures.append(text)
        else:
            lines += [f"Note: {text}.", ""]
    flaky = []
    for protocol, found in summary["regressions"].items():
        for item in found:
            cases = "; ".join(item["cases"][:5]) + (f" and {len(item['cases']) - 5} more" if len(item["cases"]) > 5 else "")
            text = f"{short_class(item['class'])}.{item['method']} ({protocol}) passes stock, not patched: {cases}"
            (flaky if item["flaky"] else failures).append(text)
    lines += ["### Upstream test regressions", ""]
    lines += [f"- {f}" for f in failures] if failures else ["None: every test that passes stock passes patched, in every protocol's run."]
    if flaky:
        lines += ["", "Failed once patched and passed when run again patched (flaky, not counted):", ""] + [f"- {f}" for f in flaky]
    return lines + [""], failures


def main(args):
    command, rest = (args[0], args[1:]) if args else ("", [])
    if command == "e2e-classes" and len(rest) == 1:
        print("\n".join(sorted(e2e_classes(rest[0]))))
    elif command == "e2e-filter" and len(rest) == 1:
        print(class_filter(e2e_classes(rest[0])))
    elif command == "next-filter" and len(rest) == 2:
        next_filter = Run(rest[0]).next_filter(rest[1])
        if next_filter is None:
            return 1
        print(next_filter)
    elif command == "totals" and len(rest) == 1:
        print(totals(Run(rest[0])))
    elif command == "compare" and len(rest) >= 3:
        summary = compare(dict(arg.split("=", 1) for arg in rest[2:]), rest[1])
        pathlib.Path(rest[0]).write_text(json.dumps(summary, indent=2) + "\n")
        _, failures = section(summary)
        print("\n".join(failures))
        return 1 if failures else 0
    elif command == "regressed-filter" and len(rest) == 2:
        found = regressed_filter(json.loads(pathlib.Path(rest[0]).read_text()), rest[1])
        if found is None:
            return 1
        print(found)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
