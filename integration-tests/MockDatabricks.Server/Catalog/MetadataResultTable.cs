using System;
using System.Collections.Generic;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Types;

namespace MockDatabricks.Server.Catalog
{
    /// <summary>Builds the small result of a metadata statement: named STRING and INT columns, filled row by row.</summary>
    public sealed class MetadataResultTable
    {
        private readonly List<(string Name, bool IsInt)> _columns;
        private readonly List<object?[]> _rows = new List<object?[]>();

        public MetadataResultTable(params string[] columns)
        {
            // A column named "name:int" is an INT column; every other column is a STRING.
            _columns = columns.Select(c => c.EndsWith(":int", StringComparison.Ordinal) ? (c[..^4], true) : (c, false)).ToList();
        }

        public MetadataResultTable Add(params object?[] values)
        {
            if (values.Length != _columns.Count)
            {
                throw new ArgumentException($"{values.Length} values for {_columns.Count} columns.");
            }

            _rows.Add(values);
            return this;
        }

        public RecordBatch Build()
        {
            var fields = _columns.Select(c => new Field(c.Name, c.IsInt ? Int32Type.Default : StringType.Default, nullable: true)).ToList();
            var arrays = new List<IArrowArray>();
            for (int column = 0; column < _columns.Count; column++)
            {
                if (_columns[column].IsInt)
                {
                    var builder = new Int32Array.Builder();
                    foreach (object?[] row in _rows)
                    {
                        if (row[column] is int value)
                        {
                            builder.Append(value);
                        }
                        else
                        {
                            builder.AppendNull();
                        }
                    }

                    arrays.Add(builder.Build());
                }
                else
                {
                    var builder = new StringArray.Builder();
                    foreach (object?[] row in _rows)
                    {
                        if (row[column] is string value)
                        {
                            builder.Append(value);
                        }
                        else
                        {
                            builder.AppendNull();
                        }
                    }

                    arrays.Add(builder.Build());
                }
            }

            return new RecordBatch(new Schema(fields, metadata: null), arrays, _rows.Count);
        }
    }
}
