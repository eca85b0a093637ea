using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace PatchTool.Tests
{
    /// <summary>
    /// scripts/container-engine.sh keeps the socket and config of a root-owned engine in a state directory, so that
    /// directory must be private: created 0700 by the script, or refused when it is a symlink or someone else's.
    /// These run the real script against a fake engine (a loopback HTTP responder given as DOCKER_HOST, which the
    /// script uses instead of starting podman), so they need neither root nor a container engine. They live with the
    /// patch tool's tests because those are the tests of scripts/.
    /// </summary>
    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    public sealed class ContainerEngineStateDirTests : IDisposable
    {
        private readonly TempDirectory temp = new TempDirectory("engine-state-tests-");
        private readonly TcpListener fakeEngine = new TcpListener(IPAddress.Loopback, 0);
        private readonly CancellationTokenSource stop = new CancellationTokenSource();

        public ContainerEngineStateDirTests()
        {
            fakeEngine.Start();
            _ = Task.Run(AnswerEveryRequestWithOk);
        }

        private string DockerHost => $"tcp://127.0.0.1:{((IPEndPoint)fakeEngine.LocalEndpoint).Port}";

        [UnixFact]
        public void Start_CreatesTheStateDirectoryOwnerOnly_AndPrintsItSoStopFindsIt()
        {
            string state = temp.Combine("state");

            (int exit, string stdout, string stderr) = Engine("start", state);
            (int stopExit, _, string stopStderr) = Engine("stop", state, dockerHost: null);

            Assert.True(exit == 0, stderr);
            Assert.Contains($"export ADBC_DBX_ENGINE_DIR={state}\n", stdout);
            Assert.Contains($"export DOCKER_HOST={DockerHost}\n", stdout);
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(state));
            Assert.Equal(0, stopExit);
            Assert.False(File.Exists(Path.Combine(state, "engine.env")), stopStderr);
        }

        [UnixFact]
        public void Start_RefusesAStateDirectoryThatIsASymlink_AndWritesNothingThrough_It()
        {
            string target = temp.Combine("planted");
            Directory.CreateDirectory(target);
            string link = temp.Combine("state");
            File.CreateSymbolicLink(link, target);

            (int exit, _, string stderr) = Engine("start", link);

            Assert.Equal(1, exit);
            Assert.Contains($"refusing state directory {link}", stderr);
            Assert.Empty(Directory.GetFileSystemEntries(target));
        }

        [UnixFact]
        public void Start_RefusesAStateDirectoryOwnedBySomeoneElse()
        {
            // As root, a directory handed to another uid; otherwise a root-owned one (/usr) is someone else's.
            string foreign = "/usr";
            if (Environment.UserName == "root")
            {
                foreign = temp.Combine("foreign");
                Directory.CreateDirectory(foreign);
                (int chownExit, _, string chownStderr) = RunProcess("chown", new[] { "65534", foreign }, new Dictionary<string, string?>());
                Assert.True(chownExit == 0, chownStderr);
            }

            (int exit, _, string stderr) = Engine("start", foreign);

            Assert.Equal(1, exit);
            Assert.Contains($"refusing state directory {foreign}", stderr);
            Assert.False(File.Exists(Path.Combine(foreign, "engine.env")));
        }

        public void Dispose()
        {
            stop.Cancel();
            fakeEngine.Stop();
            temp.Dispose();
        }

        private (int Exit, string Stdout, string Stderr) Engine(string command, string stateDir, string? dockerHost = "")
        {
            string script = Path.Combine(ToolContext.RepositoryRoot()!, "scripts", "container-engine.sh");
            return RunProcess("/bin/bash", new[] { script, command }, new Dictionary<string, string?>
            {
                ["ADBC_DBX_ENGINE_DIR"] = stateDir,
                ["DOCKER_HOST"] = dockerHost == "" ? DockerHost : dockerHost,
            });
        }

        /// <summary>The patch tool's own runner (both streams drained concurrently), as a tuple for the assertions.</summary>
        private static (int Exit, string Stdout, string Stderr) RunProcess(string file, string[] args, Dictionary<string, string?> environment)
        {
            ProcessResult result = ProcessRunner.Run(file, args, Environment.CurrentDirectory, environment);
            return (result.ExitCode, result.Stdout, result.Stderr);
        }

        /// <summary>Enough of the Docker API for the script: every request (/_ping, /version) gets 200 "OK".</summary>
        private async Task AnswerEveryRequestWithOk()
        {
            byte[] response = Encoding.ASCII.GetBytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK");
            while (!stop.IsCancellationRequested)
            {
                try
                {
                    using TcpClient client = await fakeEngine.AcceptTcpClientAsync(stop.Token).ConfigureAwait(false);
                    NetworkStream stream = client.GetStream();
                    var buffer = new byte[4096];
                    _ = await stream.ReadAsync(buffer, stop.Token).ConfigureAwait(false);
                    await stream.WriteAsync(response, stop.Token).ConfigureAwait(false);
                }
                catch (Exception ex) when (ex is OperationCanceledException || ex is ObjectDisposedException || ex is SocketException || ex is IOException)
                {
                    // Stopped, or a client that hung up early; keep serving until the test is disposed.
                }
            }
        }
    }
}
