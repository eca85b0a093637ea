# Sourced by scripts/verify. The builds a .NET Framework host loads (Power BI Desktop runs the driver on .NET Framework
# 4.7.2): netstandard2.0 and net472 of the stock and the patched driver, compiled with upstream's warnings-as-errors by
# `scripts/patch build` (a compile, no publish folder: nothing here loads them). Off Windows it adds -p:IsWindows=true
# where upstream declares net472 only on Windows, and with --fit-nuget-source the stand-in for what this machine's
# NuGet source lacks (docs/dependencies.md); each outcome (errors, warnings by code, overrides, substitutions) goes into
# the build notes' "targetBuilds", which the report's "Build and measurement" section shows per target and driver.
# A target that does not build is a correctness failure; the other steps still run.
#
# Uses from scripts/verify: repo_root, adbc, stock_src, fit_args, build_notes, log_dir, failed.

build_framework_targets() {
    local framework driver checkout unpatched log
    for framework in netstandard2.0 net472; do
        for driver in stock patched; do
            checkout="$adbc" unpatched=()
            if [ "$driver" = stock ]; then checkout="$stock_src" unpatched=(--allow-unpatched); fi
            log="$log_dir/build-$driver-$framework.log"
            if "$repo_root/scripts/patch" build --adbc "$checkout" "${unpatched[@]}" -f "$framework" "${fit_args[@]}" \
                --build-notes "$build_notes" >"$log" 2>&1; then
                grep -E "^  $driver $framework: " "$log" || true
            else
                echo "  $driver $framework: FAILED (log: $log)"
                grep -E "^  $driver $framework: |^error: |^    " "$log" | head -n 14 || true
                failed=1
            fi
        done
    done
}
