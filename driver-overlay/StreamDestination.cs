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
using System.IO;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// A stream from the scope's <see cref="RecyclableStreamPool"/> whose single contiguous buffer is the decode
    /// target. Growing takes a larger stream from the pool and disposes the old one, so the old buffer goes back
    /// at once.
    /// </summary>
    internal sealed class StreamDestination : Lz4Destination, IDisposable
    {
        private readonly RecyclableStreamPool _pool;
        private byte[] _buffer;

        public StreamDestination(RecyclableStreamPool pool, int capacity)
        {
            _pool = pool;
            Stream = pool.GetContiguousStream(capacity, out bool pooled);
            Pooled = pooled;
            _buffer = Stream.GetBuffer();
        }

        /// <summary>The stream holding the output; ownership passes to the caller of <see cref="Complete"/>.</summary>
        public MemoryStream Stream { get; private set; }

        /// <summary>False when the scope was released (or pooling is off) and the stream is a plain MemoryStream.</summary>
        public bool Pooled { get; private set; }

        public override byte[] Buffer => _buffer;

        /// <summary>Sets the decoded length, rewinds, and hands the stream over.</summary>
        public MemoryStream Complete(int length)
        {
            MemoryStream stream = Stream;
            if (Pooled)
            {
                // RecyclableMemoryStream.SetLength keeps the bytes already in its buffer.
                stream.SetLength(length);
                stream.Position = 0;
                _pool.PublishUsage();
                return stream;
            }

            // MemoryStream.SetLength would zero the bytes between its old and new length: wrap the buffer instead.
            stream.Dispose();
            return new MemoryStream(_buffer, 0, length, writable: false, publiclyVisible: true);
        }

        public void Dispose() => Stream.Dispose();

        protected override void Grow(int capacity, int preserved)
        {
            MemoryStream larger = _pool.GetContiguousStream(capacity, out bool pooled);
            byte[] largerBuffer = larger.GetBuffer();
            System.Buffer.BlockCopy(_buffer, 0, largerBuffer, 0, preserved);
            Stream.Dispose();
            Stream = larger;
            Pooled = pooled;
            _buffer = largerBuffer;
        }
    }
}
