/** A forked worker's young generation follows the heap the primary holds (src/server/young-generation.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { semiSpaceMiB, workerExecArgv } from '../src/server/young-generation.ts';

const MIB = 1024 * 1024;

test('young generation: V8 default up to 256 MiB of heap, then 32 MiB, then 64 MiB semi-spaces', () => {
  assert.equal(semiSpaceMiB(40 * MIB), undefined);
  assert.equal(semiSpaceMiB(256 * MIB), undefined);
  assert.equal(semiSpaceMiB(257 * MIB), 32);
  assert.equal(semiSpaceMiB(768 * MIB), 32);
  assert.equal(semiSpaceMiB(769 * MIB), 64);
  assert.equal(semiSpaceMiB(2200 * MIB), 64);
});

test('young generation: a worker gets the primary flags plus its semi-space, unless the operator set one', () => {
  assert.deepEqual(workerExecArgv(['--enable-source-maps'], '', 100 * MIB), ['--enable-source-maps']);
  assert.deepEqual(workerExecArgv(['--enable-source-maps'], '', 2000 * MIB), ['--enable-source-maps', '--max-semi-space-size=64']);
  assert.deepEqual(workerExecArgv([], '', 500 * MIB), ['--max-semi-space-size=32']);
  assert.deepEqual(workerExecArgv(['--max-semi-space-size=8'], '', 2000 * MIB), ['--max-semi-space-size=8']);
  assert.deepEqual(workerExecArgv(['--min_semi_space_size=4'], '', 2000 * MIB), ['--min_semi_space_size=4']);
  assert.deepEqual(workerExecArgv([], '--max-old-space-size=4096 --max-semi-space-size=16', 2000 * MIB), []);
  assert.deepEqual(workerExecArgv([], '--max-old-space-size=4096', 2000 * MIB), ['--max-semi-space-size=64']);
});
