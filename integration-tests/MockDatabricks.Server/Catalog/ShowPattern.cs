using System.Text.RegularExpressions;

namespace MockDatabricks.Server.Catalog
{
    /// <summary>
    /// The LIKE pattern of Databricks' SHOW commands: '*' matches any characters, '|' separates alternatives, and the
    /// rest works as a regular expression ('.' is any one character: the driver turns a JDBC '_' into '.' and '%' into
    /// '*'); a backslash makes the next character literal. Matching ignores case, as identifiers do.
    /// </summary>
    public static class ShowPattern
    {
        public static bool Matches(string? pattern, string name) => pattern == null || ToRegex(pattern).IsMatch(name);

        public static Regex ToRegex(string pattern)
        {
            var regex = new StringBuilder("^(?:");
            for (int i = 0; i < pattern.Length; i++)
            {
                char c = pattern[i];
                switch (c)
                {
                    case '*':
                        regex.Append(".*");
                        break;
                    case '.':
                        regex.Append('.');
                        break;
                    case '|':
                        regex.Append('|');
                        break;
                    case '\\' when i + 1 < pattern.Length:
                        regex.Append(Regex.Escape(pattern[++i].ToString()));
                        break;
                    default:
                        regex.Append(Regex.Escape(c.ToString()));
                        break;
                }
            }

            regex.Append(")$");
            return new Regex(regex.ToString(), RegexOptions.IgnoreCase | RegexOptions.CultureInvariant, TimeSpan.FromSeconds(1));
        }
    }
}
