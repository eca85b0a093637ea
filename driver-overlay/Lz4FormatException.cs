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
            : this(problem, offset, null)
        {
        }

        private Lz4FormatException(string problem, long offset, string? inputName)
            : base($"Invalid LZ4 data{(inputName == null ? "" : " in " + inputName)} at byte {offset}: {problem}")
        {
            Problem = problem;
            Offset = offset;
            InputName = inputName;
        }

        public long Offset { get; }

        /// <summary>What is wrong, without where.</summary>
        public string Problem { get; }

        /// <summary>Which input (a CloudFetch file: "file 3 of the result"), when the caller said; null otherwise.</summary>
        public string? InputName { get; }

        /// <summary>The same error, naming the input it was found in.</summary>
        public Lz4FormatException In(string inputName) => new Lz4FormatException(Problem, Offset, inputName);
    }
}
