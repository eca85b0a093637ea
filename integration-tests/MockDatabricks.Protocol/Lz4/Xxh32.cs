using System;
using System.Buffers.Binary;
using System.Numerics;

namespace MockDatabricks.Protocol.Lz4
{
    /// <summary>
    /// XXH32 (the hash the LZ4 frame format uses for header, block and content checksums). One-shot and
    /// streaming forms; System.IO.Hashing is not served by the NuGet mirror.
    /// </summary>
    public sealed class Xxh32
    {
        private const uint Prime1 = 2654435761U;
        private const uint Prime2 = 2246822519U;
        private const uint Prime3 = 3266489917U;
        private const uint Prime4 = 668265263U;
        private const uint Prime5 = 374761393U;

        private readonly uint _seed;
        private readonly byte[] _pending = new byte[16];
        private uint _v1;
        private uint _v2;
        private uint _v3;
        private uint _v4;
        private int _pendingLength;
        private long _totalLength;

        public Xxh32(uint seed = 0)
        {
            _seed = seed;
            Reset();
        }

        public static uint Hash(ReadOnlySpan<byte> data, uint seed = 0)
        {
            var hasher = new Xxh32(seed);
            hasher.Append(data);
            return hasher.GetCurrentHash();
        }

        public void Reset()
        {
            _v1 = unchecked(_seed + Prime1 + Prime2);
            _v2 = unchecked(_seed + Prime2);
            _v3 = _seed;
            _v4 = unchecked(_seed - Prime1);
            _pendingLength = 0;
            _totalLength = 0;
        }

        public void Append(ReadOnlySpan<byte> data)
        {
            _totalLength += data.Length;
            if (_pendingLength > 0)
            {
                int take = Math.Min(16 - _pendingLength, data.Length);
                data.Slice(0, take).CopyTo(_pending.AsSpan(_pendingLength));
                _pendingLength += take;
                data = data.Slice(take);
                if (_pendingLength < 16)
                {
                    return;
                }

                ConsumeStripe(_pending);
                _pendingLength = 0;
            }

            while (data.Length >= 16)
            {
                ConsumeStripe(data);
                data = data.Slice(16);
            }

            data.CopyTo(_pending);
            _pendingLength = data.Length;
        }

        public uint GetCurrentHash()
        {
            uint hash = _totalLength >= 16
                ? BitOperations.RotateLeft(_v1, 1) + BitOperations.RotateLeft(_v2, 7) + BitOperations.RotateLeft(_v3, 12) + BitOperations.RotateLeft(_v4, 18)
                : unchecked(_seed + Prime5);
            hash = unchecked(hash + (uint)_totalLength);

            ReadOnlySpan<byte> rest = _pending.AsSpan(0, _pendingLength);
            while (rest.Length >= 4)
            {
                hash = unchecked(BitOperations.RotateLeft(hash + (BinaryPrimitives.ReadUInt32LittleEndian(rest) * Prime3), 17) * Prime4);
                rest = rest.Slice(4);
            }

            foreach (byte b in rest)
            {
                hash = unchecked(BitOperations.RotateLeft(hash + (b * Prime5), 11) * Prime1);
            }

            hash ^= hash >> 15;
            hash = unchecked(hash * Prime2);
            hash ^= hash >> 13;
            hash = unchecked(hash * Prime3);
            hash ^= hash >> 16;
            return hash;
        }

        private void ConsumeStripe(ReadOnlySpan<byte> stripe)
        {
            _v1 = Round(_v1, BinaryPrimitives.ReadUInt32LittleEndian(stripe));
            _v2 = Round(_v2, BinaryPrimitives.ReadUInt32LittleEndian(stripe.Slice(4)));
            _v3 = Round(_v3, BinaryPrimitives.ReadUInt32LittleEndian(stripe.Slice(8)));
            _v4 = Round(_v4, BinaryPrimitives.ReadUInt32LittleEndian(stripe.Slice(12)));
        }

        private static uint Round(uint accumulator, uint input) =>
            unchecked(BitOperations.RotateLeft(accumulator + (input * Prime2), 13) * Prime1);
    }
}
