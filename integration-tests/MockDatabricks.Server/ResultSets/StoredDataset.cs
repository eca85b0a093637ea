using System;
using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Arrow;
using MockDatabricks.Protocol.Data;
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
        private readonly DatasetStore _store;
        private readonly object _lock = new object();

        public StoredDataset(string key, DatasetSpec spec, bool lz4, FileFraming framing, DatasetStore store)
        {
            Key = key;
            Spec = spec;
            Lz4 = lz4;
            Framing = framing;
            _store = store;
            Layout = new DatasetLayout(spec);
            Generator = new DatasetGenerator(spec);
            SchemaBytes = ArrowIpcWriter.SchemaStream(Generator.Schema);
            _files = new Task<StoredFile>?[Layout.FileCount];
        }

        public string Key { get; }

        public DatasetSpec Spec { get; }

        public bool Lz4 { get; }

        public FileFraming Framing { get; }

        public DatasetLayout Layout { get; }

        public DatasetGenerator Generator { get; }

        public ArrowSchema Schema => Generator.Schema;

        /// <summary>Schema message + EOS: the arrowSchema metadata bytes.</summary>
        public byte[] SchemaBytes { get; }

        public int BuiltFileCount
        {
            get
            {
                lock (_lock)
                {
                    int count = 0;
                    foreach (Task<StoredFile>? file in _files)
                    {
                        count += file is { IsCompletedSuccessfully: true } ? 1 : 0;
                    }

                    return count;
                }
            }
        }

        public long CachedBytes
        {
            get
            {
                lock (_lock)
                {
                    long total = 0;
                    foreach (Task<StoredFile>? file in _files)
                    {
                        total += file is { IsCompletedSuccessfully: true } ? file.Result.Bytes.Length : 0;
                    }

                    return total;
                }
            }
        }

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

        /// <summary>One inline TSparkArrowBatch payload: a RecordBatch message, LZ4-framed on its own when LZ4 is on.</summary>
        public byte[] GetInlineBatch(long start, long count) =>
            _inline.GetOrAdd((start, count), key =>
            {
                byte[] message = DatasetFiles.BuildInlineBatch(Generator, new RowRange(0, key.Start, key.Count));
                return Lz4 ? Lz4FrameEncoder.Encode(message, Framing.Frame) : message;
            });

        private async Task<StoredFile> BuildAsync(int index)
        {
            await s_buildSlots.WaitAsync().ConfigureAwait(false);
            try
            {
                IpcFile ipc = DatasetFiles.BuildIpcStream(Generator, Layout, index);
                byte[] bytes = Lz4 ? DatasetFiles.Compress(ipc, Framing) : ipc.Bytes;
                var file = new StoredFile(Layout.File(index), bytes, ipc.Bytes.Length);
                _store.OnFileBuilt(bytes.Length);
                return file;
            }
            finally
            {
                s_buildSlots.Release();
            }
        }
    }
}
