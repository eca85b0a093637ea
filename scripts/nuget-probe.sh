#!/usr/bin/env bash
# Does this machine's NuGet source serve a package version, with its whole dependency closure? Answered by a
# real restore, not by reading an index: a throwaway project references exactly that version and restores into
# an empty packages folder (so nothing already in ~/.nuget/packages can answer for the source). The README's
# dependency table was made with it; re-run it before concluding that a package is missing.
#
#   scripts/nuget-probe.sh ApacheThrift 0.22.0                 # net8.0
#   scripts/nuget-probe.sh --tfm netstandard2.0 ApacheThrift 0.25.0
#   scripts/nuget-probe.sh --tool dotnet-counters              # a .NET tool: dotnet tool install
#
# Prints one line, "served: ..." or "NOT served: <NuGet's error codes and first message>"; exit 0 / 1.
set -euo pipefail

tfm=net8.0 tool=0
while [ $# -gt 0 ]; do
    case "$1" in
        --tfm) tfm="${2:?}"; shift 2 ;;
        --tool) tool=1; shift ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
id="${1:?usage: scripts/nuget-probe.sh [--tfm TFM] ID VERSION | --tool ID}"
version="${2:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ "$tool" -eq 1 ]; then
    if dotnet tool install "$id" --tool-path "$work/tool" >"$work/log" 2>&1; then
        echo "served: tool $id ($(grep -o "version '[^']*'" "$work/log" | head -n 1))"
        exit 0
    fi
    echo "NOT served: tool $id: $(grep -v '^\s*$' "$work/log" | head -n 2 | tr '\n' ' ')"
    exit 1
fi

[ -n "$version" ] || { echo "usage: scripts/nuget-probe.sh [--tfm TFM] ID VERSION" >&2; exit 2; }
cat >"$work/probe.csproj" <<EOC
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>$tfm</TargetFramework>
    <ManagePackageVersionsCentrally>false</ManagePackageVersionsCentrally>
    <ImportDirectoryBuildProps>false</ImportDirectoryBuildProps>
    <ImportDirectoryPackagesProps>false</ImportDirectoryPackagesProps>
    <NuGetAudit>false</NuGetAudit>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="$id" Version="[$version]" />
  </ItemGroup>
</Project>
EOC
if dotnet restore "$work/probe.csproj" --packages "$work/packages" >"$work/log" 2>&1; then
    # NU1603: a dependency's pinned version was not there and NuGet took a newer one.
    substituted="$(grep -oE 'warning NU1603: .*' "$work/log" | sed -E 's/.* but ([^ ]+) ([^ ]+) was not found\. [^ ]+ ([^ ]+) was resolved instead\..*/\1 \3 for \2/' | sort -u | paste -sd ';' - | sed 's/;/; /g' || true)"
    echo "served: $id $version ($tfm, with its dependencies${substituted:+; substituted: $substituted})"
    exit 0
fi
errors="$(grep -E 'error NU[0-9]+' "$work/log" | sed -E 's/^.*error (NU[0-9]+): /\1: /; s/ \[\/[^]]*\]$//' | awk '!seen[$0]++' | head -n 3 | tr -s ' ' | paste -sd ' ' -)"
echo "NOT served: $id $version ($tfm): $errors"
exit 1
