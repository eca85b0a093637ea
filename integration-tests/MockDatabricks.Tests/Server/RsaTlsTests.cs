using System.Diagnostics;
using System.Security.Cryptography.X509Certificates;

namespace MockDatabricks.Tests.Server
{
    /// <summary>
    /// --https --tls-key rsa: the certificate a warehouse presents (RSA), which Mono 6.8, the .NET Framework stand-in of
    /// scripts/verify, can read where it cannot read the default ECDSA one.
    /// </summary>
    public sealed class RsaTlsTests : IAsyncLifetime
    {
        private const string RsaOid = "1.2.840.113549.1.1.1";

        private MockServerHandle _server = null!;

        public async Task InitializeAsync() => _server = await MockServerLauncher.StartProcessAsync(https: true, extraArguments: new[] { "--tls-key", "rsa" });

        public async Task DisposeAsync() => await _server.DisposeAsync();

        [Fact]
        public void TheGeneratedCertificateHasAnRsa2048KeyForTheLoopbackNames()
        {
            using X509Certificate2 certificate = X509CertificateLoader.LoadCertificateFromFile(_server.TrustedCertificatePath!);

            Assert.Equal(RsaOid, certificate.PublicKey.Oid.Value);
            using System.Security.Cryptography.RSA? key = certificate.GetRSAPublicKey();
            Assert.Equal(2048, key!.KeySize);
            Assert.Null(certificate.GetECDsaPublicKey());
            Assert.Contains("127.0.0.1", certificate.Extensions.OfType<X509SubjectAlternativeNameExtension>().Single().Format(false), StringComparison.Ordinal);
            Assert.False(certificate.HasPrivateKey);
        }

        [Fact]
        public async Task ServesEveryValueOverHttpsToAClientThatTrustsTheRsaCertificate()
        {
            var spec = new DatasetSpec { Rows = 4_000, Seed = 11, RowsPerFile = 2_000 };

            QueryOutcome outcome = await MockServerFixture.QueryAsync(_server, spec, "mode=cloudfetch");

            Assert.Equal(2, outcome.Links.Count);
            Assert.All(outcome.Links, link => Assert.StartsWith(_server.BaseUrlText + "/cloudfetch/", link.FileLink, StringComparison.Ordinal));
            Assert.Equal(spec.Rows, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
        }

        [Fact]
        public async Task AnUnknownKeyAlgorithmIsRefusedAtStartWithItsName()
        {
            var start = new ProcessStartInfo("dotnet") { RedirectStandardError = true, RedirectStandardOutput = true, UseShellExecute = false };
            foreach (string argument in new[] { MockServerLauncher.FindServerDll(), "--port", "0", "--https", "--tls-key", "dsa" })
            {
                start.ArgumentList.Add(argument);
            }

            using Process process = Process.Start(start)!;
            Task<string> stdout = process.StandardOutput.ReadToEndAsync();
            string stderr = await process.StandardError.ReadToEndAsync();
            await process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(60));

            Assert.Equal(2, process.ExitCode);
            Assert.Contains("TLS key 'dsa' is not ecdsa or rsa", stderr, StringComparison.Ordinal);
            Assert.DoesNotContain("Now listening", await stdout, StringComparison.Ordinal);
        }
    }
}
