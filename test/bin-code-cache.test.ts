/**
 * The bin's bundle and its V8 code cache (issue 10: start-up): the bundle is
 * ASCII (read without decoding UTF-8), a start leaves a cache named after the
 * bundle's build and this Node, and a plain Node process compiling the bundle
 * with that cache has it accepted, as the next start will.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { join } from 'node:path';
import { BIN, ROOT } from './helpers/server.ts';

const DIST = join(ROOT, 'dist');
const BUNDLE = join(DIST, 'orch-apiserver.cjs');

test('a start leaves a code cache of the bundle that the next start accepts', () => {
  execFileSync(process.execPath, [BIN, '--help'], { stdio: 'ignore' });
  const bytes = readFileSync(BUNDLE);
  assert.ok(isAscii(bytes), 'the bundle is ASCII');
  const { size, mtimeMs } = statSync(BUNDLE);
  const name = `orch-apiserver.cjs.${process.version}-${process.arch}-${size}-${Math.round(mtimeMs)}.v8cache`;
  assert.ok(readdirSync(DIST).includes(name), `dist/ holds ${name}`);
  const check = `
    const vm = require('node:vm'), fs = require('node:fs'), m = require('node:module');
    const script = new vm.Script(m.wrap(fs.readFileSync(${JSON.stringify(BUNDLE)}, 'latin1')), {
      filename: ${JSON.stringify(BUNDLE)},
      cachedData: fs.readFileSync(${JSON.stringify(join(DIST, name))}),
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    process.stdout.write(String(script.cachedDataRejected));`;
  assert.equal(execFileSync(process.execPath, ['-e', check], { encoding: 'utf8' }), 'false', 'V8 accepts the cache');
});
