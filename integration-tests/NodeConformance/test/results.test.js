'use strict';
const assert = require('node:assert/strict');
const test = require('node:test');
const { TYPE, query, operationRecord, journal, assertRowsMatchGenerator } = require('../lib/mock');

const INLINE = 'SELECT * FROM mock.data WITH (rows = 3000, seed = 11, batch_rows = 700, mode = inline)';
const CLOUDFETCH = 'SELECT * FROM mock.data WITH (rows = 20000, seed = 12, file_rows = 5000, mode = cloudfetch)';

test('inline Arrow results, uncompressed: every value', async () => {
  const result = await query(INLINE, { executeOptions: { useLZ4Compression: false } });
  assert.equal(await assertRowsMatchGenerator(INLINE, result), 3000);
  assert.deepEqual(pick(await operationRecord(result.operationId)), { cloudFetch: false, lz4: false, columnBased: false });
});

test('inline Arrow results, LZ4 (the client asks for LZ4 when CloudFetch is off): every value', async () => {
  const result = await query(INLINE, { executeOptions: { useCloudFetch: false } });
  assert.equal(await assertRowsMatchGenerator(INLINE, result), 3000);
  assert.deepEqual(pick(await operationRecord(result.operationId)), { cloudFetch: false, lz4: true, columnBased: false });
});

test('CloudFetch with default settings (the client never asks for LZ4 with CloudFetch): every value, 4 files', async () => {
  const result = await query(CLOUDFETCH);
  assert.equal(await assertRowsMatchGenerator(CLOUDFETCH, result), 20000);
  assert.deepEqual(pick(await operationRecord(result.operationId)), { cloudFetch: true, lz4: false, columnBased: false });
  const downloads = (await journal(result.operationId)).filter((e) => e.kind === 'download');
  assert.deepEqual(downloads.map((e) => `${e.file}:${e.outcome}`).sort(), ['0:ok', '1:ok', '2:ok', '3:ok']);
});

test('CloudFetch with LZ4 files (lz4=always): every value', async () => {
  const statement = CLOUDFETCH.replace('mode = cloudfetch', 'mode = cloudfetch, lz4 = always');
  const result = await query(statement);
  assert.equal(await assertRowsMatchGenerator(statement, result), 20000);
  assert.deepEqual(pick(await operationRecord(result.operationId)), { cloudFetch: true, lz4: true, columnBased: false });
});

test('CloudFetch LZ4 files with block and content checksums and a content size: every value', async () => {
  const statement = CLOUDFETCH.replace('mode = cloudfetch', 'mode = cloudfetch, lz4 = always, lz4_block_checksum = true, lz4_content_checksum = true, lz4_content_size = true');
  const result = await query(statement);
  assert.equal(await assertRowsMatchGenerator(statement, result), 20000);
});

test('KNOWN CLIENT BUG: an LZ4 file of several frames is cut after its first frame (lz4-napi decompressFrameSync)', async () => {
  // A valid file: 4 concatenated LZ4 frames, as Databricks writes the last file of a result. @databricks/sql 2.1.0
  // decodes it with lz4-napi's decompressFrameSync, which stops after the first frame, so Arrow reads a short stream.
  // If this starts passing with every value, the client was fixed: turn this into a plain value test.
  const statement = CLOUDFETCH.replace('mode = cloudfetch', 'mode = cloudfetch, lz4 = always, frames = 4');
  await assert.rejects(query(statement), /Expected to read \d+ bytes for message body, but only read \d+/);
});

test('useArrowNativeTypes off: TIMESTAMP arrives as the warehouse string, DECIMAL as a string the client makes a number', async () => {
  const result = await query(INLINE, { config: { useArrowNativeTypes: false } });
  assert.equal(await assertRowsMatchGenerator(INLINE, result), 3000);
  assert.ok(result.rows.some((row) => typeof row.created_at === 'string'), 'timestamps should be strings');
  assert.equal(typeof result.rows[0].amount, 'number');
  assert.match((await operationRecord(result.operationId)).dataset, /types=ts=string,dec=string$/);
});

test('arrowEnabled off: column-based rows (no Arrow, no CloudFetch) even for a CloudFetch-sized result', async () => {
  const result = await query(CLOUDFETCH, { config: { arrowEnabled: false } });
  assert.equal(await assertRowsMatchGenerator(CLOUDFETCH, result), 20000);
  assert.deepEqual(pick(await operationRecord(result.operationId)), { cloudFetch: false, lz4: false, columnBased: true });
  const dates = result.rows.map((row) => row.event_date).filter((d) => d !== null);
  assert.ok(dates.every((d) => typeof d === 'string'), 'column-based dates are strings');
});

test('getSchema: DECIMAL(18,4) keeps its precision and scale', async () => {
  const { columns } = await query('SELECT * FROM mock.small');
  const amount = columns.find((c) => c.columnName === 'amount').typeDesc.types[0].primitiveEntry;
  assert.equal(amount.type, TYPE.DECIMAL);
  assert.equal(amount.typeQualifiers.qualifiers.precision.i32Value, 18);
  assert.equal(amount.typeQualifiers.qualifiers.scale.i32Value, 4);
});

function pick({ cloudFetch, lz4, columnBased }) {
  return { cloudFetch, lz4, columnBased };
}
