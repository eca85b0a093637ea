"""The report's "Build and measurement" section: what scripts/verify did differently from a plain build or
measurement (its build-notes.json, written by scripts/verify.d/build_notes.py). A reader comparing numbers needs
to know that the driver was built against ApacheThrift 0.25.0 rather than the pinned 0.22.0, or that the mock had
its data prepared before the timed runs."""
import json
import pathlib

from core import MB


def describe_substitution(s):
    if s.get("standIn"):
        return (f"built against an empty stand-in for {s['package']} {s['resolved']} ({s['by'] or 'a dependency'} asks for it; "
                f"the NuGet source does not serve it): {s['standIn']}")
    asked = f"the tag pins {s['pinned']}" if " " not in s["by"] else f"{s['by']} asks for {s['pinned']}"
    return f"built against {s['package']} {s['resolved']}; {asked}"


def describe_build(build):
    """ "built: 0 errors, 47 warnings (Microsoft.Build.Tasks.Git 7, NU1603 40)", or "**FAILED**: 2 errors, 0 warnings"."""
    warnings = build.get("warnings") or {}
    counts = f"{len(build.get('errors') or [])} errors, {sum(warnings.values())} warnings"
    if warnings:
        counts += " (" + ", ".join(f"{code} {count}" for code, count in sorted(warnings.items())) + ")"
    return ("built: " if build.get("succeeded") else "**FAILED**: ") + counts


def build_failures(notes):
    """A netstandard2.0 or net472 build that failed is a correctness failure: the driver a .NET Framework host loads."""
    return [f"the {b['driver']} driver does not build for {b['framework']} (Build and measurement)"
            for b in (notes or {}).get("targetBuilds") or [] if not b.get("succeeded")]


def target_builds_section(builds):
    """The netstandard2.0 and net472 builds, per target and driver, with what they needed beyond the net8.0 publish."""
    if not builds:
        return []
    lines = ["The targets a .NET Framework host loads (Power BI Desktop runs the driver on .NET Framework 4.7.2), compiled "
             "with upstream's warnings-as-errors (`scripts/patch build`; warnings counted once each, by code, or by the file "
             "that raised a warning without one):", "", "| Target | Stock | Patched |", "|---|---|---|"]
    by_target = {}
    for build in builds:
        by_target.setdefault(build["framework"], {})[build["driver"]] = build
    for framework, drivers in by_target.items():
        cells = [describe_build(drivers[d]) if d in drivers else "not built" for d in ("stock", "patched")]
        lines.append(f"| {framework} | {cells[0]} | {cells[1]} |")
    lines.append("")
    overrides = sorted({o for build in builds for o in build.get("overrides") or []})
    if overrides:
        lines += ["Their overrides: " + ", ".join(f"`{o}`" for o in overrides) + ".", ""]
    stand_ins = {s["package"]: s for build in builds for s in build.get("substitutions") or [] if s.get("standIn")}
    lines += [f"- {describe_substitution(s)}" for s in stand_ins.values()]
    if stand_ins:
        lines.append("")
    for build in builds:
        if not build.get("succeeded"):
            lines += [f"{build['driver']} {build['framework']}:", ""] + [f"    {e}" for e in (build.get("errors") or [])[:8]] + [""]
    return lines


def read(path):
    """The build notes JSON at `path`, or None when there is none."""
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
    lines += target_builds_section(notes.get("targetBuilds") or [])
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
