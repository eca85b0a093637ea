using System.Collections.Concurrent;
using System.Threading;
using Apache.Arrow;
using MockDatabricks.Protocol.Lz4;

namespace MockDatabricks.Server.ResultSets
{
    /// <summary>One CloudFetch file as stored: the exact bytes served (LZ4-framed or plain Arrow IPC).</summary>
    public sealed class StoredFile
    {
        private byte[]? _corruptOffset;
        private byte[]? _corruptMagic;
        private byte[]? _corruptChecksum;

        public StoredFile(RowRange range, byte[] bytes, long uncompressedBytes)
        {
            Range = range;
            Bytes = bytes;
            UncompressedBytes = uncompressedBytes;
        }

        public RowRange Range { get; }

        public byte[] Bytes { get; }

        public long UncompressedBytes { get; }

        public long LastAccessTicks { get; set; } = Environment.TickCount64;

        /// <summary>A corrupted copy, built once per mode and kept with the file.</summary>
        public byte[] Corrupted(string mode) => mode switch
        {
            "magic" => _corruptMagic ??= Lz4Corruption.BreakMagic(Bytes),
            "checksum" => _corruptChecksum ??= Lz4Corruption.FlipContentByte(Bytes),
            _ => _corruptOffset ??= Lz4Corruption.InvalidMatchOffset(Bytes),
        };
    }

    /// <summary>
    /// A data set with one delivery encoding (LZ4 framing or none). Files are built lazily, at most once while
    /// cached, in parallel up to the core count; inline batches likewise.
    /// </summary>
    public sealed class StoredDataset
    {
        private static readonly SemaphoreSlim s_buildSlots = new SemaphoreSlim(Math.Max(1, Environment.ProcessorCount));
        private readonly Task<StoredFile>?[] _files;
        private readonly ConcurrentDictionary<(long Start, long Count), byte[]> _inline = new ConcurrentDictionary<(long, long), byte[]>();
        private readonly DatasetStore? _store;
        private readonly object _lock = new object();
        private int _fileBuilds;
        private int _inlineBuilds;

        /// <param name="store">The cache that accounts for this data set's files; null for a result made for one statement (not cached).</param>
        public StoredDataset(string key, DatasetSpec spec, bool lz4, FileFraming framing, ResultTypes types, DatasetStore? store)
        {
            Key = key;
            Spec = spec;
            Lz4 = lz4;
            Framing = framing;
            Types = types;
            _store = store;
            Layout = new DatasetLayout(spec);
            Generator = new DatasetGenerator(spec);
            SchemaBytes = DatasetFiles.SchemaMessage(Schema);
            _files = new Task<StoredFile>?[Layout.FileCount];
        }

        public string Key { get; }

        public DatasetSpec Spec { get; }

        public bool Lz4 { get; }

        public FileFraming Framing { get; }

        /// <summary>Whether timestamps and decimals are served as native Arrow types or as strings.</summary>
        public ResultTypes Types { get; }

        public DatasetLayout Layout { get; }

        public DatasetGenerator Generator { get; }

        /// <summary>The schema as served (strings where <see cref="Types"/> says so); the column descriptors use <see cref="DatasetGenerator.Fields"/>.</summary>
        public Schema Schema => Generator.ServedSchema(Types);

        /// <summary>The arrowSchema metadata bytes: one Schema message.</summary>
        public byte[] SchemaBytes { get; }

        /// <summary>Files generated so far, rebuilds after eviction included: equal to the file count when nothing was generated twice.</summary>
        public int FileBuilds => Volatile.Read(ref _fileBuilds);

        /// <summary>Inline batches generated so far.</summary>
        public int InlineBuilds => Volatile.Read(ref _inlineBuilds);

        /// <summary>Files in memory now.</summary>
        public int BuiltFileCount => BuiltFiles().Length;

        /// <summary>Stored bytes of the files in memory now.</summary>
        public long CachedBytes => BuiltFiles().Sum(f => f.Bytes);

