'use strict';
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const test = require('node:test');
const { query, journal, assertRowsMatchGenerator } = require('../lib/mock');

const DATA = 'SELECT * FROM mock.data WITH (rows = 8000, seed = 21, file_rows = 2000, mode = cloudfetch';

/** Runs the statement with the faults and checks every value; returns the journal's download outcomes of file 0. */
async function survives(faults) {
  const statement = `${DATA}, faults = '${faults}')`;
  const result = await query(statement);
  assert.equal(await assertRowsMatchGenerator(statement, result), 8000);
  return (await journal(result.operationId)).filter((e) => e.kind === 'download' && e.file === 0).map((e) => e.outcome);
}

test('HTTP 500 and 503 on a download are retried by the client', async () => {
  assert.deepEqual(await survives('http503 files=0; http500 files=1'), ['http503', 'ok']);
});

test('KNOWN CLIENT BUG: a truncated body (short of its Content-Length, then a clean close) leaves the query pending forever', () => {
  // node-fetch 2 (the client's CloudFetch downloader) does not notice a body that ends early on a clean close, so the
  // download promise never settles and neither does fetchAll: once nothing else is pending, node exits with code 13
  // (unsettled top-level await). A reset (next test) is noticed and retried. When the client notices truncation, this
  // fails: then assert ['truncated', 'ok'] as for the reset.
  const statement = `${DATA}, faults = 'truncate files=0 at=0.4')`;
  const child = spawnSync(process.execPath, [path.join(__dirname, '..', 'fixtures', 'run-query.mjs'), statement], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(child.status, 13, `stdout: ${child.stdout} stderr: ${child.stderr}`);
  assert.equal(child.stdout, '');
});

test('a connection reset mid-body is retried by the client', async () => {
  assert.deepEqual(await survives('reset files=0 at=0.4'), ['reset', 'ok']);
});

test('slow and throttled bodies still deliver every value', async () => {
  assert.deepEqual(await survives('slow files=0 delay_ms=300; throttle files=1 bps=2000000'), ['slow']);
});

test('KNOWN CLIENT BEHAVIOUR: an expired link fails the query; the client never asks for a fresh link', async () => {
  // The ADBC driver refreshes a link (FetchResults maxRows=1 at the link's offset); @databricks/sql 2.1.0 checks
  // expiryTime before downloading and throws.
  await assert.rejects(query(`${DATA}, faults = 'expired files=1')`), messageMatches(/^CloudFetch link has expired$/));
});

test('an RPC error status on ExecuteStatement surfaces with its message', async () => {
  await assert.rejects(query(`${DATA}, faults = 'rpc_error method=ExecuteStatement message=warehouse_is_sad')`), messageMatches(/^warehouse is sad$/));
});

/** The client rejects with Error-like objects whose toString is not their message: match the message itself. */
function messageMatches(pattern) {
  return (error) => pattern.test(error.message);
}
