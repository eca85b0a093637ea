using System;
using System.Threading;
using System.Threading.Tasks;
using Xunit;

namespace MockDatabricks.Containers.Tests;

/// <summary>
/// A fact that needs a Docker-compatible engine and the mock image. xunit 2 has no runtime skip, so the
/// prerequisites are checked when tests are discovered and a missing one becomes the Skip reason, shown
/// in the test report. With MOCK_DATABRICKS_CONTAINER_REQUIRED=1 (CI after setting the engine up) nothing
/// is skipped: a missing prerequisite then fails the test loudly instead of hiding behind a skip.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class ContainerFactAttribute : FactAttribute
{
    private static readonly Lazy<string?> MissingPrerequisite = new(FindMissingPrerequisite, LazyThreadSafetyMode.ExecutionAndPublication);

    public ContainerFactAttribute()
    {
        if (!IsRequired && MissingPrerequisite.Value is string reason)
        {
            Skip = reason;
        }
    }

    internal static bool IsRequired =>
        Environment.GetEnvironmentVariable("MOCK_DATABRICKS_CONTAINER_REQUIRED") is "1" or "true" or "TRUE" or "True";

    private static string? FindMissingPrerequisite()
    {
        if (!MockServerContainer.IsEngineReachable(out string reason))
        {
            return reason;
        }

        string image = MockServerContainer.ResolveImage(null);
        try
        {
            bool exists = Task.Run(async () =>
            {
                using var engine = new DockerApiClient(DockerEndpoint.FromEnvironment(), TimeSpan.FromSeconds(10));
                return await engine.ImageExistsAsync(image, CancellationToken.None).ConfigureAwait(false);
            }).GetAwaiter().GetResult();
            return exists ? null : $"image '{image}' not found in {reason}: build it with scripts/build-images.sh";
        }
        catch (Exception e)
        {
            return $"could not inspect image '{image}' in {reason}: {e.Message}";
        }
    }
}
