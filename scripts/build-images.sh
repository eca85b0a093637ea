#!/usr/bin/env bash
# Builds the mock server's image and the harness image from local material only (no registry is reachable in CI):
#
#   mock:
#   1. a .NET base image, unless MOCK_BASE_IMAGE names one to use instead: a minimal Debian rootfs made
#      with debootstrap from the mirror apt uses here (cached as a tarball, so only the first run pays
#      for it), plus the ASP.NET Core shared framework installed on this machine, imported as
#      localhost/adbc-dbx-dotnet-base:<major.minor>;
#   2. the mock server, published on the host into docker/.publish/mock-server;
#   3. docker/mock-server.Dockerfile on top of that base, tagged adbc-databricks-mock:local.
#   harness:
#   4. a tools base image, unless HARNESS_BASE_IMAGE names one: another debootstrap rootfs (cached the same
#      way) with git, python3, curl and lz4, no .NET (compose mounts the host's SDK: docker/compose.local-sdk.yaml),
#      imported as localhost/adbc-dbx-harness-base:bookworm;
#   5. docker/harness.Dockerfile on top of it, tagged adbc-databricks-harness:local. On the local base nothing
#      more is installed (EXTRA_PACKAGES empty: matplotlib is for verify's chart, which CI does not draw).
#
#   scripts/build-images.sh                       # both images, with the engine from container-engine.sh
#   scripts/build-images.sh mock                  # only the mock (or: harness)
#   MOCK_BASE_IMAGE=mcr.microsoft.com/dotnet/aspnet:10.0 HARNESS_BASE_IMAGE=mcr.microsoft.com/dotnet/sdk:10.0 \
#       scripts/build-images.sh                   # real Docker + registry
#
# Environment:
#   MOCK_BASE_IMAGE        base image to build on; skips step 1 (default: the local base)
#   HARNESS_BASE_IMAGE     base image of the harness; skips step 4 (default: the local tools base)
#   HARNESS_IMAGE          tag of the harness image (default adbc-databricks-harness:local)
#   MOCK_DATABRICKS_IMAGE  tag of the mock image (default adbc-databricks-mock:local)
#   MOCK_SERVER_PROJECT    server project to publish (default integration-tests/MockDatabricks.Server)
#   MOCK_SERVER_CONFIGURATION  configuration to publish (default Release; Debug reuses a Debug solution build)
#   DEBIAN_MIRROR          mirror for debootstrap (default: the first Debian mirror in apt's sources)
#   ADBC_DBX_CACHE_DIR     where the rootfs tarball is cached (default ${XDG_CACHE_HOME:-$HOME/.cache}/adbc-dbx-images)
#   REBUILD_BASE=1         rebuild the base images even when ones with the same inputs exist
set -euo pipefail

targets=()
for arg in "$@"; do
    case "$arg" in
        mock|harness) targets+=("$arg") ;;
        -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
        *) echo "build-images: unknown argument $arg (mock, harness)" >&2; exit 2 ;;
    esac
done
[ "${#targets[@]}" -gt 0 ] || targets=(mock harness)
wants() { [[ " ${targets[*]} " == *" $1 "* ]]; }

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_dir="${ADBC_DBX_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/adbc-dbx-images}"
mock_image="${MOCK_DATABRICKS_IMAGE:-adbc-databricks-mock:local}"
server_project="${MOCK_SERVER_PROJECT:-$repo_root/integration-tests/MockDatabricks.Server}"
publish_dir="$repo_root/docker/.publish/mock-server"
suite=bookworm
# What the runtime needs beyond minbase: TLS roots and OpenSSL (HttpClient), ICU (globalization, as in
# the official images), tzdata (TimeZoneInfo). liblz4-1, zlib1g and libstdc++6 already come with minbase.
base_packages="ca-certificates,libssl3,libicu72,tzdata"
# The harness runs the SDK (mounted) and what scripts/verify calls: git, python3, curl, the lz4 CLI (liblz4-1
# comes with minbase). (The mock's generated Thrift code is checked in: no thrift compiler needed to build it.)
# About 130 MB more than minbase, mostly perl (git) and python3.
harness_image="${HARNESS_IMAGE:-adbc-databricks-harness:local}"
harness_packages="$base_packages,git,python3,curl,lz4"

