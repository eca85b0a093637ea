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

using Microsoft.Coyote.Specifications;

namespace DriverOverlay.ConcurrencyTests
{
    /// <summary>
    /// What must hold for a CloudFetch file decoded as it is read with decode-ahead on (<see cref="Lz4DecodingStream"/>
    /// over <see cref="Lz4StreamingDecoder"/>, its next block decoded by a worker while the reader works) under every
    /// interleaving of the reader's reads, the worker and a dispose from another thread, stated once here and checked
    /// by every decode-ahead schedule test:
    /// <list type="number">
    /// <item>the reader gets the file's bytes in order: each read returns the original's next bytes, none lost, repeated
    /// or reordered, whichever of the reader and the worker decoded them;</item>
    /// <item>a corrupt block fails the read that reaches it, with <see cref="Lz4FormatException"/> naming the file: every
    /// read that ends before the block's output succeeds, and every read after the failure throws the same error;</item>
    /// <item>at most two blocks: the decoder never holds more than two block buffers (the one being delivered and the
    /// one decoded ahead), and the budget never holds more decode working memory than that;</item>
    /// <item>everything goes back: once the file is read to its end, once a read failed, and once the stream is
    /// disposed, nothing of it is in use in the pool or charged to the budget;</item>
    /// <item>a dispose from another thread is safe: a read under way returns the file's bytes or throws
    /// <see cref="ObjectDisposedException"/>, nothing is decoded after Dispose returned, and no pooled array is written
    /// after it went back (the bytes its next renter wrote stay as written);</item>
    /// <item>every wait ends (a reader waiting for the worker, a dispose waiting for a block being decoded), and the
    /// worker ends once the stream is read to its end, failed or disposed (a hang or a deadlock is Coyote's to find).</item>
    /// </list>
    /// </summary>
    internal static class DecodeAheadInvariants
    {
        /// <summary>Invariant 1: <paramref name="read"/> bytes of <paramref name="buffer"/> are the original's at <paramref name="offset"/>.</summary>
        public static void NextBytes(byte[] original, long offset, byte[] buffer, int read)
        {
            Specification.Assert(offset + read <= original.Length, "read past the end: {0} bytes at {1} of {2}", read, offset, original.Length);
            Specification.Assert(original.AsSpan((int)offset, read).SequenceEqual(buffer.AsSpan(0, read)), "{0} bytes at {1} are not the original's", read, offset);
        }

        /// <summary>Invariant 3, at any moment: working memory within two blocks of <paramref name="blockBuffer"/> bytes.</summary>
        public static void WithinTwoBlocks(Lz4StreamingDecoder decoder, MemoryBudget budget, long blockBuffer)
        {
            Specification.Assert(decoder.PeakWorkingMemoryBytes <= 2 * blockBuffer, "the decoder held {0} bytes of working memory, over two blocks", decoder.PeakWorkingMemoryBytes);
            Specification.Assert(budget.InUse <= 2 * blockBuffer, "{0} bytes charged to the budget, over two blocks", budget.InUse);
            Specification.Assert(budget.InUse >= 0, "the budget's in use went negative: {0}", budget.InUse);
        }

        /// <summary>Invariant 4: nothing of the stream in use or charged.</summary>
        public static void AllGivenBack(Lz4BufferPool pool, MemoryBudget budget, string when)
        {
            Specification.Assert(pool.InUseBytes == 0, "{0}: {1} bytes still rented from the pool", when, pool.InUseBytes);
            Specification.Assert(budget.InUse == 0, "{0}: {1} bytes still charged to the budget", when, budget.InUse);
        }

        /// <summary>Invariant 2: the failure of the read that reached the corrupt block, naming the file.</summary>
        public static void FailsNaming(Lz4FormatException error, string inputName, long delivered, long goodBytes)
        {
            Specification.Assert(error.InputName == inputName, "the error names {0}, not {1}", error.InputName, inputName);
            Specification.Assert(delivered <= goodBytes, "{0} bytes delivered, past the {1} before the corrupt block", delivered, goodBytes);
        }

        /// <summary>
        /// Invariant 5, the next renter's side: rents arrays of the stream's sizes (the pool hands back what the stream
        /// returned) and fills them; <see cref="UntouchedBy"/> checks them after everything of the stream has ended.
        /// </summary>
        public static List<PooledArray> NextRenter(Lz4BufferPool pool, IEnumerable<int> lengths, byte mark)
        {
            List<PooledArray> rented = new List<PooledArray>();
            foreach (int length in lengths)
            {
                PooledArray array = pool.Rent(length);
                array.Array.AsSpan().Fill(mark);
                rented.Add(array);
            }

            return rented;
        }

        /// <summary>Invariant 5: the next renter's arrays hold only what it wrote; gives them back.</summary>
        public static void UntouchedBy(List<PooledArray> rented, byte mark, string what)
        {
            foreach (PooledArray array in rented)
            {
                Specification.Assert(array.Array.AsSpan().IndexOfAnyExcept(mark) < 0, "{0} wrote into an array after it went back to the pool", what);
                array.Dispose();
            }
        }
    }
}
