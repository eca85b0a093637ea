using System.Diagnostics;
using System.IO;
using System.Reflection;

namespace MockDatabricks.Testing
{
    /// <summary>
    /// Obtains a running mock server. MOCK_DATABRICKS_MODE = url | container | process; unset = url when
    /// MOCK_DATABRICKS_URL is set, else process. MOCK_DATABRICKS_TOKEN overrides the token (url mode: the token the
    /// server was started with). Process mode runs the server build next to this one (or MOCK_DATABRICKS_SERVER_DLL),
    /// over https with its generated certificate when MOCK_DATABRICKS_HTTPS=1; url mode trusts MOCK_DATABRICKS_TLS_CERT.
    /// </summary>
    public static class MockServerLauncher
    {
        public const string DefaultToken = "mock-databricks-token";
        public const string DefaultImage = "adbc-databricks-mock:local"; // what scripts/build-images.sh tags

        /// <summary>
        /// SEAM for container mode. By default it calls MockDatabricks.Containers.MockServerContainers.StartAsync(image, ct)
        /// (a Testcontainers module) through reflection when that assembly is next to the tests (referencing it here would
        /// make this library, and the harness that uses it, depend on Testcontainers and Docker.DotNet). Tests or the containers project can replace it.
        /// </summary>
        public static Func<string, CancellationToken, Task<MockServerHandle>> ContainerStarter { get; set; } = StartContainerThroughReflectionAsync;

        public static MockServerMode ResolveMode()
        {
            string? mode = Environment.GetEnvironmentVariable("MOCK_DATABRICKS_MODE");
            if (string.IsNullOrWhiteSpace(mode))
            {
                return string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable("MOCK_DATABRICKS_URL")) ? MockServerMode.Process : MockServerMode.Url;
            }

            return Enum.TryParse(mode, ignoreCase: true, out MockServerMode parsed)
                ? parsed
                : throw new InvalidOperationException($"MOCK_DATABRICKS_MODE='{mode}' is not url, container or process.");
        }

        public static async Task<MockServerHandle> StartAsync(CancellationToken cancellationToken = default)
        {
            string token = Environment.GetEnvironmentVariable("MOCK_DATABRICKS_TOKEN") is { Length: > 0 } t ? t : DefaultToken;
            switch (ResolveMode())
            {
                case MockServerMode.Url:
                    string url = Environment.GetEnvironmentVariable("MOCK_DATABRICKS_URL")
                        ?? throw new InvalidOperationException("MOCK_DATABRICKS_MODE=url needs MOCK_DATABRICKS_URL.");
                    var handle = new MockServerHandle(new Uri(url), token, MockServerMode.Url, null)
                    {
                        TrustedCertificatePath = Environment.GetEnvironmentVariable("MOCK_DATABRICKS_TLS_CERT") is { Length: > 0 } pem ? pem : null,
                    };
                    await WaitForHealthAsync(handle.BaseUrl, TimeSpan.FromSeconds(60), null, cancellationToken, handle.TrustedCertificatePath).ConfigureAwait(false);
                    return handle;
                case MockServerMode.Container:
                    string image = Environment.GetEnvironmentVariable("MOCK_DATABRICKS_IMAGE") is { Length: > 0 } i ? i : DefaultImage;
                    return await ContainerStarter(image, cancellationToken).ConfigureAwait(false);
                default:
                    bool https = Environment.GetEnvironmentVariable("MOCK_DATABRICKS_HTTPS") is "1" or "true";
                    return await StartProcessAsync(token, cancellationToken, https).ConfigureAwait(false);
            }
        }

        /// <param name="https">Serve https: the server generates its certificate and writes it to a temporary file the handle trusts.</param>
        public static async Task<MockServerHandle> StartProcessAsync(string token = DefaultToken, CancellationToken cancellationToken = default, bool https = false, params string[] extraArguments)
        {
            string dll = FindServerDll();
            string? certificate = https ? Path.Combine(Path.GetTempPath(), $"mock-databricks-{Guid.NewGuid():N}.crt") : null;
            if (certificate != null)
            {
                extraArguments = extraArguments.Concat(new[] { "--https", "--tls-cert-out", certificate }).ToArray();
            }

            var start = new ProcessStartInfo("dotnet")
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            foreach (string argument in new[] { dll, "--port", "0", "--token", token }.Concat(extraArguments))
            {
                start.ArgumentList.Add(argument);
            }

            Process process = Process.Start(start) ?? throw new InvalidOperationException("Could not start dotnet.");
            var stderr = new System.Text.StringBuilder();
            process.ErrorDataReceived += (_, e) =>
            {
                lock (stderr)
                {
                    stderr.AppendLine(e.Data);
                }
            };
            process.BeginErrorReadLine();
            try
            {
                Uri baseUrl = await ReadListeningUrlAsync(process, stderr, cancellationToken).ConfigureAwait(false);

                // Keep draining stdout so a chatty server never blocks on a full pipe.
                _ = process.StandardOutput.BaseStream.CopyToAsync(Stream.Null, CancellationToken.None);
                await WaitForHealthAsync(baseUrl, TimeSpan.FromSeconds(30), process, cancellationToken, certificate).ConfigureAwait(false);
                return new MockServerHandle(baseUrl, token, MockServerMode.Process, () => StopAsync(process, certificate)) { ProcessId = process.Id, TrustedCertificatePath = certificate };
            }
            catch
            {
                await StopAsync(process, certificate).ConfigureAwait(false);
                throw;
            }
        }

