// The overlay is compiled into namespace Apache.Arrow.Adbc.Drivers.Databricks of the real driver, where a
// simple name is looked up in Apache.Arrow.* before any using directive (`Array` there is Apache.Arrow.Array, not
// System.Array: this build references the real Apache.Arrow package, so that case fails here too). This stand-in
// gives the standalone build the same lookup for Apache.Arrow.Adbc, which is not a package the overlay references:
// the names of public types in its root namespace that also name common System types.
namespace Apache.Arrow.Adbc
{
    internal enum IsolationLevel
    {
    }
}

// The driver has a namespace Apache.Arrow.Adbc.Drivers.Apache (its Hive/Spark base), so inside the overlay's
// namespace a qualified name starting with `Apache.` binds there first: `Apache.Arrow.Memory.X` does not compile
// in the driver. This stand-in makes the standalone build fail the same way; write a using directive instead.
namespace Apache.Arrow.Adbc.Drivers.Apache
{
    internal static class NamespaceStandIn
    {
    }
}
