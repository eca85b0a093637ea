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
