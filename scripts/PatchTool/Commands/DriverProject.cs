using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using DbxMem.PatchTool.Infrastructure;
using DbxMem.PatchTool.Provenance;
using DbxMem.PatchTool.Series;

namespace DbxMem.PatchTool.Commands
{
    /// <summary>The driver project of a checkout, as build and pack see it.</summary>
    internal sealed class DriverProject
    {
        private DriverProject(AdbcCheckout checkout, string projectPath, string baseTag, CheckoutProvenance? provenance)
        {
            Checkout = checkout;
            ProjectPath = projectPath;
            BaseTag = baseTag;
            Provenance = provenance;
        }

        public AdbcCheckout Checkout { get; }

        public string ProjectPath { get; }

        public string BaseTag { get; }

        /// <summary>Null when building an unpatched checkout (build --allow-unpatched).</summary>
        public CheckoutProvenance? Provenance { get; }

        public static DriverProject Resolve(ToolContext context, bool allowUnpatched)
        {
            AdbcCheckout checkout = context.OpenCheckout();
            ApplyCommand.RequireNoAmSession(checkout);
            CheckoutProvenance? provenance = checkout.ReadProvenance(context, deleteStale: false);
            PatchRepository repository = context.OpenPatches();
            string relativeProject;
            BaseInfo baseInfo;
            if (provenance != null)
            {
                if (provenance.State != CheckoutProvenance.StateApplied)
                {
                    throw new ToolException(
                        ExitCodes.CheckoutState,
                        $"{checkout.Root} is only partly patched (an `apply --3way` was finished by hand).",
                        "export the result (`scripts/patch export`), then `scripts/patch revert --force` and `scripts/patch apply`, so the build matches a recorded series");
                }

                relativeProject = provenance.DriverProject;
                baseInfo = repository.LoadBase(provenance.BaseTag);
            }
            else
            {
                IReadOnlyList<BaseInfo> bases = repository.LoadBases();
                string head = checkout.Head();
                BaseInfo? atBase = BaseResolver.FindByCommit(bases, head);
                if (!allowUnpatched)
                {
                    throw new ToolException(
                        ExitCodes.CheckoutState,
                        $"{checkout.Root} is not patched{(atBase == null ? "" : $" (it is at {atBase.Tag})")}.",
                        context.CommandLine.Command == "build"
                            ? "run `scripts/patch apply` first (or pass --allow-unpatched to build the stock driver of a supported base)"
                            // Only build takes --allow-unpatched: a hint names options of the command that printed it.
                            : "run `scripts/patch apply` first; `scripts/patch build --allow-unpatched` builds the stock driver of a supported base");
                }

                if (atBase == null)
                {
                    throw BaseResolver.WrongBase(checkout, bases, head);
                }

                relativeProject = atBase.DriverProject;
                baseInfo = atBase;
            }

            checkout.RequireSubmodules(baseInfo);

            string project = Path.Combine(checkout.Root, relativeProject);
            if (!File.Exists(project))
            {
                throw new ToolException(
                    ExitCodes.CheckoutState,
                    $"the driver project {relativeProject} does not exist in {checkout.Root}.",
                    "check driverProject in the base's base.json");
            }

            return new DriverProject(checkout, project, baseInfo.Tag, provenance);
        }
    }
}
