using System;
using System.Collections.Generic;
using System.Linq;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>One option a command accepts.</summary>
    internal sealed class OptionSpec
    {
        public OptionSpec(string name, bool takesValue, string description, string? alias = null, string? valueName = null)
        {
            Name = name;
            TakesValue = takesValue;
            Description = description;
            Alias = alias;
            ValueName = valueName ?? "VALUE";
        }

        /// <summary>Long name without dashes, e.g. "adbc".</summary>
        public string Name { get; }

        public bool TakesValue { get; }

        public string Description { get; }

        /// <summary>Optional one-letter alias without the dash, e.g. "c".</summary>
        public string? Alias { get; }

        public string ValueName { get; }
    }

    /// <summary>
    /// Parsed command line: "patch [global options] COMMAND [options]". Options may come before or after the
    /// command, as "--name value" or "--name=value". Hand-rolled because the tool must not need packages.
    /// </summary>
    internal sealed class CommandLine
    {
        private readonly Dictionary<string, List<string>> values;
        private readonly HashSet<string> flags;

        private CommandLine(string? command, Dictionary<string, List<string>> values, HashSet<string> flags, bool help)
        {
            Command = command;
            this.values = values;
            this.flags = flags;
            Help = help;
        }

        public string? Command { get; }

        public bool Help { get; }

        public bool Has(string name) => flags.Contains(name) || values.ContainsKey(name);

        /// <summary>The option's value; when given more than once, the last one.</summary>
        public string? Value(string name) => values.TryGetValue(name, out List<string>? v) ? v[^1] : null;

        /// <summary>Every value of a repeatable option, in order.</summary>
        public IReadOnlyList<string> Values(string name) => values.TryGetValue(name, out List<string>? v) ? v : (IReadOnlyList<string>)Array.Empty<string>();

        /// <summary>
        /// Parses <paramref name="args"/>. <paramref name="commands"/> maps each command to its own options;
        /// <paramref name="globalOptions"/> are legal everywhere. Unknown commands and options are usage errors
        /// that say how to get help.
        /// </summary>
        public static CommandLine Parse(
            IReadOnlyList<string> args,
            IReadOnlyDictionary<string, IReadOnlyList<OptionSpec>> commands,
            IReadOnlyList<OptionSpec> globalOptions)
        {
            // First pass: find the command word, skipping the values of value-taking options ("--adbc /src").
            List<OptionSpec> everyOption = globalOptions.Concat(commands.Values.SelectMany(v => v)).ToList();
            string? command = null;
            int commandIndex = -1;
            for (int i = 0; i < args.Count && command == null; i++)
            {
                string arg = args[i];
                if (arg.StartsWith('-'))
                {
                    if (!arg.Contains('=') && everyOption.Any(o => o.TakesValue && ("--" + o.Name == arg || "-" + o.Alias == arg)))
                    {
                        i++;
                    }

                    continue;
                }

                command = arg;
                commandIndex = i;
            }

            if (command == "help")
            {
                // "patch help apply" is "patch apply --help".
                string? topic = args.Skip(commandIndex + 1).FirstOrDefault(a => !a.StartsWith('-'));
                return new CommandLine(topic, new Dictionary<string, List<string>>(), new HashSet<string>(), help: true);
            }

            if (command != null && !commands.ContainsKey(command))
            {
                throw new ToolException(ExitCodes.Usage, $"unknown command '{command}'.", $"commands: {string.Join(", ", commands.Keys)}; run `patch --help`");
            }

            List<OptionSpec> specs = globalOptions.Concat(command == null ? Enumerable.Empty<OptionSpec>() : commands[command]).ToList();
            var values = new Dictionary<string, List<string>>(StringComparer.Ordinal);
            var flags = new HashSet<string>(StringComparer.Ordinal);
            var unexpected = new List<string>();
            bool help = false;
            for (int i = 0; i < args.Count; i++)
            {
                string arg = args[i];
                if (i == commandIndex)
                {
                    continue;
                }

                if (arg is "-h" or "--help" or "-?")
                {
                    help = true;
                    continue;
                }

                if (!arg.StartsWith('-') || arg == "-")
                {
                    unexpected.Add(arg);
                    continue;
                }

                string name;
                string? inlineValue = null;
                if (arg.StartsWith("--", StringComparison.Ordinal))
                {
                    name = arg.Substring(2);
                    int equals = name.IndexOf('=');
                    if (equals >= 0)
                    {
                        inlineValue = name.Substring(equals + 1);
                        name = name.Substring(0, equals);
                    }
                }
                else
                {
                    string alias = arg.Substring(1);
                    name = specs.FirstOrDefault(s => s.Alias == alias)?.Name ?? "\0" + alias;
                }

                OptionSpec? spec = specs.FirstOrDefault(s => s.Name == name);
                if (spec == null)
                {
                    throw new ToolException(
                        ExitCodes.Usage,
                        $"unknown option '{arg}'{(command == null ? "" : $" for '{command}'")}.",
                        command == null ? "run `patch --help`" : $"run `patch {command} --help` for its options");
                }

                if (spec.TakesValue)
                {
                    string? value = inlineValue;
                    if (value == null)
                    {
                        if (i + 1 >= args.Count || args[i + 1].StartsWith("--", StringComparison.Ordinal))
                        {
                            throw new ToolException(ExitCodes.Usage, $"option --{spec.Name} needs a value ({spec.ValueName}).", $"e.g. --{spec.Name} {spec.ValueName}");
                        }

                        value = args[++i];
                    }

                    if (!values.TryGetValue(spec.Name, out List<string>? list))
                    {
                        list = new List<string>();
                        values[spec.Name] = list;
                    }

                    list.Add(value);
                }
                else
                {
                    if (inlineValue != null)
                    {
                        throw new ToolException(ExitCodes.Usage, $"option --{spec.Name} takes no value.", $"write just --{spec.Name}");
                    }

                    flags.Add(spec.Name);
                }
            }

            if (unexpected.Count > 0 && !help)
            {
                throw new ToolException(
                    ExitCodes.Usage,
                    $"unexpected argument(s): {string.Join(" ", unexpected)}.",
                    command == null ? "run `patch --help`" : $"run `patch {command} --help`");
            }

            return new CommandLine(command, values, flags, help);
        }
    }
}
