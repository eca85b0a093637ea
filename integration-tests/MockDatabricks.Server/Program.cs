using System.IO;
using System.Net;
using System.Net.Http;
using System.Security.Cryptography.X509Certificates;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using MockDatabricks.Server;
using MockDatabricks.Server.Endpoints;
using MockDatabricks.Server.Faults;
using MockDatabricks.Server.Network;
using MockDatabricks.Server.Rest;
using MockDatabricks.Server.ResultSets;
using MockDatabricks.Server.State;
using MockDatabricks.Server.Tls;

ServerOptions options;
try
{
    options = ServerOptions.Parse(args);
}
catch (Exception ex) when (ex is ArgumentException or FormatException)
{
    Console.Error.WriteLine(ex.Message);
    return 2;
}

if (options.ProbeHealthUrl != null)
{
    // For the Docker HEALTHCHECK: the aspnet base image has no curl.
    return await ProbeHealthAsync(options.ProbeHealthUrl);
}

X509Certificate2? certificate = null;
if (options.Https)
{
    certificate = GeneratedCertificate.Create(options.PublicUrl == null ? null : new Uri(options.PublicUrl).Host, options.TlsKey);
    string certificateFile = options.TlsCertificateOut ?? Path.Combine(Path.GetTempPath(), $"mock-databricks-{Environment.ProcessId}.crt");
    GeneratedCertificate.WritePem(certificate, certificateFile);

    // Before "Now listening on": a launcher that reads the URL line knows the certificate file by then.
    Console.WriteLine($"TLS certificate (PEM): {Path.GetFullPath(certificateFile)}");
}

WebApplicationBuilder builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions { Args = Array.Empty<string>() });
builder.Logging.ClearProviders();
builder.Logging.AddSimpleConsole(o => o.SingleLine = true);
builder.Logging.SetMinimumLevel(options.Verbose ? LogLevel.Information : LogLevel.Warning);
builder.WebHost.UseKestrel(kestrel =>
{
    IPAddress address = options.Bind switch
    {
        "localhost" => IPAddress.Loopback,
        "*" or "+" => IPAddress.Any,
        _ => IPAddress.Parse(options.Bind),
    };
    kestrel.Listen(address, options.Port, listen =>
    {
        if (certificate != null)
        {
            listen.UseHttps(certificate);
        }
    });
    kestrel.Limits.MaxRequestBodySize = 64 * 1024 * 1024;
    kestrel.Limits.MinResponseDataRate = null; // throttled-body faults send slower than Kestrel's default minimum
    kestrel.AddServerHeader = false;
});

builder.Services.AddSingleton(options);
builder.Services.AddSingleton<RequestJournal>();
builder.Services.AddSingleton<AdminFaultRegistry>();
builder.Services.AddSingleton<SharedLinks>();
builder.Services.AddSingleton<SessionRegistry>();
builder.Services.AddSingleton(new DatasetStore(options.CacheBytes));
builder.Services.AddSingleton<ResultBuilder>();
builder.Services.AddSingleton<StatementExecutor>();
builder.Services.AddSingleton<CliService>();
builder.Services.AddSingleton<ThriftEndpoint>();
builder.Services.AddSingleton<CloudFetchEndpoint>();
builder.Services.AddStatementExecutionApi();

WebApplication app = builder.Build();
app.MapGet("/health", () => Results.Json(new { status = "ok" }));
app.MapPost("/sql/1.0/warehouses/{id}", (HttpContext context, ThriftEndpoint endpoint) => endpoint.HandleAsync(context));
app.MapGet("/cloudfetch/{operation}/{file:int}", (HttpContext context, string operation, int file, CloudFetchEndpoint endpoint) => endpoint.HandleAsync(context, operation, file));
StatementExecutionEndpoints.Map(app);
AdminEndpoints.Map(app);

await app.StartAsync();
string listening = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();

// One machine-parsable line: fixtures start the server with --port 0 and read the URL from here.
Console.WriteLine($"Now listening on: {listening}");
Console.Out.Flush();
await app.WaitForShutdownAsync();
return 0;

static async Task<int> ProbeHealthAsync(string url)
{
    try
    {
        using var client = new HttpClient { Timeout = TimeSpan.FromSeconds(5) };
        using HttpResponseMessage response = await client.GetAsync(url);
        return response.IsSuccessStatusCode ? 0 : 1;
    }
    catch (Exception ex) when (ex is HttpRequestException or TaskCanceledException or UriFormatException or InvalidOperationException)
    {
        Console.Error.WriteLine($"health probe failed: {ex.Message}");
        return 1;
    }
}
