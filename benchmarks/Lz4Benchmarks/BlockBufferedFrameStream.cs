using System;
using System.Buffers.Binary;
using System.IO;
using Apache.Arrow.Adbc.Drivers.Databricks;

namespace Lz4Benchmarks
{
    /// <summary>
    /// The shape of K4os' LZ4 decoder stream, which the upstream driver uses at tags 21-24 and which the mirror
    /// does not serve: each file gets a compressed-block buffer and a decoded-block buffer of the frame's block
    /// size; every block is decoded into the latter and <see cref="Read"/> drains it, so every byte is copied once
    /// more on its way out, and (as K4os 1.3.8 does) every decoded block is hashed whether or not the frame has a
    /// content checksum. It uses the overlay's block codec, so the comparison isolates the architecture (buffers,
    /// copies, allocations), not two codecs.
    /// </summary>
    internal sealed class BlockBufferedFrameStream : Stream
    {
        private const int LinkedWindow = 64 * 1024;

        private readonly byte[] _input;
        private readonly Func<int, byte[]> _allocate;
        private readonly Action<byte[]> _release;
        private int _position;
        private byte[]? _compressed;
        private byte[]? _decoded;
        private int _readStart;
        private int _readEnd;
        private Lz4FrameHeader _header;
        private bool _inFrame;
        private uint _hash;

        public BlockBufferedFrameStream(byte[] input, Func<int, byte[]> allocate, Action<byte[]> release)
        {
            _input = input;
            _allocate = allocate;
            _release = release;
        }

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public override int Read(byte[] buffer, int offset, int count)
        {
            while (_readStart == _readEnd)
            {
                if (!NextBlock())
                {
                    return 0;
                }
            }

            int n = Math.Min(count, _readEnd - _readStart);
            Buffer.BlockCopy(_decoded!, _readStart, buffer, offset, n);
            _readStart += n;
            return n;
        }

        protected override void Dispose(bool disposing)
        {
            ReleaseBuffers();
            base.Dispose(disposing);
        }

        private bool NextBlock()
        {
            if (!_inFrame)
            {
                if (_position >= _input.Length)
                {
                    return false;
                }

                _header = Lz4FrameHeader.Read(_input, _position);
                _position += _header.Length;
                ReleaseBuffers();
                _compressed = _allocate(_header.BlockMaxSize);
                _decoded = _allocate(_header.BlockMaxSize + (_header.IndependentBlocks ? 0 : LinkedWindow));
                _readStart = _readEnd = 0;
                _inFrame = true;
            }

            uint raw = BinaryPrimitives.ReadUInt32LittleEndian(_input.AsSpan(_position));
            _position += 4;
            if (raw == 0)
            {
                _position += _header.ContentChecksum ? 4 : 0;
                _inFrame = false;
                return true;
            }

            int size = (int)(raw & 0x7FFFFFFF);
            _input.AsSpan(_position, size).CopyTo(_compressed);
            _position += size + (_header.BlockChecksum ? 4 : 0);

            // Linked blocks keep the last 64 KB of output in front of the next block as its dictionary.
            int start = 0;
            if (!_header.IndependentBlocks && _readEnd > 0)
            {
                int keep = Math.Min(LinkedWindow, _readEnd);
                Buffer.BlockCopy(_decoded!, _readEnd - keep, _decoded!, 0, keep);
                start = keep;
            }

            int decoded;
            if ((raw & 0x80000000) != 0)
            {
                _compressed.AsSpan(0, size).CopyTo(_decoded.AsSpan(start));
                decoded = size;
            }
            else
            {
                decoded = Lz4BlockDecoder.Decode(_compressed.AsSpan(0, size), _decoded, start, 0, out _, out _);
                if (decoded < 0)
                {
                    throw new InvalidDataException("corrupt block");
                }
            }

            _hash ^= Xxh32.Hash(_decoded.AsSpan(start, decoded));
            _readStart = start;
            _readEnd = start + decoded;
            return true;
        }

        private void ReleaseBuffers()
        {
            if (_compressed != null)
            {
                _release(_compressed);
                _compressed = null;
            }

            if (_decoded != null)
            {
                _release(_decoded);
                _decoded = null;
            }
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
