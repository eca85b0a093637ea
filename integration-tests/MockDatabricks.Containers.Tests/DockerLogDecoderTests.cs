using System;
using System.Linq;
using System.Text;
using Xunit;

namespace MockDatabricks.Containers.Tests;

public sealed class DockerLogDecoderTests
{
    [Fact]
    public void MultiplexedFramesAreJoinedInOrderWithoutHeaders()
    {
        byte[] body = Frame(1, "Now listening on: http://0.0.0.0:8080\n")
            .Concat(Frame(2, "warn: something\n"))
            .Concat(Frame(1, "ready\n"))
            .ToArray();

        Assert.Equal("Now listening on: http://0.0.0.0:8080\nwarn: something\nready\n", DockerLogDecoder.Decode(body));
    }

    [Fact]
    public void TruncatedLastFrameKeepsWhatArrived()
    {
        byte[] full = Frame(1, "first\n").Concat(Frame(2, "second line\n")).ToArray();
        byte[] cut = full.AsSpan(0, full.Length - 6).ToArray();

        Assert.Equal("first\nsecond", DockerLogDecoder.Decode(cut));
    }

    [Fact]
    public void RawTextFromATtyContainerIsReturnedAsIs()
    {
        const string text = "plain output from a TTY container\nsecond line\n";

        Assert.Equal(text, DockerLogDecoder.Decode(Encoding.UTF8.GetBytes(text)));
    }

    [Fact]
    public void EmptyBodyIsEmptyText()
    {
        Assert.Equal(string.Empty, DockerLogDecoder.Decode(ReadOnlySpan<byte>.Empty));
    }

    private static byte[] Frame(byte stream, string text)
    {
        byte[] payload = Encoding.UTF8.GetBytes(text);
        byte[] frame = new byte[8 + payload.Length];
        frame[0] = stream;
        frame[4] = (byte)(payload.Length >> 24);
        frame[5] = (byte)(payload.Length >> 16);
        frame[6] = (byte)(payload.Length >> 8);
        frame[7] = (byte)payload.Length;
        payload.CopyTo(frame, 8);
        return frame;
    }
}
