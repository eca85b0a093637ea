using System;
using System.Net.Http;
using System.Net.Security;
using System.Security.Cryptography.X509Certificates;

namespace MockDatabricks.Testing
{
    /// <summary>
    /// HTTP handlers for test clients of a mock that serves https with its generated certificate: that one certificate
    /// is the only trusted root (system roots are not consulted), and the host name must match, as for a real client.
    /// </summary>
    public static class TrustedCertificate
    {
        /// <summary>A handler that trusts the PEM at <paramref name="pemPath"/>, or the system's defaults when it is null.</summary>
        public static HttpMessageHandler Handler(string? pemPath)
        {
#if NETFRAMEWORK
            // The memory probe's net472 build (under Mono): no SocketsHttpHandler, no custom chain trust. The mock's
            // certificate is self-signed, so it is trusted exactly when it is the one presented, for the right name.
            var frameworkHandler = new HttpClientHandler { UseProxy = false };
            if (pemPath != null)
            {
                byte[] trusted = new X509Certificate2(pemPath).RawData;
                frameworkHandler.ServerCertificateCustomValidationCallback = (_, certificate, _, errors) =>
                    certificate != null && (errors & (SslPolicyErrors.RemoteCertificateNameMismatch | SslPolicyErrors.RemoteCertificateNotAvailable)) == 0
                    && System.Linq.Enumerable.SequenceEqual(certificate.RawData, trusted);
            }

            return frameworkHandler;
#else
            var handler = new SocketsHttpHandler { UseProxy = false };
            if (pemPath == null)
            {
                return handler;
            }

            X509Certificate2 root = X509CertificateLoader.LoadCertificateFromFile(pemPath);
            handler.SslOptions.RemoteCertificateValidationCallback = (_, certificate, _, errors) =>
            {
                if (certificate == null || errors.HasFlag(SslPolicyErrors.RemoteCertificateNameMismatch) || errors.HasFlag(SslPolicyErrors.RemoteCertificateNotAvailable))
                {
                    return false;
                }

                using var chain = new X509Chain();
                chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
                chain.ChainPolicy.CustomTrustStore.Add(root);
                chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
                return chain.Build(certificate as X509Certificate2 ?? X509CertificateLoader.LoadCertificate(certificate.GetRawCertData()));
            };
            return handler;
#endif
        }
    }
}
