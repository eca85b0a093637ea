'use strict';
// A node:test reporter that writes a TRX file, so scripts/trx_summary.py counts this suite with the .NET ones and a
// failure here turns CI red. Only the counters and one result per test: what trx_summary.py and a TRX viewer read.
// (node's own junit reporter would need a second summary format; a custom reporter works on node 18.15 and later.)

const crypto = require('node:crypto');

function escapeXml(text) {
  return String(text).replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]);
}

module.exports = async function* trxReporter(source) {
  const results = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') {
      continue;
    }
    const { data } = event;
    if (data.details?.type === 'suite') {
      continue;
    }
    const outcome = data.skip !== undefined || data.todo !== undefined ? 'NotExecuted' : event.type === 'test:pass' ? 'Passed' : 'Failed';
    const message = outcome === 'Failed' ? String(data.details?.error?.cause?.stack ?? data.details?.error?.stack ?? data.details?.error ?? '') : typeof data.skip === 'string' ? data.skip : '';
    results.push({ name: data.name, file: data.file ?? '', outcome, ms: data.details?.duration_ms ?? 0, message });
  }

  const count = (outcome) => results.filter((r) => r.outcome === outcome).length;
  const passed = count('Passed');
  const failed = count('Failed');
  const skipped = count('NotExecuted');
  const unitResults = results.map((r) => {
    const seconds = (r.ms / 1000).toFixed(3);
    const output = r.message ? `<Output><ErrorInfo><Message>${escapeXml(r.message)}</Message></ErrorInfo></Output>` : '';
    return `    <UnitTestResult testId="${crypto.randomUUID()}" executionId="${crypto.randomUUID()}" testName="${escapeXml(r.name)}" computerName="node" duration="00:00:${seconds.padStart(6, '0')}" outcome="${r.outcome}">${output}</UnitTestResult>`;
  });
  yield [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<TestRun id="${crypto.randomUUID()}" name="node-conformance" xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">`,
    '  <Results>',
    ...unitResults,
    '  </Results>',
    `  <ResultSummary outcome="${failed > 0 ? 'Failed' : 'Completed'}">`,
    `    <Counters total="${results.length}" executed="${passed + failed}" passed="${passed}" failed="${failed}" error="0" notExecuted="${skipped}" />`,
    '  </ResultSummary>',
    '</TestRun>',
    '',
  ].join('\n');
};
