using System.Text;

namespace DriverOverlay.Tests
{
    /// <summary>Deterministic inputs with the shapes LZ4 meets in Databricks results.</summary>
    internal static class TestData
    {
        /// <summary>
        /// Arrow-like column data: runs of small integers, sorted ids, repeated strings, doubles. Compresses ~2-4x,
        /// with matches of every offset class (including offsets 1-7 and overlapping copies).
        /// </summary>
        public static byte[] Mixed(int length, int seed)
        {
            var random = new Random(seed);
            byte[] data = new byte[length];
            string[] words = { "databricks", "cloudfetch", "arrow", "lz4", "power bi", "warehouse", "EUR", "USD", "2026-11-21" };
            int position = 0;
            long id = random.Next(1000, 100000);
            while (position < length)
            {
                int kind = random.Next(6);
                int run = random.Next(8, 256);
                for (int i = 0; i < run && position < length; i++)
                {
                    switch (kind)
                    {
                        case 0: // a run of one byte (offset-1 matches)
                            data[position++] = (byte)(run & 0x7);
                            break;
                        case 1: // little-endian sorted ids
                            byte[] idBytes = BitConverter.GetBytes(id++);
                            for (int b = 0; b < idBytes.Length && position < length; b++)
                            {
                                data[position++] = idBytes[b];
                            }

                            break;
                        case 2: // repeated words
                            byte[] word = Encoding.ASCII.GetBytes(words[random.Next(words.Length)]);
                            for (int b = 0; b < word.Length && position < length; b++)
                            {
                                data[position++] = word[b];
                            }

                            break;
                        case 3: // short period patterns (offsets 2-7)
                            data[position] = (byte)(position % (2 + (run % 6)));
                            position++;
                            break;
                        case 4: // noise
                            data[position++] = (byte)random.Next(256);
                            break;
                        default: // doubles with few distinct values
                            byte[] value = BitConverter.GetBytes(Math.Round(random.NextDouble() * 100, 1));
                            for (int b = 0; b < value.Length && position < length; b++)
                            {
                                data[position++] = value[b];
                            }

                            break;
                    }
                }
            }

            return data;
        }

        /// <summary>Incompressible bytes: the encoder stores these blocks uncompressed.</summary>
        public static byte[] Random(int length, int seed)
        {
            byte[] data = new byte[length];
            new Random(seed).NextBytes(data);
            return data;
        }

        /// <summary>Highly repetitive text whose matches reach far back (linked blocks reference earlier blocks).</summary>
        public static byte[] Repetitive(int length, int seed)
        {
            var random = new Random(seed);
            byte[] phrase = Encoding.ASCII.GetBytes("SELECT id, amount, currency FROM sales WHERE region = 'EMEA';\n");
            byte[] data = new byte[length];
            for (int i = 0; i < length; i++)
            {
                data[i] = phrase[i % phrase.Length];
                if (random.Next(5000) == 0)
                {
                    data[i] = (byte)random.Next(256);
                }
            }

            return data;
        }
    }
}
