/**
 * The server bounds V8's old-generation growth once ready (issue 10, peak
 * RSS), unless the operator chose a factor of their own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { boundHeapGrowth } from '../src/cli/heap-growth.ts';

test("an operator's --heap-growing-percent, on the command line or in NODE_OPTIONS, is left alone", () => {
  assert.equal(boundHeapGrowth(['--heap-growing-percent=80'], ''), false);
  assert.equal(boundHeapGrowth(['--heap_growing_percent', '80'], ''), false);
  assert.equal(boundHeapGrowth([], '--max-old-space-size=512 --heap-growing-percent=80'), false);
  assert.equal(boundHeapGrowth(['--max-semi-space-size=8'], '--max-old-space-size=512'), true);
});

test('the factor applies to a running process: V8 accepts it after start', () => {
  // V8 reports an unknown or malformed flag on stderr rather than throwing.
  const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', "import('./src/cli/heap-growth.ts').then((m) => console.log(m.boundHeapGrowth()))"], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), 'true');
  assert.doesNotMatch(child.stderr, /flag|unrecognized/i);
});
