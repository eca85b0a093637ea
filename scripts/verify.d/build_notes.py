#!/usr/bin/python3
"""What scripts/verify had to do differently from a plain build or measurement, kept in one JSON file for the
report (scripts/report/write_report.py reads it): how verify was run (scripts/keep-report records it beside a kept
report), the base the drivers were built from and the data sets the mock server prepared before the timed runs. The build's MSBuild overrides, the packages not served and the substitutions
NuGet made are written into the same file by `scripts/patch publish --build-notes FILE`, and the outcome of each
netstandard2.0 and net472 build ("targetBuilds") by `scripts/patch build --build-notes FILE`.

    build_notes.py FILE init
    build_notes.py FILE run CHECKOUT ARGUMENT...               (verify's arguments, its checkout and the date, UTC)
    build_notes.py FILE base TAG REPOSITORY COMMIT            (the base the drivers were built from)
    build_notes.py FILE dataset STATEMENT RESPONSE_JSON         (prints what was prepared)
"""
import datetime
import json
import pathlib
import sys


def load(path):
    file = pathlib.Path(path)
    return json.loads(file.read_text()) if file.exists() else {}


def save(path, notes):
    pathlib.Path(path).write_text(json.dumps(notes, indent=2) + "\n")


def main(args):
    path, command, rest = args[0], args[1], args[2:]
    notes = {} if command == "init" else load(path)
    notes.setdefault("overrides", [])
    notes.setdefault("missingPackages", [])
    notes.setdefault("substitutions", [])
    notes.setdefault("datasets", [])
    notes.setdefault("targetBuilds", [])
    if command == "run":
        notes["run"] = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
                        "checkout": rest[0], "arguments": rest[1:]}
    elif command == "base":
        notes["base"] = {"tag": rest[0], "repository": rest[1], "commit": rest[2]}
    elif command == "dataset":
        response = json.loads(rest[1])
        dataset = {"statement": rest[0], **{k: response.get(k) for k in ("files", "bytes", "seconds")}}
        notes["datasets"].append(dataset)
        print(f"prepared {dataset['files']} file(s), {(dataset['bytes'] or 0) / 1048576:,.0f} MB, "
              f"in {dataset['seconds'] or 0:.1f} s: {dataset['statement']}")
    elif command != "init":
        print(f"build_notes.py: unknown command {command}", file=sys.stderr)
        return 2
    save(path, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
