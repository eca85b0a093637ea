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
using System.Runtime.ExceptionServices;
using K4os.Compression.LZ4;
using K4os.Hash.xxHash;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// Decodes a downloaded LZ4 file (every concatenated and skippable frame, as <see cref="Lz4FrameDecoder"/> accepts)
    /// block by block, as its reader asks for bytes: a block whose largest possible output fits what the reader asked
    /// for is decoded straight into the reader's buffer, any other through a block buffer; nothing holds the whole
    /// decoded file. The next block may also be decoded ahead of the reader (<see cref="DecodeAhead"/>), on another
    /// thread, while the reader works on what it has.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Memory: the compressed file (given back to the pool once its last block is decoded), at most two block buffers
    /// of the frame's block maximum (4 MiB for Databricks' files; rented on first need), the one being delivered and the
    /// one decoded ahead (only one when nothing is decoded ahead), and, for linked blocks only, a copy of the last 64 KiB
    /// of output (their dictionary). All of it is charged to the budget as decode working memory while held. The JDBC
    /// driver's floor since its PR #1509, plus the block decoded ahead.
    /// </para>
    /// <para>
    /// Errors: a malformed or truncated file fails the read that reaches the bad block with
    /// <see cref="Lz4FormatException"/>, naming the input; bytes delivered before stay as they were, and every pooled
    /// array goes back at once. A block decoded ahead that fails keeps its error for that read: the reader gets every
    /// byte before it first. A block checksum is verified before its block is decoded, a frame's content checksum
    /// and content size when the frame's last block is decoded, before any byte of that block is delivered. Earlier
    /// blocks of a frame whose only protection is its content checksum are delivered before it can be checked: that is
    /// what decoding as the reader reads costs (docs/decisions.md).
    /// </para>
    /// <para>
    /// No byte of a pooled array's earlier owner ever shows, although K4os' block decoder accepts a match with offset 0
    /// (it copies bytes the block has not written): without a content checksum to refuse such output, the output range
    /// of a block is cleared before it is decoded into the reader's buffer, and each block buffer once, on first use;
    /// after that a block buffer holds only this file's output.
    /// </para>
    /// <para>
    /// Not thread-safe, with one exception: while <see cref="DecodeAhead"/> runs, <see cref="ReadDecoded"/> may copy out
    /// the block being delivered (the two touch different state). <see cref="Lz4DecodingStream"/> serialises everything
    /// else: reads, the decode ahead and disposal.
    /// </para>
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

        // The block being delivered: decoded bytes waiting in a block buffer, whose first _deliveringOwned bytes hold
        // nothing of an earlier owner. Only these fields (and _delivered) are touched by ReadDecoded.
        private PooledArray? _delivering;
        private int _deliveringOwned;
        private int _pendingStart;
        private int _pendingEnd;
        private long _delivered;

        // The block decoded ahead and not yet delivered (_aheadLength bytes; -1: none), or the error that stopped it.
        // Once delivered, its buffer becomes the one being delivered, and the other one takes the next block ahead.
        private PooledArray? _ahead;
        private int _aheadOwned;
        private int _aheadLength = -1;
        private ExceptionDispatchInfo? _aheadFailure;

        // The last output of the frame (at most 64 KiB), the dictionary of its next linked block.
        private PooledArray? _window;
        private int _windowLength;

        private long _workingMemory;
        private Exception? _failure;

        /// <param name="compressed">The downloaded file; the decoder owns it from now on.</param>
        /// <param name="pool">Where the block buffers and the window come from.</param>
        /// <param name="inputName">Names the file in error messages; null: unnamed.</param>
        /// <param name="budget">Charged with the block buffers and the window while they are held (decode working memory).</param>
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

        /// <summary>Bytes decoded so far (delivered, waiting to be delivered, or decoded ahead).</summary>
        public long DecodedBytes { get; private set; }

        /// <summary>Of <see cref="DecodedBytes"/>, those decoded straight into the reader's buffer.</summary>
        public long DecodedInPlaceBytes { get; private set; }

        /// <summary>Bytes the reader has been given so far.</summary>
        public long DeliveredBytes => _delivered;

        /// <summary>LZ4 frames started so far.</summary>
        public int Frames { get; private set; }

        /// <summary>For tests and diagnostics: the most decode working memory (block buffers and window) held at once.</summary>
        public long PeakWorkingMemoryBytes { get; private set; }

        /// <summary>True once a read found the file malformed or truncated.</summary>
        public bool Failed => _failure is Lz4FormatException;

        /// <summary>True once the compressed file went back to the pool (every block decoded, or an error, or disposal).</summary>
        public bool InputReleased => _input == null;

        /// <summary>
        /// True when <see cref="DecodeAhead"/> has something to do: blocks remain, none is decoded ahead yet, no error
        /// was met, and no stored block is being copied out of the compressed file.
        /// </summary>
        public bool CanDecodeAhead => _failure == null && _input != null && _storedRemaining == 0 && _aheadLength < 0 && _aheadFailure == null;

        /// <summary>
        /// Fills <paramref name="destination"/> with the next decoded bytes; fewer only at the end of the file, 0 after
        /// it. After an error every call throws it again.
        /// </summary>
        /// <exception cref="Lz4FormatException">The file is malformed or truncated where this read reached.</exception>
        /// <exception cref="ObjectDisposedException">The decoder was disposed.</exception>
        public int Read(Span<byte> destination)
        {
            ThrowIfFailed();
            try
            {
                int written = 0;
                while (written < destination.Length && Deliver(destination, ref written))
                {
                }

                _delivered += written;
                ReleaseWhenDone();
                return written;
            }
            catch (Lz4FormatException ex)
            {
                _failure = Named(ex);
                Release();
                throw _failure;
            }
        }

        /// <summary>
        /// Copies what is already decoded for the reader (the rest of the block being delivered) into
        /// <paramref name="destination"/>, decoding nothing: the one call that may run while <see cref="DecodeAhead"/>
        /// runs on another thread.
        /// </summary>
        /// <exception cref="Lz4FormatException">A read already failed.</exception>
        /// <exception cref="ObjectDisposedException">The decoder was disposed.</exception>
        public int ReadDecoded(Span<byte> destination)
        {
            ThrowIfFailed();
            int count = CopyPending(destination);
            _delivered += count;
            return count;
        }

        /// <summary>
        /// Decodes the next block into the block buffer that is not being delivered, for a later read to deliver (when
        /// <see cref="CanDecodeAhead"/>). Throws nothing: an error is kept for the read that reaches the block, and the
        /// compressed file and working memory that no later block needs go back at once.
        /// </summary>
        public void DecodeAhead()
        {
            try
            {
                if (!NextBlock(out int blockStart, out bool stored, out int size))
                {
                    return; // only skippable frames or end marks were left: the compressed file went back
                }

                ReadOnlySpan<byte> block = CheckedBlock(blockStart, stored, size, out int maxOutput);
                Span<byte> target = BlockBuffer(ref _ahead, ref _aheadOwned, maxOutput);
                int decoded;
                if (stored)
                {
                    block.CopyTo(target);
                    decoded = size;
                }
                else
                {
                    decoded = DecodeBlock(block, target, blockStart, maxOutput);
                }

                Produced(target.Slice(0, decoded));
                AfterBlock();
                _aheadLength = decoded;
            }
            catch (Exception ex)
            {
                // Kept whatever it is: the read that reaches this block must not continue past it as if it were decoded.
                _aheadFailure = ExceptionDispatchInfo.Capture(ex is Lz4FormatException format ? Named(format) : ex);
                ReleaseInput();
                ReturnWorkingMemory(ref _ahead);
                ReturnWorkingMemory(ref _window);
            }
        }

        public void Dispose()
        {
            _failure ??= new ObjectDisposedException(nameof(Lz4StreamingDecoder));
            Release();
        }

        private void ThrowIfFailed()
        {
            if (_failure != null)
            {
                throw _failure is Lz4FormatException format ? format : new ObjectDisposedException(nameof(Lz4StreamingDecoder));
            }
        }

        /// <summary>Moves some bytes into <paramref name="destination"/>; false at the end of the file.</summary>
        private bool Deliver(Span<byte> destination, ref int written)
        {
            if (_pendingEnd > _pendingStart)
            {
                written += CopyPending(destination.Slice(written));
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

            if (_aheadLength >= 0)
            {
                // The block decoded ahead is delivered next; the delivered block's buffer takes the block after it.
                (_delivering, _ahead) = (_ahead, _delivering);
                (_deliveringOwned, _aheadOwned) = (_aheadOwned, _deliveringOwned);
                _pendingStart = 0;
                _pendingEnd = _aheadLength;
                _aheadLength = -1;
                return true;
            }

            _aheadFailure?.Throw();
            if (_input == null || !NextBlock(out int blockStart, out bool stored, out int size))
            {
                return false;
            }

            ReadOnlySpan<byte> block = CheckedBlock(blockStart, stored, size, out int maxOutput);
            if (stored)
            {
                Produced(block);
                _storedOffset = blockStart + 4;
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
                Span<byte> target = BlockBuffer(ref _delivering, ref _deliveringOwned, maxOutput);
                int decoded = DecodeBlock(block, target, blockStart, maxOutput);
                Produced(target.Slice(0, decoded));
                _pendingStart = 0;
                _pendingEnd = decoded;
            }

            AfterBlock();
            return true;
        }

        private int CopyPending(Span<byte> destination)
        {
            int count = Math.Min(_pendingEnd - _pendingStart, destination.Length);
            if (count > 0)
            {
                _delivering!.Array.AsSpan(_pendingStart, count).CopyTo(destination);
                _pendingStart += count;
            }

            return count;
        }

        /// <summary>The block's data, checked (<see cref="Lz4FrameDecoder.CheckedBlock"/>); moves past it.</summary>
        private ReadOnlySpan<byte> CheckedBlock(int blockStart, bool stored, int size, out int maxOutput)
        {
            ReadOnlySpan<byte> block = Lz4FrameDecoder.CheckedBlock(_input!.Span, _frame, _frameOutput, blockStart, stored, size, out maxOutput);
            _position = blockStart + 4 + size + (_frame.BlockChecksum ? 4 : 0);
            return block;
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
            uint contentHash = _frame.ContentChecksum ? XXH32.Digest(in _contentHash) : 0;
            Lz4FrameDecoder.EndFrame(input, ref _position, _frame, _frameStart, _frameOutput, contentHash);
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

        /// <summary>
        /// The first <paramref name="length"/> bytes of a block buffer (rented on first need, at least the frame's block
        /// maximum), holding nothing of an earlier owner: each buffer is cleared once, as far as this file uses it.
        /// </summary>
        private Span<byte> BlockBuffer(ref PooledArray? buffer, ref int owned, int length)
        {
            if (buffer == null || buffer.Length < length)
            {
                ReturnWorkingMemory(ref buffer);
                buffer = RentWorkingMemory(Math.Max(length, _frame.BlockMaxSize));
                owned = 0;
            }

            Span<byte> target = buffer.Array.AsSpan(0, length);
            if (length > owned)
            {
                target.Slice(owned).Clear();
                owned = length;
            }

            return target;
        }

        private Exception Named(Lz4FormatException error) => _inputName == null || error.InputName != null ? error : error.In(_inputName);

        /// <summary>Once every block is decoded: the working memory goes back, the block being delivered once it is read out.</summary>
        private void ReleaseWhenDone()
        {
            if (_input != null || _aheadLength >= 0)
            {
                return;
            }

            ReturnWorkingMemory(ref _ahead);
            ReturnWorkingMemory(ref _window);
            if (_pendingEnd == _pendingStart)
            {
                ReturnWorkingMemory(ref _delivering);
                _pendingStart = _pendingEnd = 0;
            }
        }

        private void ReleaseInput()
        {
            _input?.Dispose();
            _input = null;
        }

        private PooledArray RentWorkingMemory(int length)
        {
            PooledArray rental = _pool.Rent(length);
            _budget?.Charge(rental.Length);
            _workingMemory += rental.Length;
            PeakWorkingMemoryBytes = Math.Max(PeakWorkingMemoryBytes, _workingMemory);
            return rental;
        }

        private void ReturnWorkingMemory(ref PooledArray? rental)
        {
            if (rental != null)
            {
                _workingMemory -= rental.Length;
                _budget?.Uncharge(rental.Length);
                rental.Dispose();
                rental = null;
            }
        }

        private void Release()
        {
            ReleaseInput();
            ReturnWorkingMemory(ref _delivering);
            ReturnWorkingMemory(ref _ahead);
            ReturnWorkingMemory(ref _window);
            _pendingStart = _pendingEnd = 0;
            _aheadLength = -1;
            _storedRemaining = 0;
        }
    }
}
