using System;

namespace MockDatabricks.Protocol.Thrift
{
    /// <summary>TApplicationException type codes (apache/thrift lib/netstd TApplicationException.ExceptionType).</summary>
    public enum ThriftApplicationErrorType
    {
        Unknown = 0,
        UnknownMethod = 1,
        InvalidMessageType = 2,
        WrongMethodName = 3,
        BadSequenceId = 4,
        MissingResult = 5,
        InternalError = 6,
        ProtocolError = 7,
    }

    /// <summary>
    /// The struct carried by an EXCEPTION message: field 1 message (string), field 2 type (i32).
    /// Thrown by the client side when a reply is an EXCEPTION message.
    /// </summary>
    public sealed class ThriftApplicationException : Exception, IThriftStruct
    {
        public ThriftApplicationException(ThriftApplicationErrorType type, string message)
            : base(message)
        {
            Type = type;
        }

        public ThriftApplicationErrorType Type { get; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteStringField(1, Message);
            writer.WriteI32Field(2, (int)Type);
            writer.WriteFieldStop();
        }

        public static ThriftApplicationException Read(ThriftReader reader)
        {
            string message = string.Empty;
            var type = ThriftApplicationErrorType.Unknown;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType fieldType, out short id))
            {
                switch (id)
                {
                    case 1 when fieldType == ThriftType.String:
                        message = reader.ReadString();
                        break;
                    case 2 when fieldType == ThriftType.I32:
                        type = (ThriftApplicationErrorType)reader.ReadI32();
                        break;
                    default:
                        reader.Skip(fieldType);
                        break;
                }
            }

            reader.ReadStructEnd();
            return new ThriftApplicationException(type, message);
        }
    }
}
