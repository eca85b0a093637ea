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

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// One contiguous output buffer that the frame decoder writes into and asks to grow. Contiguity is what lets
    /// linked blocks use earlier output as their dictionary without a side copy.
    /// </summary>
    internal abstract class Lz4Destination
    {
        /// <summary>The largest array the runtime allows (Array.MaxLength, which netstandard2.0 lacks).</summary>
        public const int MaxLength = 0x7FFFFFC7;

        /// <summary>The current buffer; it may be longer than the decoded data.</summary>
        public abstract byte[] Buffer { get; }

        /// <summary>How many times the buffer had to be replaced by a larger one (each time the data was copied).</summary>
        public int Regrowths { get; protected set; }

        /// <summary>
        /// Makes <see cref="Buffer"/> at least <paramref name="required"/> bytes long, keeping its first
        /// <paramref name="preserved"/> bytes.
        /// </summary>
        public void EnsureCapacity(int required, int preserved)
        {
            if (required <= Buffer.Length)
            {
                return;
            }

            // Doubling keeps the number of copies logarithmic when the final size is unknown.
            long doubled = Math.Max((long)required, 2L * Buffer.Length);
            Grow((int)Math.Min(doubled, MaxLength), preserved);
            Regrowths++;
        }

        /// <summary>Replaces the buffer with one of at least <paramref name="capacity"/> bytes, keeping the first <paramref name="preserved"/>.</summary>
        protected abstract void Grow(int capacity, int preserved);
    }
}
