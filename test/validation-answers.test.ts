/**
 * What clients are told about invalid writes stays as it was when rules moved
 * from kinds' code into their contract and the contract began to be enforced
 * (issue 31 items 1 and 2): every case of test/helpers/validation-corpus.ts
 * is answered exactly as recorded, byte for byte, in
 * test/golden/validation-answers.json (status, reason, message, causes).
 *
 * ORCH_RECORD_GOLDEN=1 writes the file from this checkout's answers instead.
 *
 * The file was first recorded from the code before the contract was enforced
 * (commit 022f45c). Four answers changed on purpose when it was, each a write
 * upstream refuses too that this server's hooks had no rule for, now refused
 * by the contract's rule in custom resources' words: pod/duplicate-spread
 * (two topologySpreadConstraints of one key; upstream says Duplicate at
 * `[0].{topologyKey, whenUnsatisfiable}`), pod/http-probe-no-port and
 * pod/tcp-probe-no-port (upstream: `port: Invalid value: 0: must be between 1
 * and 65535, inclusive`), pod/node-selector-terms (upstream: `Required value:
 * must have at least one node selector term`). Every other answer is byte for
 * byte the one recorded before.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, startTestServer, type TestServer } from './helpers/server.ts';
import { answerOf, VALIDATION_CORPUS } from './helpers/validation-corpus.ts';

const GOLDEN = join(ROOT, 'test/golden/validation-answers.json');

let server: TestServer;
before(async () => {
  server = await startTestServer(['--workers=1']);
});
after(() => server.close());

async function answers(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const c of VALIDATION_CORPUS) {
    const res = await server.request('POST', c.path, { body: c.body });
    out[c.name] = answerOf(res.status, res.body);
  }
  return out;
}

test('every corpus write is answered as recorded', async () => {
  const got = await answers();
  if (process.env.ORCH_RECORD_GOLDEN === '1') {
    mkdirSync(dirname(GOLDEN), { recursive: true });
    writeFileSync(GOLDEN, JSON.stringify(got, null, 2) + '\n');
    return;
  }
  const want = JSON.parse(readFileSync(GOLDEN, 'utf8'));
  assert.deepEqual(Object.keys(got), Object.keys(want), 'the corpus and the recorded answers name the same cases');
  for (const name of Object.keys(want)) assert.deepEqual(got[name], want[name], name);
});

test('the corpus refuses what it should: it would catch a rule that stopped being enforced', () => {
  const want = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, { status: number }>;
  const refused = Object.entries(want).filter(([, a]) => a.status === 422).map(([name]) => name);
  assert.ok(refused.length > 40, `most cases are refusals (${refused.length})`);
  assert.equal(want['networkpolicy/valid'].status, 201);
  assert.equal(want['pod/valid'].status, 201);
});
