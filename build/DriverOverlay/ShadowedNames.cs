// The overlay is compiled into namespace Apache.Arrow.Adbc.Drivers.Databricks of the real driver, where a
// simple name is looked up in Apache.Arrow.* before any using directive: `Array` there is Apache.Arrow.Array,
// not System.Array. These stand-ins give this standalone build the same lookup, so an unqualified use fails
// here, in CI, instead of only when the overlay is applied to a checkout. They are the names of public types
// in Apache.Arrow's and Apache.Arrow.Adbc's root namespaces that also name common System types.
namespace Apache.Arrow
{
    internal sealed class Array
    {
    }
}

namespace Apache.Arrow.Adbc
{
    internal enum IsolationLevel
    {
    }
}
