namespace MockDatabricks.Server.Faults
{
    /// <summary>
    /// What one CloudFetch GET meets: at most one fault that breaks or alters the response (an injected status, a
    /// truncated, reset, stalled or corrupt body) and, besides it, at most one of each pacing fault (<see cref="FaultRule.IsPacing"/>):
    /// a time to first byte (slow), a per-file rate (throttle) and a shared link (link), so a network is modelled by
    /// combining them. Each comes from the statement's faults (the first of its kind that applies to this file and
    /// attempt) or, when the statement has none of its kind, from the admin faults (a one-shot one is consumed).
    /// </summary>
    public sealed record DownloadFaults(FaultRule? Failure, FaultRule? Slow, FaultRule? Throttle, FaultRule? Link)
    {
        public static DownloadFaults For(IReadOnlyList<FaultRule> statementFaults, AdminFaultRegistry adminFaults, int file, int attempt, string? tag)
        {
            FaultRule? Pick(Func<FaultRule, bool> which) =>
                statementFaults.FirstOrDefault(f => f.IsDownloadFault && which(f) && f.AppliesToFile(file) && attempt <= f.Times)
                ?? adminFaults.TakeDownloadFault(file, tag, which);

            // Expired acts when links are issued (ResultBuilder), never on a download.
            return new DownloadFaults(
                Pick(f => !f.IsPacing && f.Kind != FaultKind.Expired),
                Pick(f => f.Kind == FaultKind.Slow),
                Pick(f => f.Kind == FaultKind.Throttle),
                Pick(f => f.Kind == FaultKind.Link));
        }

        /// <summary>The journal's outcome of a body sent whole: the altering fault's, else the pacing's ("throttled" over "slow").</summary>
        public string WholeBodyOutcome => Failure?.Kind switch
        {
            FaultKind.CorruptLz4 => "corrupt",
            FaultKind.Stall => "stalled",
            _ when Throttle != null || Link != null => "throttled",
            _ when Slow != null => "slow",
            _ => "ok",
        };
    }
}
