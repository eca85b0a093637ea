using System;
using System.Buffers;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Cli;
using MockDatabricks.Testing;

// Usage: dotnet run -c Release --project integration-tests/MockDatabricks.LoadCheck [-- --seconds 10 --concurrency 4 --url http://127.0.0.1:8080]
// Without --url it starts the server as a child process (as the tests do).
int seconds = 10;
int concurrency = 4;
string? url = null;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--seconds": seconds = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
        case "--concurrency": concurrency = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
        case "--url": url = args[++i]; break;
        default: Console.Error.WriteLine($"unknown argument {args[i]}"); return 2;
    }
}

await using MockServerHandle server = url != null
    ? new MockServerHandle(new Uri(url), Environment.GetEnvironmentVariable("MOCK_DATABRICKS_TOKEN") ?? MockServerLauncher.DefaultToken, MockServerMode.Url, null)
    : await MockServerLauncher.StartProcessAsync();

// 8 files of about 20 MB (Databricks' file size), LZ4-compressed as Databricks sends them, generated before
// anything is timed (POST /admin/datasets/prepare) and then served from the server's cache.
const string Statement = "SELECT * FROM mock.data WITH (rows=1600000, seed=1, mode=cloudfetch)";
using var admin = new AdminClient(server.BaseUrl);
using (HttpResponseMessage prepared = await admin.PrepareAsync(Statement))
{
    Console.WriteLine("prepared: " + await prepared.EnsureSuccessStatusCode().Content.ReadAsStringAsync());
}

using MockDatabricksClient client = MockDatabricksClient.For(server);
TSessionHandle session = (await client.OpenSessionAsync()).SessionHandle!;
TExecuteStatementResp executed = await client.ExecuteStatementAsync(session, Statement, new ExecuteOptions { DirectMaxRows = 100_000_000 });
var links = executed.DirectResults!.ResultSet!.Results!.ResultLinks!;
long setBytes = links.Sum(l => l.BytesNum);
Console.WriteLine($"files: {links.Count}, stored bytes per pass: {setBytes / 1e6:F1} MB (LZ4), concurrency {concurrency}, {seconds} s");

using var http = new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = concurrency * 2 });
long total = 0;
long requests = 0;
var clock = Stopwatch.StartNew();
var deadline = TimeSpan.FromSeconds(seconds);

// Warm-up pass (connections, JIT), not counted.
foreach (var link in links)
{
    await Drain(link.FileLink);
}

using Process? serverProcess = server.ProcessId is int pid ? Process.GetProcessById(pid) : null;
TimeSpan serverCpuBefore = serverProcess?.TotalProcessorTime ?? TimeSpan.Zero;
clock.Restart();
await Task.WhenAll(Enumerable.Range(0, concurrency).Select(async worker =>
{
    int index = worker;
    while (clock.Elapsed < deadline)
    {
        long read = await Drain(links[index % links.Count].FileLink);
        Interlocked.Add(ref total, read);
        Interlocked.Increment(ref requests);
        index++;
    }
}));
double elapsed = clock.Elapsed.TotalSeconds;
serverProcess?.Refresh();
double serverCpu = ((serverProcess?.TotalProcessorTime ?? TimeSpan.Zero) - serverCpuBefore).TotalSeconds;
await client.CloseOperationAsync(executed.OperationHandle!);
await client.CloseSessionAsync(session);

string serverPart = serverProcess != null
    ? FormattableString.Invariant($"; server CPU {serverCpu:F1} s = {total / 1e9 / Math.Max(serverCpu, 0.001):F2} GB per server CPU-second")
    : string.Empty;
Console.WriteLine(FormattableString.Invariant(
    $"LoadCheck: {total / 1e9:F2} GB in {requests} GETs over {elapsed:F1} s = {total / elapsed / 1e9:F2} GB/s ({total / elapsed / (1 << 30):F2} GiB/s) served to HttpClient on loopback, concurrency {concurrency}")
    + serverPart + "; load average " + File.ReadAllText("/proc/loadavg").Split(' ')[0]);

// Every GET must have been served from the cache: each file generated exactly once.
using JsonDocument datasets = await admin.GetJsonAsync("/admin/datasets");
int builds = datasets.RootElement.GetProperty("datasets").EnumerateArray()
    .First(d => d.GetProperty("key").GetString()!.StartsWith("rows=1600000;seed=1;", StringComparison.Ordinal)).GetProperty("fileBuilds").GetInt32();
Console.WriteLine($"files generated: {builds} for {links.Count} files");
return builds == links.Count ? 0 : 1;

async Task<long> Drain(string link)
{
    // Read and discard: measures the server and the socket path, not the client's copying into one big array.
    using HttpResponseMessage response = await http.GetAsync(link, HttpCompletionOption.ResponseHeadersRead);
    response.EnsureSuccessStatusCode();
    await using Stream body = await response.Content.ReadAsStreamAsync();
    byte[] buffer = ArrayPool<byte>.Shared.Rent(1 << 20);
    long count = 0;
    int read;
    while ((read = await body.ReadAsync(buffer)) > 0)
    {
        count += read;
    }

    ArrayPool<byte>.Shared.Return(buffer);
    return count;
}
