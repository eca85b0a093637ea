# Sourced by scripts/verify. Makes the checkout's driver build on whatever NuGet source this machine has, with
# the smallest override, and says so. Upstream builds with TreatWarningsAsErrors, so where the source lacks a
# pinned version and NuGet resolves a newer one (NU1603, e.g. ApacheThrift 0.25.0 for the pinned 0.22.0) the
# restore fails; where a package is not served at all (NU1101, e.g. System.IO.Pipes.AccessControl, which
# ApacheThrift 0.25.0 needs only for netstandard2.0/net472) no flag can help that target. Instead of always
# passing flags, a restore of the driver project is tried first as the tag pins it, and an override is added only
# for what its output shows:
#   NU1603            -> -p:WarningsNotAsErrors=NU1603 (the substitutions stay visible as warnings)
#   NU1101/1102/1103  -> -p:TargetFrameworks=net8.0 (the harness and the probe load only net8.0)
#   NU1101 for a package whose project the checkout itself holds (adbc-drivers/databricks main: its hiveserver2
#                     references Apache.Arrow.Adbc 0.24.0 as a package, the pinned arrow-adbc submodule has the
#                     project) -> that project packed into OUT/work/local-feed, -p:RestoreAdditionalProjectSources=it
# Each override is appended to msbuild_args (used for both publishes), printed, and recorded in build-notes.json
# for the report, with the versions the driver was really built against.
#
# Uses from scripts/verify: msbuild_args (array), log_dir, build_notes (the notes file), repo_root, adbc, out.

# True when msbuild_args already sets property $1 (the user's own --msbuild-arg wins over detection).
msbuild_args_set() {
    local arg
    for arg in "${msbuild_args[@]}"; do
        case "$arg" in -p:"$1"=*|/p:"$1"=*|-property:"$1"=*) return 0 ;; esac
    done
    return 1
}

# Package ids from NU1101/NU1102/NU1103 lines of a restore log, one per line.
missing_packages() {
    grep -oE 'error NU110[123]: Unable to find (a stable )?package [A-Za-z0-9_.-]+' "$1" \
        | sed -E 's/.* package //; s/\.$//' | sort -u
}

# pack_from_checkout ID...: packs each package whose project (ID.csproj) the checkout holds into OUT/work/local-feed, at
# the project's own version (-p:VersionSuffix= drops a -SNAPSHOT suffix), and adds the folder as a restore source.
# Returns 1 when some ID has no project in the checkout (nothing is packed then).
pack_from_checkout() {
    local id project projects=() feed="$out/work/local-feed"
    for id in "$@"; do
        project="$(find "$adbc" -name "$id.csproj" -not -path '*/obj/*' | head -n 1)"
        [ -n "$project" ] || return 1
        projects+=("$project")
    done
    mkdir -p "$feed"
    for project in "${projects[@]}"; do
        dotnet pack "$project" -c Release -o "$feed" -nologo -p:VersionSuffix= "${msbuild_args[@]}" >"$log_dir/pack-$(basename "$project" .csproj).log" 2>&1 \
            || { echo "verify: could not pack $project (log: $log_dir/pack-$(basename "$project" .csproj).log)" >&2; exit 1; }
    done
    msbuild_args+=("-p:RestoreAdditionalProjectSources=$feed")
    "$repo_root/scripts/verify.d/build_notes.py" "$build_notes" override "-p:RestoreAdditionalProjectSources=OUT/work/local-feed" \
        "the NuGet source does not serve $*, which the checkout itself holds: packed from ${projects[*]#"$adbc/"} (its pinned submodule)"
    echo "  NuGet: not served: $*; packed from the checkout's own projects into a local folder source"
}

resolve_restore_overrides() {
    local project="$1" attempt log added missing restored=0
    local notes_py="$repo_root/scripts/verify.d/build_notes.py"
    for attempt in 1 2 3; do
        log="$log_dir/restore-$attempt.log"
        if dotnet restore "$project" -nologo "${msbuild_args[@]}" >"$log" 2>&1; then
            [ "$attempt" -gt 1 ] || echo "  NuGet: every pinned dependency restored as the tag pins it; no override"
            restored=1
            break
        fi
        added=0
        if grep -q 'error NU1603' "$log" && ! msbuild_args_set WarningsNotAsErrors; then
            msbuild_args+=(-p:WarningsNotAsErrors=NU1603)
            "$notes_py" "$build_notes" override -p:WarningsNotAsErrors=NU1603 \
                "the NuGet source lacks pinned versions and NuGet resolved newer ones (NU1603), which upstream's TreatWarningsAsErrors makes fatal"
            echo "  NuGet: pinned versions not served, newer ones substituted (NU1603, an error under upstream's warnings-as-errors);"
            echo "         building with -p:WarningsNotAsErrors=NU1603 (they stay warnings; the versions used are listed below)"
            added=1
        fi
        missing="$(missing_packages "$log" | tr '\n' ' ')"
        # shellcheck disable=SC2086 # one argument per package id
        if [ -n "$missing" ] && ! msbuild_args_set RestoreAdditionalProjectSources && pack_from_checkout $missing; then
            added=1
        elif [ -n "$missing" ] && ! msbuild_args_set TargetFrameworks; then
            msbuild_args+=(-p:TargetFrameworks=net8.0)
            # shellcheck disable=SC2086 # one argument per package id
            "$notes_py" "$build_notes" missing $missing
            "$notes_py" "$build_notes" override -p:TargetFrameworks=net8.0 \
                "the NuGet source does not serve ${missing% }; the harness and the probe load only net8.0"
            echo "  NuGet: not served: ${missing% }; building net8.0 only (-p:TargetFrameworks=net8.0), the target the harness and probe load"
            added=1
        fi
        if [ "$added" -eq 0 ]; then
            grep -E 'error NU[0-9]+' "$log" | sed -E 's/ \[[^]]*\]$//' | sort -u | head -n 12 >&2
            echo "verify: the driver's dependencies do not restore from this machine's NuGet source (log: $log)." >&2
            [ -n "$missing" ] && echo "verify: not served even for net8.0: ${missing% }." >&2
            echo "hint: pass --restore-config FILE (a NuGet.config whose sources serve them), or --msbuild-arg -p:NAME=VALUE for a build property." >&2
            exit 1
        fi
    done
    [ "$restored" -eq 1 ] || { echo "verify: the restore still fails with the overrides above (log: $log)" >&2; exit 1; }
    local assets
    assets="$(dirname "$project")/obj/project.assets.json"
    if [ -f "$assets" ]; then
        "$notes_py" "$build_notes" substitutions "$assets" | sed 's/^/  NuGet: /'
    fi
}