log() { echo "build-images: $*" >&2; }
die() { log "error: $*"; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

# ---------------------------------------------------------------------------------------------- engine
t0=$(now)
# Two steps: `eval "$(...)"` alone would swallow a failed start (eval of nothing succeeds).
engine_env=$("$repo_root/scripts/container-engine.sh" start) || die "no container engine (see the messages above)"
eval "$engine_env"
log "engine ready in $(elapsed "$t0") ($ADBC_DBX_ENGINE_KIND at $DOCKER_HOST)"
if [ "$ADBC_DBX_ENGINE_OWNER" = own ]; then
    # Our podman service and the podman CLI share the rootful storage, so what the CLI builds the API serves.
    cli=podman
else
    # Someone else's engine (Docker, or a podman with its own storage): talk to it through its API.
    command -v docker >/dev/null || die "the engine at $DOCKER_HOST is not ours and no docker CLI is installed to build on it"
    cli=docker
    # The classic builder: podman's compat API has no BuildKit, and Docker without buildx needs no plugin.
    export DOCKER_BUILDKIT=0
fi

image_exists() { "$cli" image inspect "$1" >/dev/null 2>&1; }
image_label() { "$cli" image inspect --format "{{ index .Config.Labels \"$2\" }}" "$1" 2>/dev/null || true; }
# A base image built from the same inputs (recorded in its label) is reused unless REBUILD_BASE=1: then this says so,
# prints its tag and succeeds. $1 tag, $2 inputs, $3 what the log calls it.
reuse_current_base_image() {
    [ "${REBUILD_BASE:-0}" != 1 ] && image_exists "$1" && [ "$(image_label "$1" org.adbc-dbx.base-inputs)" = "$2" ] || return 1
    log "$3 $1 is current ($2)"
    echo "$1"
}

# $1 Dockerfile under docker/, $2 base image, $3 tag, $4 what the log calls it; the rest are more build arguments.
build_image_on() {
    local dockerfile="$1" base="$2" tag="$3" what="$4" t
    shift 4
    t=$(now)
    local args=(build -f "$repo_root/docker/$dockerfile" --build-arg "BASE_IMAGE=$base" -t "$tag" "$@")
    if [ "$cli" = podman ]; then
        # Docker format keeps a HEALTHCHECK (the OCI format drops it); never reach for a registry.
        args+=(--format docker --pull=never)
    fi
    "$cli" "${args[@]}" "$repo_root/docker" >&2
    log "$what $tag built in $(elapsed "$t")"
}

# ------------------------------------------------------------------------------------------ base image
debian_mirror() {
    if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
    # deb822 sources first (Debian 12 default), then the one-line format; skip the security archive.
    local uri
    uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | grep -i debian | head -n1 || true)
    [ -n "$uri" ] || uri=$(grep -hsE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v security | grep -i debian | head -n1 || true)
    echo "${uri:-http://deb.debian.org/debian}"
}

dotnet_root() { dirname "$(readlink -f "$(command -v dotnet)")"; }

# The newest installed ASP.NET Core shared framework of major 10 (what the server targets).
aspnet_version() {
    ls "$(dotnet_root)/shared/Microsoft.AspNetCore.App" 2>/dev/null | grep -E '^10\.' | sort -V | tail -n1
}

