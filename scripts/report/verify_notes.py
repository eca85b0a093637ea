"""The report's "Build and measurement" section: what scripts/verify did differently from a plain build or
measurement (its build-notes.json, written by scripts/verify.d/build_notes.py). A reader comparing numbers needs
to know that the driver was built against ApacheThrift 0.25.0 rather than the pinned 0.22.0, or that the mock had
its data prepared before the timed runs."""
import json
import pathlib

MB = 1024 * 1024


def describe_substitution(s):
    asked = f"the tag pins {s['pinned']}" if " " not in s["by"] else f"{s['by']} asks for {s['pinned']}"
    return f"built against {s['package']} {s['resolved']}; {asked}"


def load(path):
    if not path:
        return None
    file = pathlib.Path(path)
    return json.loads(file.read_text()) if file.exists() else None


def section(notes):
    """Markdown lines; a short "nothing to note" section when verify needed no override."""
    lines = ["## Build and measurement", ""]
    if notes is None:
        return lines + ["No build notes were recorded.", ""]
    overrides = notes.get("overrides") or []
    if overrides:
        lines += ["The machine's NuGet source lacks or substitutes dependencies the tag pins, so verify added:", ""]
        lines += [f"- `{o['argument']}`: {o['reason']}" for o in overrides]
        lines.append("")
    else:
        lines += ["Both drivers were built with the dependencies exactly as the tag pins them (no override).", ""]
    substitutions = notes.get("substitutions") or []
    if substitutions:
        lines += ["Versions NuGet substituted; both drivers, stock and patched, were built this way:", ""]
        lines += [f"- {describe_substitution(s)}" for s in substitutions]
        lines.append("")
    datasets = notes.get("datasets") or []
    if datasets:
        lines += ["The mock server built and cached each measured result before the timed runs "
                  "(`POST /admin/datasets/prepare`), so no run pays for generating data:", ""]
        lines += [f"- `{d['statement']}`: {d.get('files')} files, {(d.get('bytes') or 0) / MB:,.0f} MB, "
                  f"prepared in {d.get('seconds') or 0:.1f} s" for d in datasets]
        lines.append("")
    else:
        lines += ["The mock server did not prepare the results beforehand: the first run of each result generated its "
                  "data inside the timed window.", ""]
    return lines
