# The mock Databricks server as an image. The same published binary runs here and as a local process.
#
# The build context is this docker/ folder, and the server is published on the host first, into
# docker/.publish/mock-server (scripts/build-images.sh does both steps):
#
#   dotnet publish integration-tests/MockDatabricks.Server -c Release -p:UseAppHost=false -o docker/.publish/mock-server
#   docker build -f docker/mock-server.Dockerfile -t adbc-databricks-mock:local docker
#
# Why host-published rather than a multi-stage build on the SDK image: CI machines reach no container
# registry, so an SDK image cannot be pulled there, while the SDK on the host is always present (the
# repository builds with it). With Docker and a registry, the default base below is the official
# ASP.NET Core runtime image; CI passes a base built locally from a Debian rootfs plus the host's
# .NET runtime (BASE_IMAGE=localhost/adbc-dbx-dotnet-base:10.0).
ARG BASE_IMAGE=mcr.microsoft.com/dotnet/aspnet:10.0
FROM ${BASE_IMAGE}

WORKDIR /app
COPY .publish/mock-server/ /app/

# 1654 is the `app` user of the official .NET images; the local base creates the same user. Numeric, so
# it works even on a base without that passwd entry.
USER 1654

EXPOSE 8080
# The base images set ASPNETCORE_HTTP_PORTS=8080; the server listens where --bind/--port say, and an unset
# value avoids Kestrel's "Overriding address(es)" warning on every start.
ENV ASPNETCORE_HTTP_PORTS=
# The server binds loopback unless told otherwise; inside a container it must listen on all interfaces.
ENTRYPOINT ["dotnet", "/app/MockDatabricks.Server.dll", "--bind", "0.0.0.0", "--port", "8080"]

# The server's own probe mode: no curl/wget needed in the image. Exit 0 when /health answers 200.
HEALTHCHECK --interval=5s --timeout=5s --start-period=10s --retries=6 \
    CMD ["dotnet", "/app/MockDatabricks.Server.dll", "--probe-health", "http://127.0.0.1:8080/health"]