# $1 mirror, $2 packages (comma-separated), $3 flavour: minbase (the mock's base, kept as built) or slim (the
# harness's: documentation, man pages and translations removed, as the official slim images do).
ensure_rootfs_tarball() {
    local mirror="$1" packages="$2" flavour="${3:-minbase}" key tarball work
    command -v debootstrap >/dev/null || {
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2
    }
    key=$(printf '%s|%s|%s|%s' "$suite" "$mirror" "$packages" "$(dpkg --print-architecture)" | sha256sum | cut -c1-12)
    tarball="$cache_dir/debian-$suite-$flavour-$key.tar"
    if [ -s "$tarball" ]; then
        log "rootfs tarball cached: $tarball"
        echo "$tarball"
        return
    fi
    mkdir -p "$cache_dir"
    work=$(mktemp -d "$cache_dir/rootfs.XXXXXX")
    local t
    t=$(now)
    log "debootstrap --variant=minbase --include=$packages $suite from $mirror (first run only; cached afterwards)"
    if ! debootstrap --variant=minbase --include="$packages" "$suite" "$work" "$mirror" >"$cache_dir/debootstrap-$flavour.log" 2>&1; then
        tail -n 30 "$cache_dir/debootstrap-$flavour.log" >&2
        rm -rf "$work"
        die "debootstrap failed (log: $cache_dir/debootstrap-$flavour.log)"
    fi
    # Downloaded .debs and apt lists are build leftovers, not runtime content.
    rm -rf "$work"/var/cache/apt/archives/*.deb "$work"/var/lib/apt/lists/* "$work"/var/log/*.log
    if [ "$flavour" = slim ]; then
        rm -rf "$work"/usr/share/doc/* "$work"/usr/share/man/* "$work"/usr/share/info/* "$work"/usr/share/locale/*
    fi
    # The same unprivileged user as the official .NET images (uid/gid 1654, "app").
    chroot "$work" /usr/sbin/groupadd --gid 1654 app >&2
    chroot "$work" /usr/sbin/useradd --uid 1654 --gid 1654 --create-home --shell /bin/sh app >&2
    tar --numeric-owner -C "$work" -cf "$tarball.tmp" .
    mv "$tarball.tmp" "$tarball"
    rm -rf "$work"
    log "rootfs tarball built in $(elapsed "$t"): $tarball ($(du -h "$tarball" | cut -f1))"
    echo "$tarball"
}

build_base_image() {
    local version tag mirror inputs tarball root work t
    version=$(aspnet_version)
    [ -n "$version" ] || die "no ASP.NET Core 10 runtime under $(dotnet_root)/shared/Microsoft.AspNetCore.App"
    [ -d "$(dotnet_root)/shared/Microsoft.NETCore.App/$version" ] || die "Microsoft.NETCore.App $version missing next to ASP.NET Core $version"
    tag="localhost/adbc-dbx-dotnet-base:$(cut -d. -f1,2 <<<"$version")"
    mirror=$(debian_mirror)
    inputs="$suite|$base_packages|aspnet=$version"
    reuse_current_base_image "$tag" "$inputs" "base image" && return
    tarball=$(ensure_rootfs_tarball "$mirror" "$base_packages" minbase)
    t=$(now)
    root=$(dotnet_root)
    work=$(mktemp -d "$cache_dir/base.XXXXXX")
    tar -C "$work" -xf "$tarball"
    # Only the runtime pieces (host, hostfxr, the two shared frameworks of one version), not the SDK.
    mkdir -p "$work/usr/share/dotnet/shared" "$work/usr/share/dotnet/host"
    cp -a "$root/dotnet" "$work/usr/share/dotnet/"
    cp -a "$root/LICENSE.txt" "$root/ThirdPartyNotices.txt" "$work/usr/share/dotnet/" 2>/dev/null || true
    cp -a "$root/host/fxr" "$work/usr/share/dotnet/host/"
    mkdir -p "$work/usr/share/dotnet/shared/Microsoft.NETCore.App" "$work/usr/share/dotnet/shared/Microsoft.AspNetCore.App"
    cp -a "$root/shared/Microsoft.NETCore.App/$version" "$work/usr/share/dotnet/shared/Microsoft.NETCore.App/"
    cp -a "$root/shared/Microsoft.AspNetCore.App/$version" "$work/usr/share/dotnet/shared/Microsoft.AspNetCore.App/"
    ln -sf /usr/share/dotnet/dotnet "$work/usr/bin/dotnet"
    log "importing $tag (ASP.NET Core $version)"
    # The same environment the official aspnet images set, so the Dockerfile behaves alike on both.
    tar --numeric-owner -C "$work" -c . | "$cli" import \
        --change "ENV APP_UID=1654" \
        --change "ENV ASPNETCORE_HTTP_PORTS=8080" \
        --change "ENV DOTNET_RUNNING_IN_CONTAINER=true" \
        --change "ENV DOTNET_VERSION=$version" \
        --change "ENV ASPNET_VERSION=$version" \
        --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        --change "LABEL org.adbc-dbx.base-inputs=$inputs" \
        --change "CMD [\"/bin/sh\"]" \
        - "$tag" >/dev/null
    rm -rf "$work"
    log "base image $tag imported in $(elapsed "$t")"
    echo "$tag"
}

# ------------------------------------------------------------------------------------------ mock image
publish_server() {
    local t
    [ -e "$server_project" ] || die "server project not found: $server_project"
    t=$(now)
    rm -rf "$publish_dir"
    # Framework-dependent and without an apphost: the image runs `dotnet MockDatabricks.Server.dll`.
    dotnet publish "$server_project" -c "${MOCK_SERVER_CONFIGURATION:-Release}" -p:UseAppHost=false -o "$publish_dir" --nologo -v quiet >&2
    [ -f "$publish_dir/MockDatabricks.Server.dll" ] || die "publish produced no MockDatabricks.Server.dll in $publish_dir"
    log "server published in $(elapsed "$t") to docker/.publish/mock-server"
}

build_mock_image() {
    build_image_on mock-server.Dockerfile "$1" "$mock_image" "mock image"
}

# --------------------------------------------------------------------------------------- harness image
# The tools base: the slim rootfs as it is, no .NET (the SDK is mounted at run time, see compose.local-sdk.yaml).
build_harness_base_image() {
    local tag="localhost/adbc-dbx-harness-base:$suite" inputs tarball t
    inputs="$suite|$harness_packages|slim"
    reuse_current_base_image "$tag" "$inputs" "harness base image" && return
    tarball=$(ensure_rootfs_tarball "$(debian_mirror)" "$harness_packages" slim)
    t=$(now)
    log "importing $tag"
    "$cli" import \
        --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        --change "LABEL org.adbc-dbx.base-inputs=$inputs" \
        --change "CMD [\"/bin/bash\"]" \
        "$tarball" "$tag" >/dev/null
    log "harness base image $tag imported in $(elapsed "$t")"
    echo "$tag"
}

build_harness_image() {
    local local_base=()
    if [ -z "${HARNESS_BASE_IMAGE:-}" ]; then
        # The local base has every package the Dockerfile wants but matplotlib, which only verify's chart needs.
        # The label tells scripts/compose-harness.sh that this image needs the host's SDK mounted.
        local_base=(--build-arg "EXTRA_PACKAGES=" --label org.adbc-dbx.dotnet=host-mount)
    fi
    build_image_on harness.Dockerfile "$1" "$harness_image" "harness image" "${local_base[@]}"
}

# Prints the base an image builds on: $1 when set (the user's choice), else the tag $3 builds; $2 is what the log calls it.
base_for() {
    local given="$1" what="$2" build="$3" t
    if [ -n "$given" ]; then
        log "using $what $given"
        echo "$given"
        return
    fi
    t=$(now)
    "$build" || return
    log "$what step took $(elapsed "$t")"
}

if wants mock; then
    base_image=$(base_for "${MOCK_BASE_IMAGE:-}" "base image" build_base_image)
    publish_server
    build_mock_image "$base_image"
    log "mock image $mock_image on $base_image"
fi
if wants harness; then
    harness_base=$(base_for "${HARNESS_BASE_IMAGE:-}" "harness base image" build_harness_base_image)
    build_harness_image "$harness_base"
    log "harness image $harness_image on $harness_base"
fi
log "done in $(elapsed "$t0"): ${targets[*]}"
