'use strict';
// Runs the conformance suite: starts the mock server (https, certificate generated at start), then `node --test`
// with NODE_EXTRA_CA_CERTS pointing at that certificate, so the Databricks client connects with its default settings
// (https, system trust plus NODE_EXTRA_CA_CERTS). Stops the server it started, by its process handle.
//
//   node run.js [--trx FILE]      (MOCK_DATABRICKS_SERVER_DLL overrides the server build to run)

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const repoRoot = path.resolve(__dirname, '..', '..');
const serverDll = process.env.MOCK_DATABRICKS_SERVER_DLL
  || path.join(repoRoot, 'artifacts', 'bin', 'MockDatabricks.Server', 'Release', 'net10.0', 'MockDatabricks.Server.dll');
const token = 'node-conformance-token';

function startServer(certificate) {
  if (!fs.existsSync(serverDll)) {
    throw new Error(`${serverDll} not found: build integration-tests/MockDatabricks.Server -c Release first (scripts/test does), or set MOCK_DATABRICKS_SERVER_DLL`);
  }
  const server = spawn('dotnet', [serverDll, '--port', '0', '--token', token, '--https', '--tls-cert-out', certificate], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('mock server printed no URL within 60 s')), 60_000);
    server.once('exit', (code) => reject(new Error(`mock server exited (${code}) before listening`)));
    readline.createInterface({ input: server.stdout }).on('line', (line) => {
      const match = /^Now listening on: (https:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve({ server, url: match[1] });
      }
    });
  });
}

async function main() {
  const trxIndex = process.argv.indexOf('--trx');
  const trx = trxIndex > 0 ? path.resolve(process.argv[trxIndex + 1]) : null;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'node-conformance-'));
  const certificate = path.join(scratch, 'mock.crt');
  const { server, url } = await startServer(certificate);
  try {
    const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout'];
    if (trx) {
      reporters.push(`--test-reporter=${path.join(__dirname, 'trx-reporter.js')}`, `--test-reporter-destination=${trx}`);
    }
    const tests = fs.readdirSync(path.join(__dirname, 'test')).filter((f) => f.endsWith('.test.js')).map((f) => path.join('test', f));
    const runner = spawn(process.execPath, ['--test', '--test-concurrency=1', ...reporters, ...tests], {
      cwd: __dirname,
      stdio: 'inherit',
      env: { ...process.env, NODE_EXTRA_CA_CERTS: certificate, MOCK_DATABRICKS_URL: url, MOCK_DATABRICKS_TOKEN: token },
    });
    const code = await new Promise((resolve) => runner.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
    process.exitCode = code;
  } finally {
    server.kill();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`node-conformance: ${error.message}`);
  process.exitCode = 1;
});
