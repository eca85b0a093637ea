using System.Collections.Generic;

namespace DbxMem.PatchTool.Series
{
    /// <summary>How one patch fared in a dry run.</summary>
    internal sealed class PatchOutcome
    {
        public PatchOutcome(PatchFile patch, bool applied, IReadOnlyList<string> failedFiles, string gitMessage)
        {
            Patch = patch;
            Applied = applied;
            FailedFiles = failedFiles;
            GitMessage = gitMessage;
        }

        public PatchFile Patch { get; }

        public bool Applied { get; }

        public IReadOnlyList<string> FailedFiles { get; }

        public string GitMessage { get; }
    }

    /// <summary>The dry run of a whole series: outcomes up to and including the first failure.</summary>
    internal sealed class PrecheckResult
    {
        public PrecheckResult(IReadOnlyList<PatchOutcome> outcomes, int notChecked)
        {
            Outcomes = outcomes;
            NotChecked = notChecked;
        }

        public IReadOnlyList<PatchOutcome> Outcomes { get; }

        /// <summary>Patches after the first failure, which were not tried.</summary>
        public int NotChecked { get; }

        public PatchOutcome? Failure => Outcomes.Count > 0 && !Outcomes[^1].Applied ? Outcomes[^1] : null;
    }
}
