# The harness image: the tools `scripts/verify` and the harness suites need, and nothing of this repository.
# The repository is mounted at /repo when the container runs (read-only), results go to a mounted /out, and
# the entry point is docker/harness-entrypoint.sh from that mount, so the image never goes stale against the
# checkout it runs and needs no rebuild when the scripts change. See docker/compose.yaml.
#
# With Docker and a registry (the default base is the official .NET SDK image, which brings the SDK, git, curl):
#   docker build -f docker/harness.Dockerfile -t adbc-databricks-harness:local docker
# Without a registry (CI, these machines) scripts/build-images.sh builds it on a local base made with debootstrap
# (git, python3, curl, lz4 already in), with EXTRA_PACKAGES empty; that image has no .NET inside: the host's SDK
# folder is bind-mounted read-only at /usr/share/dotnet at run time (docker/compose.local-sdk.yaml), which
# is much cheaper than copying ~620 MB of SDK into an image on every machine.
ARG BASE_IMAGE=mcr.microsoft.com/dotnet/sdk:10.0
FROM ${BASE_IMAGE}

# What verify needs beyond the SDK: git (the checkout, its worktree), python3 (+ matplotlib for the report's
# chart), curl (waiting for the mock), lz4 + liblz4 (reference LZ4 in the suites). Installed only when missing,
# so a base that already has them (the local one) needs no package mirror during the build. The official SDK
# image links /usr/bin/dotnet already; on the local base the link points at the SDK mount to come.
ARG EXTRA_PACKAGES="python3-matplotlib"
RUN set -e; \
    missing=""; \
    for p in ca-certificates git python3 curl lz4 liblz4-1 ${EXTRA_PACKAGES}; do \
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"; \
    done; \
    if [ -n "$missing" ]; then \
        apt-get update; \
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing; \
        rm -rf /var/lib/apt/lists/*; \
    fi; \
    [ -e /usr/bin/dotnet ] || [ -L /usr/bin/dotnet ] || ln -s /usr/share/dotnet/dotnet /usr/bin/dotnet

ENV DOTNET_ROOT=/usr/share/dotnet \
    DOTNET_RUNNING_IN_CONTAINER=true \
    DOTNET_CLI_TELEMETRY_OPTOUT=1 \
    DOTNET_NOLOGO=1 \
    DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
    NUGET_XMLDOC_MODE=skip

WORKDIR /out
# Root by default: verify applies the series to the mounted checkout and writes to /out, whoever owns them
# on the host; compose's `user:` (HARNESS_USER) runs it as someone else.
ENTRYPOINT ["/bin/sh", "-c", "[ -f /repo/docker/harness-entrypoint.sh ] || { echo 'harness: mount the repository at /repo (see docker/compose.yaml)' >&2; exit 2; }; exec bash /repo/docker/harness-entrypoint.sh \"$@\"", "harness"]
