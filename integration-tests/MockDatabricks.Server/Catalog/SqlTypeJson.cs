using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;

namespace MockDatabricks.Server.Catalog
{
    /// <summary>
    /// A SQL type text ("DECIMAL(10,2)", "ARRAY&lt;INT&gt;", "STRUCT&lt;f1: STRING&gt;", "INTERVAL DAY TO SECOND") as the
    /// type object of <c>DESCRIBE TABLE EXTENDED ... AS JSON</c>: lower-case name, precision/scale, length,
    /// element_type, key_type/value_type, fields, start_unit/end_unit. TIMESTAMP is written timestamp_ltz, as Databricks
    /// describes it.
    /// </summary>
    public static partial class SqlTypeJson
    {
        public static void Write(Utf8JsonWriter json, string sqlType)
        {
            string text = sqlType.Trim();
            int angle = text.IndexOf('<');
            string head = (angle < 0 ? text : text.Substring(0, angle)).Trim().ToUpperInvariant();
            json.WriteStartObject();
            if (angle >= 0)
            {
                if (!text.EndsWith('>'))
                {
                    throw new FormatException($"Type '{sqlType}' has no closing '>'.");
                }

                List<string> parts = SplitTopLevel(text.Substring(angle + 1, text.Length - angle - 2));
                switch (head)
                {
                    case "ARRAY":
                        json.WriteString("name", "array");
                        json.WritePropertyName("element_type");
                        Write(json, parts[0]);
                        json.WriteBoolean("element_nullable", true);
                        break;
                    case "MAP":
                        json.WriteString("name", "map");
                        json.WritePropertyName("key_type");
                        Write(json, parts[0]);
                        json.WritePropertyName("value_type");
                        Write(json, parts[1]);
                        json.WriteBoolean("value_nullable", true);
                        break;
                    case "STRUCT":
                        json.WriteString("name", "struct");
                        json.WriteStartArray("fields");
                        foreach (string field in parts)
                        {
                            int colon = field.IndexOf(':');
                            json.WriteStartObject();
                            json.WriteString("name", field.Substring(0, colon).Trim());
                            json.WritePropertyName("type");
                            Write(json, field.Substring(colon + 1));
                            json.WriteBoolean("nullable", true);
                            json.WriteEndObject();
                        }

                        json.WriteEndArray();
                        break;
                    default:
                        throw new FormatException($"Unknown parameterized type '{sqlType}'.");
                }
            }
            else if (DecimalRegex().Match(head) is { Success: true } decimalMatch)
            {
                json.WriteString("name", "decimal");
                json.WriteNumber("precision", int.Parse(decimalMatch.Groups["p"].Value, CultureInfo.InvariantCulture));
                json.WriteNumber("scale", decimalMatch.Groups["s"].Success ? int.Parse(decimalMatch.Groups["s"].Value, CultureInfo.InvariantCulture) : 0);
            }
            else if (LengthRegex().Match(head) is { Success: true } lengthMatch)
            {
                json.WriteString("name", lengthMatch.Groups["name"].Value.ToLowerInvariant());
                json.WriteNumber("length", int.Parse(lengthMatch.Groups["n"].Value, CultureInfo.InvariantCulture));
            }
            else if (IntervalRegex().Match(head) is { Success: true } intervalMatch)
            {
                json.WriteString("name", "interval");
                json.WriteString("start_unit", intervalMatch.Groups["from"].Value.ToLowerInvariant());
                if (intervalMatch.Groups["to"].Success)
                {
                    json.WriteString("end_unit", intervalMatch.Groups["to"].Value.ToLowerInvariant());
                }
            }
            else
            {
                json.WriteString("name", head == "TIMESTAMP" ? "timestamp_ltz" : head.ToLowerInvariant());
            }

            json.WriteEndObject();
        }

        /// <summary>Splits on commas outside angle brackets and parentheses.</summary>
        private static List<string> SplitTopLevel(string text)
        {
            var parts = new List<string>();
            int depth = 0;
            int start = 0;
            for (int i = 0; i < text.Length; i++)
            {
                switch (text[i])
                {
                    case '<' or '(':
                        depth++;
                        break;
                    case '>' or ')':
                        depth--;
                        break;
                    case ',' when depth == 0:
                        parts.Add(text.Substring(start, i - start).Trim());
                        start = i + 1;
                        break;
                }
            }

            parts.Add(text.Substring(start).Trim());
            return parts;
        }

        [GeneratedRegex(@"^DECIMAL\s*\(\s*(?<p>\d+)\s*(,\s*(?<s>\d+)\s*)?\)$")]
        private static partial Regex DecimalRegex();

        [GeneratedRegex(@"^(?<name>CHAR|VARCHAR)\s*\(\s*(?<n>\d+)\s*\)$")]
        private static partial Regex LengthRegex();

        [GeneratedRegex(@"^INTERVAL\s+(?<from>YEAR|MONTH|DAY|HOUR|MINUTE|SECOND)(\s+TO\s+(?<to>YEAR|MONTH|DAY|HOUR|MINUTE|SECOND))?$")]
        private static partial Regex IntervalRegex();
    }
}
