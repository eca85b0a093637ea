using System.IO;
using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace MockDatabricks.Server.Tls
{
    /// <summary>
    /// The self-signed certificate the server makes at start for --https: valid for localhost, 127.0.0.1 and ::1 (plus
    /// the host of --public-url), for 30 days, over an ECDSA P-256 key or (--tls-key rsa) an RSA 2048 one. Its PEM is written where a client can trust it (NODE_EXTRA_CA_CERTS,
    /// the Node driver's customCaCert, the ADBC driver's adbc.http_options.tls.trusted_certificate_path); the private
    /// key never leaves the process.
    /// </summary>
    public static class GeneratedCertificate
    {
        /// <summary>An ECDSA P-256 key (the default).</summary>
        public const string Ecdsa = "ecdsa";

        /// <summary>
        /// An RSA 2048 key, what a Databricks warehouse presents. Mono 6.8 (the .NET Framework stand-in scripts/verify
        /// measures with) cannot read an ECDSA certificate ("Cannot decode public key from unknown OID
        /// '1.2.840.10045.2.1'"); it reads this one.
        /// </summary>
        public const string Rsa = "rsa";

        public static string CheckKeyAlgorithm(string name) => name is Ecdsa or Rsa
            ? name
            : throw new ArgumentException($"TLS key '{name}' is not {Ecdsa} or {Rsa}.");

        public static X509Certificate2 Create(string? extraHost, string keyAlgorithm = Ecdsa)
        {
            using AsymmetricAlgorithm key = CheckKeyAlgorithm(keyAlgorithm) == Rsa ? RSA.Create(2048) : ECDsa.Create(ECCurve.NamedCurves.nistP256);
            CertificateRequest request = key is RSA rsa
                ? new CertificateRequest("CN=MockDatabricks warehouse", rsa, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1)
                : new CertificateRequest("CN=MockDatabricks warehouse", (ECDsa)key, HashAlgorithmName.SHA256);
            var names = new SubjectAlternativeNameBuilder();
            names.AddDnsName("localhost");
            names.AddIpAddress(IPAddress.Loopback);
            names.AddIpAddress(IPAddress.IPv6Loopback);
            if (!string.IsNullOrEmpty(extraHost) && extraHost != "localhost")
            {
                if (IPAddress.TryParse(extraHost, out IPAddress? address))
                {
                    names.AddIpAddress(address);
                }
                else
                {
                    names.AddDnsName(extraHost);
                }
            }

            request.CertificateExtensions.Add(names.Build());
            request.CertificateExtensions.Add(new X509BasicConstraintsExtension(certificateAuthority: false, hasPathLengthConstraint: false, pathLengthConstraint: 0, critical: true));
            // RSA also enciphers keys in TLS's RSA key exchange, which older clients may still choose.
            X509KeyUsageFlags usage = key is RSA ? X509KeyUsageFlags.DigitalSignature | X509KeyUsageFlags.KeyEncipherment : X509KeyUsageFlags.DigitalSignature;
            request.CertificateExtensions.Add(new X509KeyUsageExtension(usage, critical: true));
            request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension(new OidCollection { new Oid("1.3.6.1.5.5.7.3.1", "Server Authentication") }, critical: false));
            DateTimeOffset now = DateTimeOffset.UtcNow;
            return request.CreateSelfSigned(now.AddMinutes(-5), now.AddDays(30));
        }

        /// <summary>Writes the certificate (no key) as PEM to <paramref name="path"/>, creating its folder.</summary>
        public static void WritePem(X509Certificate2 certificate, string path)
        {
            string? folder = Path.GetDirectoryName(Path.GetFullPath(path));
            if (folder != null)
            {
                Directory.CreateDirectory(folder);
            }

            File.WriteAllText(path, certificate.ExportCertificatePem() + "\n");
        }
    }
}
