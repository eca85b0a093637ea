using System;
using System.Linq;
using MockDatabricks.Server.Catalog;
using MockDatabricks.Server.Query;

namespace MockDatabricks.Server.Rest
{
    /// <summary>
    /// What the REST metadata SQL lists: the statement planner's catalog (<see cref="MockCatalog"/>: the tables SELECT can
    /// read), described as <see cref="MetadataCatalog"/> tables, except upstream's fixture schema main.adbc_testing, which
    /// <see cref="MetadataCatalog.Default"/> describes exactly as upstream declares it (20 columns of all_column_types,
    /// VARIANT included; fk_test_ref_table; cross_ref_customers and cross_ref_orders).
    /// </summary>
    public static class RestCatalog
    {
        public static MetadataCatalog Instance { get; } = new MetadataCatalog(
            MetadataCatalog.Default.Schemas.Concat(MockCatalog.Schemas),
            MetadataCatalog.Default.Tables.Concat(MockCatalog.Tables
                .Where(t => !t.Schema.Equals("adbc_testing", StringComparison.OrdinalIgnoreCase))
                .Select(t => new TableMetadata(t.Catalog, t.Schema, t.Name, t.Fields.Select(f => new ColumnMetadata(f.Name, f.Type.Sql, f.Nullable)).ToList())
                {
                    TableType = t.Type,
                    Comment = t.Remarks,
                    PrimaryKey = t.PrimaryKey,
                    ForeignKeys = t.ForeignKeys.Select(k => new ForeignKeyMetadata(k.Name, k.Columns, k.RefCatalog, k.RefSchema, k.RefTable, k.RefColumns)).ToList(),
                })));
    }
}
