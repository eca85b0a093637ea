using MockDatabricks.Protocol.Lz4;
using MockDatabricks.Server.Faults;

namespace MockDatabricks.Server.Query
{
    /// <summary>
    /// The mock's own data sets, read by <see cref="Sql.SqlParser"/> as a FROM item (case-insensitive):
    /// <code>
    /// SELECT &lt;select list&gt; FROM mock.&lt;preset&gt; [WITH (key = value, ...)] [LIMIT n]
    /// </code>
    /// Values are numbers, words, or 'quoted strings' (needed for faults). See integration-tests/README.md for the keys.
    /// The select list is not evaluated: the result is the data set. An error in the options is a
    /// <see cref="FormatException"/> that names the grammar and the presets.
    /// </summary>
    public static class MockDatasets
    {
        public const string Grammar = "The mock's data sets are read with SELECT * FROM mock.<preset> [WITH (key=value, ...)] [LIMIT n].";

        /// <summary>The data set of a SELECT from mock.&lt;preset&gt;, which may have nothing but its select list and a LIMIT.</summary>
        public static QuerySpec Plan(Sql.SelectStatement select, Sql.MockDatasetFromItem source)
        {
            if (select.From.Count != 1 || select.Where != null || select.Unsupported != null)
            {
                throw new FormatException($"{Grammar} Presets: {string.Join(", ", Presets.Keys)}. A mock data set is not joined, filtered, grouped or ordered.");
            }

            if (!Presets.TryGetValue(source.Preset, out QuerySpec? preset))
            {
                throw new FormatException($"Unknown data set mock.{source.Preset}. Presets: {string.Join(", ", Presets.Keys)}.");
            }

            QuerySpec spec = preset with { Name = source.Preset.ToLowerInvariant() };
            foreach ((string key, string value) in SplitOptions(source.Options ?? string.Empty))
            {
                spec = Apply(spec, key.ToLowerInvariant(), value);
            }

            if (select.Limit is long limit)
            {
                spec = WithLimit(spec, limit);
            }

            spec.Dataset.Validate();
            return spec;
        }

        /// <summary>
        /// LIMIT n on a data set: the first n rows. Exact (default): a data set of n rows, whose files end at the limit.
        /// limit_files=whole: the files stay those of the whole data set and the result is the first n rows of them.
        /// </summary>
        public static QuerySpec WithLimit(QuerySpec spec, long limit)
        {
            if (limit >= spec.Dataset.Rows)
            {
                return spec;
            }

            return spec.LimitServesWholeFiles
                ? spec with { Limit = limit }
                : spec with { Dataset = spec.Dataset with { Rows = limit } };
        }

        /// <summary>Named starting points; WITH (...) overrides any of their settings.</summary>
        public static IReadOnlyDictionary<string, QuerySpec> Presets { get; } = new Dictionary<string, QuerySpec>(StringComparer.OrdinalIgnoreCase)
        {
            ["data"] = new QuerySpec(),
            ["small"] = new QuerySpec { Dataset = new DatasetSpec { Rows = 100 }, Mode = ResultMode.Inline },
            ["many_files"] = new QuerySpec { Dataset = new DatasetSpec { Rows = 200_000, RowsPerFile = 5_000, RowsPerBatch = 2_500 }, Mode = ResultMode.CloudFetch },
            ["huge_file"] = new QuerySpec { Dataset = new DatasetSpec { Rows = 1_500_000, RowsPerFile = 1_500_000 }, Mode = ResultMode.CloudFetch },
            ["multi_frame"] = new QuerySpec { Dataset = new DatasetSpec { Rows = 100_000, RowsPerFile = 25_000, RowsPerBatch = 5_000 }, Mode = ResultMode.CloudFetch, Framing = new FileFraming { FramesPerFile = 4 } },
            ["checksums"] = new QuerySpec
            {
                Dataset = new DatasetSpec { Rows = 100_000, RowsPerFile = 25_000 },
                Mode = ResultMode.CloudFetch,
                Framing = new FileFraming { Frame = Lz4FrameOptions.Databricks with { BlockChecksum = true, ContentChecksum = true, ContentSize = true } },
            },
        };

