'use strict';
const assert = require('node:assert/strict');
const test = require('node:test');
const { validate, version } = require('uuid');
const { connect, query } = require('../lib/mock');

test('sessions and operations open and close, their handles always valid RFC 4122 UUIDs', async () => {
  // Before the mock wrote handles in RFC 4122 byte order, uuid.stringify threw in about half of these calls.
  const client = await connect();
  try {
    for (let i = 0; i < 20; i += 1) {
      const session = await client.openSession();
      const operation = await session.executeStatement('SELECT 1');
      assert.ok(validate(session.id) && version(session.id) === 4, session.id);
      assert.ok(validate(operation.id) && version(operation.id) === 4, operation.id);
      assert.deepEqual(await operation.fetchAll(), [{ 1: 1 }]);
      await operation.close();
      await session.close();
    }
  } finally {
    await client.close();
  }
});

test('getInfo answers the DBMS name and version', async () => {
  const client = await connect();
  try {
    const session = await client.openSession();
    assert.equal((await session.getInfo(17)).getValue(), 'Spark SQL');
    assert.equal((await session.getInfo(18)).getValue(), '3.5.0 (MockDatabricks)');
    await session.close();
  } finally {
    await client.close();
  }
});

test('a wrong token is refused at openSession', async () => {
  const client = await connect({ token: 'not-the-token' });
  try {
    await assert.rejects(client.openSession(), (error) => /401|Unauthorized/i.test(String(error.message)));
  } finally {
    await client.close();
  }
});

test('a statement a warehouse refuses fails with the server message and its error class', async () => {
  await assert.rejects(query('SELECT * FROM somewhere.else'), (error) => error.message.startsWith('[TABLE_OR_VIEW_NOT_FOUND] The table or view `somewhere`.`else` cannot be found'));
  await assert.rejects(query('SELEC 1'), (error) => error.message.startsWith('[PARSE_SYNTAX_ERROR] Syntax error at or near'));
});
