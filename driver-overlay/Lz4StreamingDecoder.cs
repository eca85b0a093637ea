/*
* Licensed to the Apache Software Foundation (ASF) under one or more
* contributor license agreements.  See the NOTICE file distributed with
* this work for additional information regarding copyright ownership.
* The ASF licenses this file to You under the Apache License, Version 2.0
* (the "License"); you may not use this file except in compliance with
* the License.  You may obtain a copy of the License at
*
*    http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/

using System;
using System.Buffers.Binary;
using K4os.Compression.LZ4;
using K4os.Hash.xxHash;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// Decodes a downloaded LZ4 file (every concatenated and skippable frame, as <see cref="Lz4FrameDecoder"/> accepts)
    /// block by block, as its reader asks for bytes: a block whose largest possible output fits what the reader asked
    /// for is decoded straight into the reader's buffer, any other through one scratch block; nothing holds the whole
    /// decoded file.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Memory: the compressed file (given back to the pool once its last block is decoded), one scratch block of the
    /// frame's block maximum (4 MiB for Databricks' files; rented on first need) and, for linked blocks only, a copy of
    /// the last 64 KiB of output (their dictionary). The JDBC driver's floor since its PR #1509.
    /// </para>
    /// <para>
    /// Errors: a malformed or truncated file fails the read that reaches the bad block with
    /// <see cref="Lz4FormatException"/>, naming the input; bytes delivered before stay as they were, and every pooled
    /// array goes back at once. A block checksum is verified before its block is decoded, a frame's content checksum
    /// and content size when the frame's last block is decoded, before any byte of that block is delivered. Earlier
    /// blocks of a frame whose only protection is its content checksum are delivered before it can be checked: that is
    /// what decoding as the reader reads costs (docs/decisions.md).
    /// </para>
    /// <para>
    /// No byte of a pooled array's earlier owner ever shows, although K4os' block decoder accepts a match with offset 0
    /// (it copies bytes the block has not written): without a content checksum to refuse such output, the output range
    /// of a block is cleared before it is decoded into the reader's buffer, and the scratch block once, on first use;
    /// after that the scratch holds only this file's output.
    /// </para>
    /// <para>Not thread-safe: <see cref="Lz4DecodingStream"/> serialises reads and disposal.</para>
    /// </remarks>
    internal sealed class Lz4StreamingDecoder : IDisposable
    {
        private readonly Lz4BufferPool _pool;
        private readonly string? _inputName;
        private readonly MemoryBudget? _budget;
        private PooledBuffer? _input;
        private int _position;

        // The frame being decoded (between frames: false).
        private bool _inFrame;
        private Lz4FrameHeader _frame;
        private int _frameStart;
        private long _frameOutput;
        private XXH32.State _contentHash;

        // A stored (uncompressed) block being copied out.
        private int _storedOffset;
        private int _storedRemaining;

        // Decoded bytes waiting in the scratch block; its first _scratchOwned bytes hold nothing of an earlier owner.
        private PooledArray? _scratch;
        private int _scratchOwned;
        private int _pendingStart;
        private int _pendingEnd;

        // The last output of the frame (at most 64 KiB), the dictionary of its next linked block.
        private PooledArray? _window;
        private int _windowLength;

        private Exception? _failure;

        /// <param name="compressed">The downloaded file; the decoder owns it from now on.</param>
        /// <param name="pool">Where the scratch block and the window come from.</param>
        /// <param name="inputName">Names the file in error messages; null: unnamed.</param>
        /// <param name="budget">Charged with the scratch block and the window while they are held (decode working memory).</param>
        public Lz4StreamingDecoder(PooledBuffer compressed, Lz4BufferPool pool, string? inputName = null, MemoryBudget? budget = null)
        {
            _input = compressed ?? throw new ArgumentNullException(nameof(compressed));
            _pool = pool ?? throw new ArgumentNullException(nameof(pool));
            _inputName = inputName;
            _budget = budget;
            if (compressed.Length == 0)
            {
                _failure = Named(new Lz4FormatException("the input is empty; an LZ4 frame has at least 7 bytes", 0));
                Release();
            }
        }

        /// <summary>Bytes decoded so far (delivered or waiting in the scratch block).</summary>
        public long DecodedBytes { get; private set; }

        /// <summary>Of <see cref="DecodedBytes"/>, those decoded straight into the reader's buffer.</summary>
        public long DecodedInPlaceBytes { get; private set; }

        /// <summary>LZ4 frames started so far.</summary>
        public int Frames { get; private set; }

        /// <summary>True once a read found the file malformed or truncated.</summary>
        public bool Failed => _failure is Lz4FormatException;

        /// <summary>True once the compressed file went back to the pool (every block decoded, or an error, or disposal).</summary>
        public bool InputReleased => _input == null;

        /// <summary>
        /// Fills <paramref name="destination"/> with the next decoded bytes; fewer only at the end of the file, 0 after
        /// it. After an error every call throws it again.
        /// </summary>
        /// <exception cref="Lz4FormatException">The file is malformed or truncated where this read reached.</exception>
        /// <exception cref="ObjectDisposedException">The decoder was disposed.</exception>
        public int Read(Span<byte> destination)
        {
            if (_failure != null)
            {
                throw _failure is Lz4FormatException format ? format : new ObjectDisposedException(nameof(Lz4StreamingDecoder));
            }

            try
            {
                int written = 0;
                while (written < destination.Length && Deliver(destination, ref written))
                {
                }

                if (_input == null && _pendingEnd == _pendingStart)
                {
                    ReleaseWorkingMemory();
                }

                return written;
            }
            catch (Lz4FormatException ex)
            {
                _failure = Named(ex);
                Release();
                throw _failure;
            }
        }

        public void Dispose()
        {
            _failure ??= new ObjectDisposedException(nameof(Lz4StreamingDecoder));
            Release();
        }

        /// <summary>Moves some bytes into <paramref name="destination"/>; false at the end of the file.</summary>
        private bool Deliver(Span<byte> destination, ref int written)
        {
            if (_pendingEnd > _pendingStart)
            {
                int count = Math.Min(_pendingEnd - _pendingStart, destination.Length - written);
                _scratch!.Array.AsSpan(_pendingStart, count).CopyTo(destination.Slice(written));
                _pendingStart += count;
                written += count;
                return true;
            }

            if (_storedRemaining > 0)
            {
                int count = Math.Min(_storedRemaining, destination.Length - written);
                _input!.Span.Slice(_storedOffset, count).CopyTo(destination.Slice(written));
                _storedOffset += count;
                _storedRemaining -= count;
                written += count;
                if (_storedRemaining == 0)
                {
                    AfterBlock();
                }

                return true;
            }

            if (_input == null || !NextBlock(out int blockStart, out bool stored, out int size))
            {
                return false;
            }

            ReadOnlySpan<byte> input = _input.Span;
            int data = blockStart + 4;
            ReadOnlySpan<byte> block = input.Slice(data, size);
            if (_frame.BlockChecksum)
            {
                uint expected = BinaryPrimitives.ReadUInt32LittleEndian(input.Slice(data + size));
                uint actual = XXH32.DigestOf(block);
                if (expected != actual)
                {
                    throw new Lz4FormatException($"block checksum mismatch (expected 0x{expected:X8}, computed 0x{actual:X8})", blockStart);
                }
            }

            _position = data + size + (_frame.BlockChecksum ? 4 : 0);
            int maxOutput = (int)Math.Min(_frame.BlockMaxSize, _frame.ContentSize.HasValue ? _frame.ContentSize.Value - _frameOutput : long.MaxValue);
            if (stored)
            {
                if (size > maxOutput)
                {
                    throw new Lz4FormatException("the frame decodes to more bytes than its declared content size", blockStart);
                }

                Produced(block);
                _storedOffset = data;
                _storedRemaining = size;
                if (size == 0)
                {
                    AfterBlock();
                }

                return true;
            }

            Span<byte> rest = destination.Slice(written);
            if (rest.Length >= maxOutput)
            {
                // In place: the block cannot write past maxOutput, and the reader asked for at least that much.
                Span<byte> target = rest.Slice(0, maxOutput);
                if (!_frame.ContentChecksum)
                {
                    target.Clear();
                }

                int decoded = DecodeBlock(block, target, blockStart, maxOutput);
                Produced(target.Slice(0, decoded));
                DecodedInPlaceBytes += decoded;
                written += decoded;
            }
            else
            {
                Span<byte> target = Scratch(maxOutput);
                int decoded = DecodeBlock(block, target, blockStart, maxOutput);
                Produced(target.Slice(0, decoded));
                _pendingStart = 0;
                _pendingEnd = decoded;
            }

            AfterBlock();
            return true;
        }

        /// <summary>
        /// Finds the next data block: starts frames, skips skippable ones, ends frames at their end mark. False at the
        /// end of the input (which then goes back to the pool).
        /// </summary>
        private bool NextBlock(out int blockStart, out bool stored, out int size)
        {
            ReadOnlySpan<byte> input = _input!.Span;
            while (true)
            {
                if (!_inFrame)
                {
                    if (_position >= input.Length)
                    {
                        ReleaseInput();
                        blockStart = size = 0;
                        stored = false;
                        return false;
                    }

                    int start = _position;
                    if (Lz4FrameDecoder.NextFrame(input, ref _position, Frames, out _frame))
                    {
                        _inFrame = true;
                        _frameStart = start;
                        _frameOutput = 0;
                        _windowLength = 0;
                        XXH32.Reset(ref _contentHash);
                        Frames++;
                    }

                    continue;
                }

                int position = _position;
                if (Lz4FrameDecoder.NextBlock(input, ref position, _frame, out blockStart, out stored, out size))
                {
                    return true;
                }

                _position = position;
                EndFrame(input);
            }
        }

        /// <summary>
        /// After a block: if its frame ends here, checks the frame (before any byte of its last block is delivered), and
        /// if the input ends after it (and any skippable frames), gives the compressed file back.
        /// </summary>
        private void AfterBlock()
        {
            ReadOnlySpan<byte> input = _input!.Span;
            if (input.Length - _position >= 4 && BinaryPrimitives.ReadUInt32LittleEndian(input.Slice(_position)) == 0)
            {
                _position += 4;
                EndFrame(input);
            }

            while (!_inFrame && input.Length - _position >= 8
                && (BinaryPrimitives.ReadUInt32LittleEndian(input.Slice(_position)) & Lz4FrameDecoder.SkippableMagicMask) == Lz4FrameDecoder.SkippableMagic)
            {
                Lz4FrameDecoder.NextFrame(input, ref _position, Frames, out _);
            }

            if (!_inFrame && _position == input.Length)
            {
                ReleaseInput();
            }
        }

        /// <summary>At a frame's end mark (already read): its content checksum and content size.</summary>
        private void EndFrame(ReadOnlySpan<byte> input)
        {
            if (_frame.ContentChecksum)
            {
                Lz4FrameDecoder.SkipContentChecksum(input, ref _position, _frame);
                uint expected = BinaryPrimitives.ReadUInt32LittleEndian(input.Slice(_position - 4));
                uint actual = XXH32.Digest(in _contentHash);
                if (expected != actual)
                {
                    throw new Lz4FormatException($"content checksum mismatch (expected 0x{expected:X8}, computed 0x{actual:X8})", _position - 4);
                }
            }

            if (_frame.ContentSize.HasValue && _frameOutput != _frame.ContentSize.Value)
            {
                throw new Lz4FormatException(
                    $"the frame declares {_frame.DeclaredContentSize} bytes of content but decodes to {_frameOutput}",
                    _frameStart);
            }

            _inFrame = false;
        }

        private int DecodeBlock(ReadOnlySpan<byte> block, Span<byte> target, int blockStart, int maxOutput)
        {
            int decoded = !_frame.IndependentBlocks && _windowLength > 0
                ? LZ4Codec.Decode(block, target, _window!.Array.AsSpan(0, _windowLength))
                : LZ4Codec.Decode(block, target);
            if (decoded < 0)
            {
                throw Lz4FrameDecoder.BlockFailure(block, maxOutput, target.Length, target.Length, blockStart);
            }

            return decoded;
        }

        /// <summary>Accounts for a block's output: the frame's size, its content checksum, the next linked block's dictionary.</summary>
        private void Produced(ReadOnlySpan<byte> output)
        {
            DecodedBytes += output.Length;
            _frameOutput += output.Length;
            if (_frame.ContentChecksum)
            {
                XXH32.Update(ref _contentHash, output);
            }

            if (!_frame.IndependentBlocks)
            {
                int window = Lz4FrameDecoder.WindowSize;
                _window ??= RentWorkingMemory(window);
                byte[] kept = _window.Array;
                if (output.Length >= window)
                {
                    output.Slice(output.Length - window).CopyTo(kept);
                    _windowLength = window;
                }
                else
                {
                    int keep = Math.Min(_windowLength, window - output.Length);
                    Buffer.BlockCopy(kept, _windowLength - keep, kept, 0, keep);
                    output.CopyTo(kept.AsSpan(keep));
                    _windowLength = keep + output.Length;
                }
            }
        }

        /// <summary>The scratch block's first <paramref name="length"/> bytes, holding nothing of an earlier owner.</summary>
        private Span<byte> Scratch(int length)
        {
            if (_scratch == null || _scratch.Length < length)
            {
                ReturnWorkingMemory(ref _scratch);
                _scratch = RentWorkingMemory(Math.Max(length, _frame.BlockMaxSize));
                _scratchOwned = 0;
            }

            Span<byte> target = _scratch.Array.AsSpan(0, length);
            if (length > _scratchOwned)
            {
                target.Slice(_scratchOwned).Clear();
                _scratchOwned = length;
            }

            return target;
        }

        private Exception Named(Lz4FormatException error) => _inputName == null || error.InputName != null ? error : error.In(_inputName);

        private void ReleaseInput()
        {
            _input?.Dispose();
            _input = null;
        }

        private void ReleaseWorkingMemory()
        {
            ReturnWorkingMemory(ref _scratch);
            ReturnWorkingMemory(ref _window);
            _pendingStart = _pendingEnd = 0;
        }

        private PooledArray RentWorkingMemory(int length)
        {
            PooledArray rental = _pool.Rent(length);
            _budget?.Charge(rental.Length);
            return rental;
        }

        private void ReturnWorkingMemory(ref PooledArray? rental)
        {
            if (rental != null)
            {
                _budget?.Uncharge(rental.Length);
                rental.Dispose();
                rental = null;
            }
        }

        private void Release()
        {
            ReleaseInput();
            ReleaseWorkingMemory();
            _storedRemaining = 0;
        }
    }
}
