#!/usr/bin/env pwsh
<#
.SYNOPSIS
    Thin wrapper around the patch tool (scripts/PatchTool, a .NET console app) for Windows PowerShell 5.1 and PowerShell 7.

.DESCRIPTION
    Builds the tool on first use and whenever its sources are newer than the build, then runs it with every
    argument passed through. Works from any directory: the tool finds patches/ and driver-overlay/ from its
    own location. Exit codes are the tool's (scripts/README.md).

.EXAMPLE
    .\scripts\patch.ps1 apply --adbc C:\src\arrow-adbc
#>
$ErrorActionPreference = 'Stop'

$toolDir = Join-Path $PSScriptRoot 'PatchTool'
$repoRoot = Split-Path -Parent $PSScriptRoot
# A fixed output folder under artifacts/ (see scripts/patch for why).
$outDir = Join-Path (Join-Path $repoRoot 'artifacts') 'patch-tool'
$dll = Join-Path $outDir 'PatchTool.dll'

if (-not (Get-Command dotnet -ErrorAction SilentlyContinue)) {
    [Console]::Error.WriteLine('error: dotnet was not found on PATH; the patch tool is a .NET program.')
    [Console]::Error.WriteLine('hint: install the .NET SDK 10 (https://dot.net/download, or `winget install Microsoft.DotNet.SDK.10`) and open a new terminal.')
    exit 3
}

$stale = -not (Test-Path -LiteralPath $dll)
if (-not $stale) {
    $built = (Get-Item -LiteralPath $dll).LastWriteTimeUtc
    $sources = @(Get-ChildItem -LiteralPath $toolDir -Recurse -File | Where-Object { $_.Extension -in '.cs', '.csproj' })
    $sources += @(Get-ChildItem -LiteralPath $repoRoot -Filter 'Directory.*.props' -File)
    $stale = @($sources | Where-Object { $_ -and $_.LastWriteTimeUtc -gt $built }).Count -gt 0
}

if ($stale) {
    [Console]::Error.WriteLine('Building the patch tool (once, or after its sources change)...')
    $buildOutput = & dotnet build (Join-Path $toolDir 'PatchTool.csproj') -c Release -o $outDir -nologo -v quiet --disable-build-servers 2>&1
    if ($LASTEXITCODE -ne 0) {
        $buildOutput | ForEach-Object { [Console]::Error.WriteLine($_) }
        [Console]::Error.WriteLine('error: building the patch tool failed (see above).')
        exit 3
    }
    # dotnet build skips copying an unchanged assembly; touch it so the staleness check settles.
    (Get-Item -LiteralPath $dll).LastWriteTimeUtc = [DateTime]::UtcNow
}

& dotnet $dll @args
exit $LASTEXITCODE
