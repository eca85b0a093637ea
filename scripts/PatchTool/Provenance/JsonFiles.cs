using System.IO;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace DbxMem.PatchTool.Provenance
{
    /// <summary>One JSON style for every file the tool writes: indented, LF, UTF-8 without BOM, fields in declaration order.</summary>
    internal static class JsonFiles
    {
        public static readonly JsonSerializerOptions Options = new JsonSerializerOptions
        {
            WriteIndented = true,
            NewLine = "\n",
            DefaultIgnoreCondition = JsonIgnoreCondition.Never,
            Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
        };

        public static void Write<T>(string path, T value)
        {
            string? directory = Path.GetDirectoryName(path);
            if (!string.IsNullOrEmpty(directory))
            {
                Directory.CreateDirectory(directory);
            }

            // Write then rename, so an interrupted run never leaves half a provenance file behind.
            string temporary = path + ".tmp";
            File.WriteAllText(temporary, JsonSerializer.Serialize(value, Options) + "\n", new UTF8Encoding(false));
            File.Move(temporary, path, overwrite: true);
        }

        public static T? Read<T>(string path)
            where T : class
        {
            return JsonSerializer.Deserialize<T>(File.ReadAllText(path), Options);
        }
    }
}
