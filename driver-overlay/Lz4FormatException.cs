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

using System.IO;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// Malformed or truncated LZ4 input. The message says what is wrong and where; <see cref="Offset"/> is the
    /// byte offset in the compressed input at which the problem was found.
    /// </summary>
    /// <remarks>
    /// An <see cref="IOException"/> because it is what reading a corrupt stream raises elsewhere in .NET
    /// (InvalidDataException is sealed), and so the overlay needs no dependency on Apache.Arrow.Adbc.
    /// </remarks>
    internal sealed class Lz4FormatException : IOException
    {
        public Lz4FormatException(string problem, long offset)
            : base($"Invalid LZ4 data at byte {offset}: {problem}")
        {
            Offset = offset;
        }

        public long Offset { get; }
    }
}
