namespace MockDatabricks.Server.Faults
{
    public enum FaultKind
    {
        /// <summary>Links are issued already expired (mode=past) or expiring within the driver's 60 s margin (mode=soon).</summary>
        Expired,

        /// <summary>The download answers with an HTTP status (http403, http404, http500, http503, any httpNNN).</summary>
        HttpStatus,

        /// <summary>Waits delay_ms before sending the response headers: a time to first byte.</summary>
        Slow,

        /// <summary>Sends the body at bps bytes per second (a per-file rate).</summary>
        Throttle,

        /// <summary>
        /// Sends the body through a link of bps bytes per second that every body being sent under a link of the same rate
        /// shares at that moment, fairly (an aggregate rate: the path between a client and its cloud storage).
        /// </summary>
        Link,

        /// <summary>Declares the full Content-Length, sends exactly the first fraction 'at' of the body, then closes the connection cleanly (FIN).</summary>
        Truncate,

        /// <summary>Chunked body, sends the first fraction 'at', then resets the TCP connection (RST; bytes still in flight may be lost).</summary>
        Reset,

        /// <summary>Serves a structurally corrupted LZ4 frame (an invalid match offset in the first compressed block, or a bad magic).</summary>
        CorruptLz4,

        /// <summary>A Thrift RPC answers HTTP 200 with a TStatus ERROR (method=...).</summary>
        RpcError,

        /// <summary>A Thrift RPC answers with an HTTP status and x-thriftserver-error-message (method=..., status=...).</summary>
        RpcHttp,

        /// <summary>
        /// A Thrift RPC is answered normally, but delay_ms after it was journaled (method=...): what happens on the
        /// client while a slow RPC is under way (CloseOperation during a reader's Dispose) shows in the journal's order.
        /// </summary>
        RpcSlow,

        /// <summary>
        /// Sends the first fraction 'at' of the body, then stops sending for delay_ms whether or not the client is still
        /// there (a stalled network, or a client whose read ignores cancellation), then sends the rest.
        /// </summary>
        Stall,
    }

    /// <summary>
    /// One fault, parsed from "kind key=value ...". Download faults select files (files=all|0,3,5) and how many
    /// attempts per file they hit (times=N|always); RPC faults select a method.
    /// </summary>
    public sealed class FaultRule
    {
        public FaultKind Kind { get; private init; }

        public string Text { get; private init; } = string.Empty;

        public int StatusCode { get; private init; }

        /// <summary>null = all files.</summary>
        public IReadOnlySet<int>? Files { get; private init; }

        /// <summary>Attempts (per file and operation) the fault applies to; int.MaxValue = always.</summary>
        public int Times { get; private init; } = 1;

        public int DelayMs { get; private init; } = 2000;

        public long BytesPerSecond { get; private init; } = 1024 * 1024;

        public double At { get; private init; } = 0.5;

        public bool ExpireInPast { get; private init; } = true;

        public string CorruptMode { get; private init; } = "offset";

        public string? Method { get; private init; }

        public string Message { get; private init; } = "injected fault";

        public bool IsDownloadFault => Kind is not (FaultKind.RpcError or FaultKind.RpcHttp or FaultKind.RpcSlow);

        /// <summary>
        /// The download faults that shape the network rather than break the response (a time to first byte, a per-file
        /// rate, a shared link): a download gets one of each kind besides at most one other download fault.
        /// </summary>
        public bool IsPacing => Kind is FaultKind.Slow or FaultKind.Throttle or FaultKind.Link;

        public bool AppliesToFile(int file) => Files == null || Files.Contains(file);

        public bool AppliesToMethod(string method) => Method == null || string.Equals(Method, method, StringComparison.OrdinalIgnoreCase);

        /// <summary>Parses "kind k=v k=v; kind k=v" (faults separated by ';').</summary>
        public static List<FaultRule> ParseList(string text) =>
            text.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(Parse).ToList();

