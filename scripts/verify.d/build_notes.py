#!/usr/bin/python3
"""What scripts/verify had to do differently from a plain build or measurement, kept in one JSON file for the
report (scripts/report/write_report.py reads it): MSBuild overrides it added because the machine's NuGet source
lacks or substitutes a pinned dependency, the substitutions NuGet made, and the data sets the mock server prepared
before the timed runs.

    build_notes.py FILE init
    build_notes.py FILE base TAG REPOSITORY COMMIT            (the base the drivers were built from)
    build_notes.py FILE override ARGUMENT REASON
    build_notes.py FILE missing PACKAGE...
    build_notes.py FILE substitutions PROJECT_ASSETS_JSON     (prints one line per substitution)
    build_notes.py FILE dataset STATEMENT RESPONSE_JSON         (prints what was prepared)
"""
import json
import pathlib
import re
import sys

# One wording for the console and the report.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "report"))
from verify_notes import describe_substitution  # noqa: E402

# NuGet's NU1603 text: "A depends on P (>= 0.22.0) but P 0.22.0 was not found. P 0.25.0 was resolved instead."
SUBSTITUTION = re.compile(r"^(?P<by>\S+(?: [0-9][^ ]*)?) depends on (?P<package>\S+) \(>= (?P<pinned>[^)]+)\) but .* was not found\. "
                          r"\S+ (?P<resolved>\S+) was resolved instead\.")


def load(path):
    file = pathlib.Path(path)
    return json.loads(file.read_text()) if file.exists() else {}


def save(path, notes):
    pathlib.Path(path).write_text(json.dumps(notes, indent=2) + "\n")


def substitutions(assets_path):
    """NU1603 entries of a project.assets.json (NuGet keeps restore warnings there, so a no-op restore still has them)."""
    logs = json.loads(pathlib.Path(assets_path).read_text()).get("logs", [])
    found = {}
    for entry in logs:
        match = SUBSTITUTION.match(entry.get("message", "")) if entry.get("code") == "NU1603" else None
        if match:
            found[match["package"]] = {key: match[key] for key in ("package", "pinned", "resolved", "by")}
    return sorted(found.values(), key=lambda s: s["package"])


def main(args):
    path, command, rest = args[0], args[1], args[2:]
    notes = {} if command == "init" else load(path)
    notes.setdefault("overrides", [])
    notes.setdefault("missingPackages", [])
    notes.setdefault("substitutions", [])
    notes.setdefault("datasets", [])
    if command == "base":
        notes["base"] = {"tag": rest[0], "repository": rest[1], "commit": rest[2]}
    elif command == "override":
        notes["overrides"].append({"argument": rest[0], "reason": rest[1]})
    elif command == "missing":
        notes["missingPackages"] = sorted(set(notes["missingPackages"]) | set(rest))
    elif command == "substitutions":
        notes["substitutions"] = substitutions(rest[0])
        for s in notes["substitutions"]:
            print(describe_substitution(s))
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