        private static QuerySpec Apply(QuerySpec spec, string key, string value)
        {
            DatasetSpec data = spec.Dataset;
            FileFraming framing = spec.Framing;
            Lz4FrameOptions frame = framing.Frame;
            return key switch
            {
                "rows" => spec with { Dataset = data with { Rows = Long(key, value) } },
                "seed" => spec with { Dataset = data with { Seed = (int)Long(key, value) } },
                "profile" => spec with { Dataset = data with { Profile = Enum.Parse<DatasetProfile>(value, ignoreCase: true) } },
                "file_mb" => spec with { Dataset = data with { TargetFileBytes = (long)(double.Parse(value, CultureInfo.InvariantCulture) * 1024 * 1024), RowsPerFile = null } },
                "file_rows" => spec with { Dataset = data with { RowsPerFile = Long(key, value) } },
                "batch_rows" => spec with { Dataset = data with { RowsPerBatch = (int)Long(key, value) } },
                "mode" => spec with { Mode = Enum.Parse<ResultMode>(value.Replace("_", string.Empty), ignoreCase: true) },
                "inline_max_bytes" => spec with { InlineMaxBytes = Long(key, value) },
                "lz4" => value.ToLowerInvariant() switch
                {
                    "auto" or "true" => spec with { Lz4Allowed = true, Lz4Always = false },
                    "off" or "false" => spec with { Lz4Allowed = false, Lz4Always = false },
                    "always" => spec with { Lz4Allowed = true, Lz4Always = true },
                    _ => throw new FormatException($"lz4 must be auto, off or always, not '{value}'."),
                },
                "lz4_block" => spec with { Framing = framing with { Frame = frame with { BlockMaxSize = BlockSize(value) } } },
                "lz4_linked" => spec with { Framing = framing with { Frame = frame with { IndependentBlocks = !Bool(key, value) } } },
                "lz4_block_checksum" => spec with { Framing = framing with { Frame = frame with { BlockChecksum = Bool(key, value) } } },
                "lz4_content_checksum" => spec with { Framing = framing with { Frame = frame with { ContentChecksum = Bool(key, value) } } },
                "lz4_content_size" => spec with { Framing = framing with { Frame = frame with { ContentSize = Bool(key, value) } } },
                "frames" => value.Equals("per_message", StringComparison.OrdinalIgnoreCase)
                    ? spec with { Framing = framing with { FramePerMessage = true } }
                    : spec with { Framing = framing with { FramesPerFile = (int)Long(key, value), FramePerMessage = false } },
                "lz4_flush" => spec with { Framing = framing with { FlushPerMessage = FlushPerMessage(value) } },
                "links_per_fetch" => spec with { LinksPerFetch = (int)Long(key, value) },
                "direct" => spec with { DirectResults = Bool(key, value) },
                "running_polls" => spec with { RunningPolls = (int)Long(key, value) },
                "expiry_s" => spec with { ExpirySeconds = (int)Long(key, value) },
                "close_in_direct" => spec with { CloseInDirectResults = Bool(key, value) },
                "tag" => spec with { Tag = value },
                "limit_files" => value.ToLowerInvariant() switch
                {
                    "whole" => spec with { LimitServesWholeFiles = true },
                    "exact" => spec with { LimitServesWholeFiles = false },
                    _ => throw new FormatException($"limit_files must be exact or whole, not '{value}'."),
                },
                "faults" => spec with { Faults = FaultRule.ParseList(value) },
                _ => throw new FormatException($"Unknown option '{key}'."),
            };
        }

        private static Lz4BlockMaxSize BlockSize(string value) => value.ToLowerInvariant() switch
        {
            "64kb" or "64k" => Lz4BlockMaxSize.Max64KB,
            "256kb" or "256k" => Lz4BlockMaxSize.Max256KB,
            "1mb" or "1m" => Lz4BlockMaxSize.Max1MB,
            "4mb" or "4m" => Lz4BlockMaxSize.Max4MB,
            _ => throw new FormatException($"lz4_block must be 64kb, 256kb, 1mb or 4mb, not '{value}'."),
        };

        private static bool FlushPerMessage(string value) => value.ToLowerInvariant() switch
        {
            "per_message" => true,
            "none" or "off" or "false" => false,
            _ => throw new FormatException($"lz4_flush must be per_message or none, not '{value}'."),
        };

        private static long Long(string key, string value) =>
            long.TryParse(value.Replace("_", string.Empty), NumberStyles.Integer, CultureInfo.InvariantCulture, out long result) && result >= 0
                ? result
                : throw new FormatException($"Option {key}='{value}' is not a non-negative integer.");

        private static bool Bool(string key, string value) => value.ToLowerInvariant() switch
        {
            "true" or "on" or "yes" or "1" => true,
            "false" or "off" or "no" or "0" => false,
            _ => throw new FormatException($"Option {key}='{value}' is not a boolean."),
        };

        /// <summary>Splits "a=1, b='x, y', c=z" on commas outside quotes ('' inside quotes is a literal quote).</summary>
        private static List<(string Key, string Value)> SplitOptions(string text)
        {
            var result = new List<(string, string)>();
            var current = new StringBuilder();
            bool quoted = false;
            var parts = new List<string>();
            for (int i = 0; i < text.Length; i++)
            {
                char c = text[i];
                if (c == '\'')
                {
                    if (quoted && i + 1 < text.Length && text[i + 1] == '\'')
                    {
                        current.Append('\'');
                        i++;
                        continue;
                    }

                    quoted = !quoted;
                    current.Append(c);
                }
                else if (c == ',' && !quoted)
                {
                    parts.Add(current.ToString());
                    current.Clear();
                }
                else
                {
                    current.Append(c);
                }
            }

            if (quoted)
            {
                throw new FormatException("Unterminated quoted value in WITH (...).");
            }

            parts.Add(current.ToString());
            foreach (string part in parts)
            {
                if (string.IsNullOrWhiteSpace(part))
                {
                    continue;
                }

                int eq = part.IndexOf('=');
                if (eq <= 0)
                {
                    throw new FormatException($"Option '{part.Trim()}' is not key=value.");
                }

                string value = part.Substring(eq + 1).Trim();
                if (value.Length >= 2 && value[0] == '\'' && value[^1] == '\'')
                {
                    value = value.Substring(1, value.Length - 2);
                }

                result.Add((part.Substring(0, eq).Trim(), value));
            }

            return result;
        }
    }
}
