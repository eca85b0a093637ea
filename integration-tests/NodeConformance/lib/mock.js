'use strict';
// What the tests share: a client connected to the mock with the driver's default settings, the mock's admin API,
// and the check of returned rows against the generator's values (POST /admin/datasets/values, computed by the C#
// DatasetGenerator, the source of truth; nothing of the generator is ported here).

const assert = require('node:assert/strict');
const { DBSQLClient } = require('@databricks/sql');

const url = new URL(process.env.MOCK_DATABRICKS_URL);
const token = process.env.MOCK_DATABRICKS_TOKEN;

// Thrift TTypeId values of the column descriptors (TCLIService.thrift).
const TYPE = { DECIMAL: 15, TIMESTAMP: 8, DATE: 17 };
const MICROS_PER_DAY = 86_400_000_000;

/** A connected client: host, port, path and token only, as a user would write it (https is the driver's default). */
async function connect(extra = {}) {
  const client = new DBSQLClient({ logger: { log() {} } });
  await client.connect({ host: url.hostname, port: Number(url.port), path: '/sql/1.0/warehouses/mock', token, telemetryEnabled: false, ...extra });
  return client;
}

/**
 * Runs one statement in a fresh session; returns the rows, the column descriptors and the statement's operation id.
 * `config` sets client settings that have no connect option (arrowEnabled, useArrowNativeTypes) on the client's
 * configuration object (IClientContext.getConfig()), as the driver's own tests do.
 */
async function query(statement, { connectOptions = {}, executeOptions = {}, config = {} } = {}) {
  const client = await connect(connectOptions);
  Object.assign(client.getConfig(), config);
  try {
    const session = await client.openSession();
    const operation = await session.executeStatement(statement, executeOptions);
    try {
      const rows = await operation.fetchAll();
      const schema = await operation.getSchema();
      return { rows, columns: schema.columns, operationId: operation.id };
    } finally {
      await operation.close();
      await session.close();
    }
  } finally {
    await client.close();
  }
}

async function admin(method, path, body) {
  const response = await fetch(new URL(path, url), {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`${method} ${path}: HTTP ${response.status} ${text}`);
  }
  return JSON.parse(text);
}

/** The mock's record of one operation (by the client's operation id: its guid as hex). */
async function operationRecord(operationId) {
  const { operations } = await admin('GET', '/admin/operations');
  const record = operations.find((o) => o.id === operationId.replaceAll('-', ''));
  assert.ok(record, `the mock has no operation ${operationId}`);
  return record;
}

async function journal(operationId) {
  const { entries } = await admin('GET', `/admin/journal?operation=${operationId.replaceAll('-', '')}`);
  return entries;
}

/** "2024-01-01 00:00:04.12" (UTC, the warehouse's string for a TIMESTAMP) as microseconds since the epoch. */
function parseWarehouseTimestamp(text) {
  const match = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{0,5}[1-9]))?$/.exec(text);
  assert.ok(match, `not a warehouse timestamp string: ${JSON.stringify(text)}`);
  const [, y, mo, d, h, mi, s, fraction = ''] = match;
  return Date.UTC(+y, +mo - 1, +d, +h, +mi, +s) * 1000 + Number(fraction.padEnd(6, '0'));
}

/** A value as the client returned it, in the neutral form of /admin/datasets/values. */
function neutral(value, type) {
  if (value === null || value === undefined) {
    return null;
  }
  switch (type) {
    case TYPE.TIMESTAMP:
      return value instanceof Date ? value.getTime() * 1000 : parseWarehouseTimestamp(value);
    case TYPE.DATE: {
      if (value instanceof Date) {
        return value.getTime() * 1000 / MICROS_PER_DAY;
      }
      assert.match(value, /^\d{4}-\d\d-\d\d$/);
      return Date.parse(`${value}T00:00:00Z`) * 1000 / MICROS_PER_DAY;
    }
    default:
      return value;
  }
}

/** Checks every returned value against the generator: row i of the result is data set row firstRow + i. */
async function assertRowsMatchGenerator(statement, result, { firstRow = 0 } = {}) {
  const names = result.columns.map((c) => c.columnName);
  const types = result.columns.map((c) => c.typeDesc.types[0].primitiveEntry.type);
  for (let start = 0; start < result.rows.length; start += 10_000) {
    const rows = result.rows.slice(start, start + 10_000);
    const expected = await admin('POST', '/admin/datasets/values', { statement, rows: rows.map((_, i) => firstRow + start + i) });
    assert.deepEqual(expected.columns, names);
    rows.forEach((row, i) => {
      assert.deepEqual(Object.keys(row), names);
      const actual = names.map((name, c) => neutral(row[name], types[c]));
      assert.deepEqual(actual, expected.rows[i], `row ${firstRow + start + i}`);
    });
  }
  return result.rows.length;
}

module.exports = { TYPE, connect, query, admin, operationRecord, journal, assertRowsMatchGenerator, parseWarehouseTimestamp };