        public static FaultRule Parse(string text)
        {
            string[] parts = text.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (parts.Length == 0)
            {
                throw new FormatException("Empty fault.");
            }

            string name = parts[0].ToLowerInvariant();
            var args = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
            foreach (string part in parts.Skip(1))
            {
                int eq = part.IndexOf('=');
                if (eq <= 0)
                {
                    throw new FormatException($"Fault parameter '{part}' is not key=value.");
                }

                args[part.Substring(0, eq)] = part.Substring(eq + 1);
            }

            (FaultKind kind, int status) = name switch
            {
                "expired" => (FaultKind.Expired, 0),
                "slow" => (FaultKind.Slow, 0),
                "throttle" => (FaultKind.Throttle, 0),
                "link" => (FaultKind.Link, 0),
                "truncate" => (FaultKind.Truncate, 0),
                "reset" => (FaultKind.Reset, 0),
                "corrupt_lz4" => (FaultKind.CorruptLz4, 0),
                "rpc_error" => (FaultKind.RpcError, 0),
                "rpc_http" => (FaultKind.RpcHttp, 500),
                "rpc_slow" => (FaultKind.RpcSlow, 0),
                "stall" => (FaultKind.Stall, 0),
                _ when name.StartsWith("http", StringComparison.Ordinal) && int.TryParse(name.AsSpan(4), NumberStyles.None, CultureInfo.InvariantCulture, out int code) && code is >= 400 and <= 599
                    => (FaultKind.HttpStatus, code),
                _ => throw new FormatException($"Unknown fault '{parts[0]}'. Known: expired, http403, http404, http500, http503 (any httpNNN), slow, throttle, link, truncate, reset, stall, corrupt_lz4, rpc_error, rpc_http, rpc_slow."),
            };

            var known = new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "files", "times", "delay_ms", "bps", "at", "mode", "method", "status", "message" };
            foreach (string key in args.Keys)
            {
                if (!known.Contains(key))
                {
                    throw new FormatException($"Unknown fault parameter '{key}' in '{text}'.");
                }
            }

            int defaultTimes = kind == FaultKind.CorruptLz4 ? int.MaxValue : 1;
            var rule = new FaultRule
            {
                Kind = kind,
                Text = text.Trim(),
                StatusCode = args.TryGetValue("status", out string? s) ? ParseInt(s, "status") : status,
                Files = args.TryGetValue("files", out string? f) ? ParseFiles(f) : null,
                Times = args.TryGetValue("times", out string? t) ? (t.Equals("always", StringComparison.OrdinalIgnoreCase) ? int.MaxValue : ParseInt(t, "times")) : defaultTimes,
                DelayMs = args.TryGetValue("delay_ms", out string? d) ? ParseInt(d, "delay_ms") : 2000,
                BytesPerSecond = args.TryGetValue("bps", out string? b) ? ParseInt(b, "bps") : 1024 * 1024,
                At = args.TryGetValue("at", out string? a) ? double.Parse(a, CultureInfo.InvariantCulture) : 0.5,
                ExpireInPast = !(args.TryGetValue("mode", out string? m) && m.Equals("soon", StringComparison.OrdinalIgnoreCase)),
                CorruptMode = kind == FaultKind.CorruptLz4 && args.TryGetValue("mode", out string? cm) ? cm.ToLowerInvariant() : "offset",
                Method = args.TryGetValue("method", out string? method) ? method : null,
                Message = args.TryGetValue("message", out string? message) ? message.Replace('_', ' ') : "injected fault",
            };
            if (rule.At is <= 0 or >= 1)
            {
                throw new FormatException("'at' must be a fraction between 0 and 1.");
            }

            if (rule.BytesPerSecond < 1 || rule.DelayMs < 0 || rule.Times < 1)
            {
                throw new FormatException($"Out-of-range parameter in '{text}'.");
            }

            if (rule.Kind == FaultKind.CorruptLz4 && rule.CorruptMode is not ("offset" or "magic" or "checksum"))
            {
                throw new FormatException("corrupt_lz4 mode must be offset, magic or checksum.");
            }

            return rule;
        }

        public override string ToString() => Text;

        private static IReadOnlySet<int>? ParseFiles(string value)
        {
            if (value.Equals("all", StringComparison.OrdinalIgnoreCase))
            {
                return null;
            }

            return value.Split(',', StringSplitOptions.RemoveEmptyEntries).Select(v => ParseInt(v, "files")).ToHashSet();
        }

        private static int ParseInt(string value, string name) =>
            int.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out int result) && result >= 0
                ? result
                : throw new FormatException($"Fault parameter {name}='{value}' is not a non-negative integer.");
    }
}