        public Task<StoredFile> GetFileAsync(int index)
        {
            Task<StoredFile> task;
            lock (_lock)
            {
                task = _files[index] ??= Task.Run(() => BuildAsync(index));
                if (task.IsFaulted)
                {
                    // A failed build (e.g. out of memory) is retried on the next request.
                    task = _files[index] = Task.Run(() => BuildAsync(index));
                }
            }

            if (task.IsCompletedSuccessfully)
            {
                task.Result.LastAccessTicks = Environment.TickCount64;
            }

            return task;
        }

        /// <summary>Drops a built file from memory (it is rebuilt, identically, when requested again).</summary>
        public long Evict(int index)
        {
            lock (_lock)
            {
                if (_files[index] is { IsCompletedSuccessfully: true } task)
                {
                    _files[index] = null;
                    return task.Result.Bytes.Length;
                }

                return 0;
            }
        }

        public (int Index, long LastAccess, long Bytes)[] BuiltFiles()
        {
            lock (_lock)
            {
                var list = new System.Collections.Generic.List<(int, long, long)>();
                for (int i = 0; i < _files.Length; i++)
                {
                    if (_files[i] is { IsCompletedSuccessfully: true } task)
                    {
                        list.Add((i, task.Result.LastAccessTicks, task.Result.Bytes.Length));
                    }
                }

                return list.ToArray();
            }
        }

        /// <summary>
        /// Generates (or finds cached) everything the result is served from: every file for CloudFetch, every inline
        /// batch otherwise (cut as FetchResults cuts them from row 0), in parallel up to the core count.
        /// Returns the number of files or batches and their stored bytes.
        /// </summary>
        public async Task<(int Count, long Bytes)> PrepareAsync(bool cloudFetch)
        {
            if (cloudFetch)
            {
                StoredFile[] files = await Task.WhenAll(Enumerable.Range(0, Layout.FileCount).Select(GetFileAsync)).ConfigureAwait(false);
                return (files.Length, files.Sum(f => (long)f.Bytes.Length));
            }

            RowRange[] batches = Enumerable.Range(0, (int)Layout.InlineBatchCount).Select(i => Layout.InlineBatch(i)).ToArray();
            long bytes = 0;
            await Parallel.ForEachAsync(batches, new ParallelOptions { MaxDegreeOfParallelism = Environment.ProcessorCount }, (batch, _) =>
            {
                Interlocked.Add(ref bytes, GetInlineBatch(batch.StartRow, batch.RowCount).Length);
                return ValueTask.CompletedTask;
            }).ConfigureAwait(false);
            return (batches.Length, bytes);
        }

        /// <summary>One inline TSparkArrowBatch payload: a RecordBatch message, LZ4-framed on its own when LZ4 is on.</summary>
        public byte[] GetInlineBatch(long start, long count) =>
            _inline.GetOrAdd((start, count), key =>
            {
                Interlocked.Increment(ref _inlineBuilds);
                byte[] message = DatasetFiles.BuildInlineBatch(Generator, new RowRange(0, key.Start, key.Count), Types);
                return Lz4 ? Lz4Framing.Encode(message, Framing.Frame) : message;
            });

        private async Task<StoredFile> BuildAsync(int index)
        {
            await s_buildSlots.WaitAsync().ConfigureAwait(false);
            try
            {
                Interlocked.Increment(ref _fileBuilds);
                IpcFile ipc = DatasetFiles.BuildIpcStream(Generator, Layout, index, Types);
                byte[] bytes = Lz4 ? DatasetFiles.Compress(ipc, Framing) : ipc.Bytes;
                var file = new StoredFile(Layout.File(index), bytes, ipc.Bytes.Length);
                _store?.OnFileBuilt(bytes.Length);
                return file;
            }
            finally
            {
                s_buildSlots.Release();
            }
        }
    }
}