        /// <summary>The built server: MOCK_DATABRICKS_SERVER_DLL, or artifacts/bin/MockDatabricks.Server/&lt;same configuration&gt;/net10.0.</summary>
        public static string FindServerDll()
        {
            if (Environment.GetEnvironmentVariable("MOCK_DATABRICKS_SERVER_DLL") is { Length: > 0 } configured)
            {
                return File.Exists(configured) ? configured : throw new FileNotFoundException("MOCK_DATABRICKS_SERVER_DLL does not exist.", configured);
            }

            string here = AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar);
            string configuration = new DirectoryInfo(here).Parent?.Name ?? "Debug";
            for (DirectoryInfo? dir = new DirectoryInfo(here); dir != null; dir = dir.Parent)
            {
                string serverBin = Path.Combine(dir.FullName, "MockDatabricks.Server");
                if (dir.Name == "bin" && Directory.Exists(serverBin))
                {
                    IEnumerable<string> candidates = new[] { configuration, "Release", "Debug" }
                        .Select(c => Path.Combine(serverBin, c, "net10.0", "MockDatabricks.Server.dll"));
                    string? found = candidates.FirstOrDefault(File.Exists);
                    if (found != null)
                    {
                        return found;
                    }
                }
            }

            throw new FileNotFoundException(
                "MockDatabricks.Server.dll not found next to the test build (build integration-tests/MockDatabricks.Server, or set MOCK_DATABRICKS_SERVER_DLL).");
        }

        public static async Task WaitForHealthAsync(Uri baseUrl, TimeSpan timeout, Process? process, CancellationToken cancellationToken, string? trustedCertificatePath = null)
        {
            using var client = new HttpClient(TrustedCertificate.Handler(trustedCertificatePath)) { Timeout = TimeSpan.FromSeconds(5) };
            var clock = Stopwatch.StartNew();
            string lastError = "no attempt";
            while (clock.Elapsed < timeout)
            {
                if (process is { HasExited: true })
                {
                    throw new InvalidOperationException($"Mock server exited with code {process.ExitCode} before becoming healthy.");
                }

                try
                {
                    using HttpResponseMessage response = await client.GetAsync(new Uri(baseUrl, "/health"), cancellationToken).ConfigureAwait(false);
                    if (response.IsSuccessStatusCode)
                    {
                        return;
                    }

                    lastError = "HTTP " + (int)response.StatusCode;
                }
                catch (Exception ex) when (ex is HttpRequestException or TaskCanceledException && !cancellationToken.IsCancellationRequested)
                {
                    lastError = ex.Message;
                }

                await Task.Delay(200, cancellationToken).ConfigureAwait(false);
            }

            throw new TimeoutException($"Mock server at {baseUrl} not healthy after {timeout.TotalSeconds:F0} s: {lastError}");
        }

        private static async Task<Uri> ReadListeningUrlAsync(Process process, System.Text.StringBuilder stderr, CancellationToken cancellationToken)
        {
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            timeout.CancelAfter(TimeSpan.FromSeconds(60));
            const string prefix = "Now listening on: ";
            try
            {
                while (true)
                {
                    string? line = await process.StandardOutput.ReadLineAsync(timeout.Token).ConfigureAwait(false);
                    if (line == null)
                    {
                        break;
                    }

                    int at = line.IndexOf(prefix, StringComparison.Ordinal);
                    if (at >= 0)
                    {
                        return new Uri(line.Substring(at + prefix.Length).Trim());
                    }
                }
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                throw new TimeoutException("Mock server did not print its URL within 60 s.");
            }

            await process.WaitForExitAsync(CancellationToken.None).ConfigureAwait(false);
            lock (stderr)
            {
                throw new InvalidOperationException($"Mock server exited ({process.ExitCode}) without printing its URL: {stderr}");
            }
        }

        private static async ValueTask StopAsync(Process process, string? certificate = null)
        {
            try
            {
                if (!process.HasExited)
                {
                    process.Kill(entireProcessTree: true);
                    await process.WaitForExitAsync(new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token).ConfigureAwait(false);
                }
            }
            catch (Exception ex) when (ex is InvalidOperationException or OperationCanceledException or System.ComponentModel.Win32Exception)
            {
                // Already gone or not stoppable: nothing more to do in a test fixture.
            }
            finally
            {
                process.Dispose();
                if (certificate != null)
                {
                    File.Delete(certificate);
                }
            }
        }

        private static async Task<MockServerHandle> StartContainerThroughReflectionAsync(string image, CancellationToken cancellationToken)
        {
            Type? type = Type.GetType("MockDatabricks.Containers.MockServerContainers, MockDatabricks.Containers");
            if (type == null)
            {
                throw new InvalidOperationException(
                    "MOCK_DATABRICKS_MODE=container needs the MockDatabricks.Containers assembly next to the tests (reference integration-tests/MockDatabricks.Containers).");
            }

            MethodInfo start = type.GetMethod("StartAsync", BindingFlags.Public | BindingFlags.Static, new[] { typeof(string), typeof(CancellationToken) })
                ?? throw new MissingMethodException(type.FullName, "StartAsync(string, CancellationToken)");
            var task = (Task)start.Invoke(null, new object[] { image, cancellationToken })!;
            await task.ConfigureAwait(false);

            // A MockDatabricksContainer (Testcontainers): its base URL, the token it was started with, DisposeAsync removes it.
            object container = task.GetType().GetProperty("Result")!.GetValue(task)!;
            var baseUrl = (Uri)(container.GetType().GetProperty("BaseUrl")?.GetValue(container)
                ?? throw new MissingMemberException(container.GetType().FullName, "BaseUrl"));
            var token = (string)(container.GetType().GetProperty("Token")?.GetValue(container)
                ?? throw new MissingMemberException(container.GetType().FullName, "Token"));
            return new MockServerHandle(baseUrl, token, MockServerMode.Container, () => ((IAsyncDisposable)container).DisposeAsync());
        }
    }
}
