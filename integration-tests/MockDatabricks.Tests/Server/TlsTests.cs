using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;

namespace MockDatabricks.Tests.Server
{
    /// <summary>--https: a server of its own (child process) with the certificate it generates at start.</summary>
    public sealed class TlsTests : IAsyncLifetime
    {
        private MockServerHandle _server = null!;

        public async Task InitializeAsync() => _server = await MockServerLauncher.StartProcessAsync(https: true);

        public async Task DisposeAsync() => await _server.DisposeAsync();

        [Fact]
        public async Task Https_ServesEveryValueAndHttpsLinks_ToAClientThatTrustsTheWrittenCertificate()
        {
            var spec = new DatasetSpec { Rows = 6_000, Seed = 8, RowsPerFile = 2_000 };

            QueryOutcome outcome = await MockServerFixture.QueryAsync(_server, spec, "mode=cloudfetch");

            Assert.Equal("https", _server.BaseUrl.Scheme);
            Assert.Equal(3, outcome.Links.Count);
            Assert.All(outcome.Links, link => Assert.StartsWith(_server.BaseUrlText + "/cloudfetch/", link.FileLink, StringComparison.Ordinal));
            Assert.Equal(spec.Rows, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
        }

        [Fact]
        public void GeneratedCertificate_NamesTheLoopbackAddressesAndLocalhost()
        {
            using X509Certificate2 certificate = X509CertificateLoader.LoadCertificateFromFile(_server.TrustedCertificatePath!);
            string names = certificate.Extensions.OfType<X509SubjectAlternativeNameExtension>().Single().Format(false);

            Assert.Contains("localhost", names, StringComparison.Ordinal);
            Assert.Contains("127.0.0.1", names, StringComparison.Ordinal);
            Assert.True(certificate.NotAfter > DateTime.Now.AddDays(29));
            Assert.NotNull(certificate.GetECDsaPublicKey()); // the default key; --tls-key rsa: RsaTlsTests
            Assert.False(certificate.HasPrivateKey);
        }

        [Fact]
        public async Task Https_IsRefusedByAClientThatDoesNotTrustTheCertificate()
        {
            using var http = new HttpClient(TrustedCertificate.Handler(null));

            HttpRequestException error = await Assert.ThrowsAsync<HttpRequestException>(() => http.GetAsync(new Uri(_server.BaseUrl, "/health")));

            Assert.IsType<AuthenticationException>(error.InnerException);
        }
    }
}
