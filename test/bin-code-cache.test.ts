/**
 * The bin's bundle and its V8 code cache (issue 10: start-up): the bundle is
 * ASCII (read without decoding UTF-8); a server, once ready, leaves a cache
 * named after the bundle's build, this Node and its flags, holding the
 * functions the start compiled and not only the top level; the next start
 * accepts it and so leaves it as it is. A source changed after the bundle was
 * built rebuilds it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAscii } from 'node:buffer';
import { join } from 'node:path';
import { BIN, ROOT, startTestServer } from './helpers/server.ts';

const DIST = join(ROOT, 'dist');

/** The command lines of a process's children, from /proc (field 4 of stat is the parent). */
function childrenOf(pid: number): string[] {
  const out: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim());
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
const BUNDLE = join(DIST, 'orch-apiserver.cjs');
// A Node flag of this test's own, so that servers other tests start beside it keep to their own cache file.
const NODE_ARGS = ['--no-deprecation'];

test('a ready server leaves a code cache of what its start compiled, and the next start keeps it', async () => {
  execFileSync(process.execPath, [BIN, '--help'], { stdio: 'ignore' });
  assert.ok(isAscii(readFileSync(BUNDLE)), 'the bundle is ASCII');
  const { size, mtimeMs } = statSync(BUNDLE);
  const flags = [...NODE_ARGS, process.env.NODE_OPTIONS ?? ''].join(' ').trim();
  const tag = createHash('sha256').update(flags).digest('hex').slice(0, 8);
  const cacheFile = join(DIST, `orch-apiserver.cjs.${process.version}-${process.arch}-${tag}-${size}-${Math.round(mtimeMs)}.v8cache`);
  rmSync(cacheFile, { force: true });

  const first = await startTestServer([], { nodeArgs: NODE_ARGS });
  try {
    assert.ok(statSync(cacheFile, { throwIfNoEntry: false }), `a ready server wrote ${cacheFile}`);
  } finally {
    await first.close();
  }
  const written = statSync(cacheFile).mtimeMs;

  // A plain Node process, with the bin's V8 flag set before compiling, accepts the cache; it is well
  // beyond the top level alone (1.5 MB against 1.0 MB when measured).
  const check = `
    const vm = require('node:vm'), fs = require('node:fs'), m = require('node:module');
    require('node:v8').setFlagsFromString('--enable-experimental-regexp-engine');
    const source = m.wrap(fs.readFileSync(${JSON.stringify(BUNDLE)}, 'latin1'));
    const options = { filename: ${JSON.stringify(BUNDLE)}, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER };
    const cachedData = fs.readFileSync(${JSON.stringify(cacheFile)});
    const script = new vm.Script(source, { ...options, cachedData });
    const topLevel = new vm.Script(source, options).createCachedData();
    process.stdout.write(JSON.stringify({ rejected: script.cachedDataRejected, ratio: cachedData.length / topLevel.length }));`;
  const { rejected, ratio } = JSON.parse(execFileSync(process.execPath, [...NODE_ARGS, '-e', check], { encoding: 'utf8' }));
  assert.equal(rejected, false, 'V8 accepts the cache');
  assert.ok(ratio > 1.2, `the cache holds the functions the start compiled (${ratio.toFixed(2)}x the top level's)`);

  const second = await startTestServer([], { nodeArgs: NODE_ARGS });
  try {
    assert.equal(statSync(cacheFile).mtimeMs, written, 'the next start accepted the cache and did not write it again');
  } finally {
    await second.close();
  }
});

test('a source file changed after the bundle was built rebuilds it, with find(1) and without', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'orch-bin-'));
  try {
    for (const entry of ['bin', 'src', 'openapi', 'package.json']) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const bin = join(copy, 'bin/orch-apiserver.mjs');
    const bundle = join(copy, 'dist/orch-apiserver.cjs');
    const help = (env: NodeJS.ProcessEnv = process.env) => execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8', env });
    const built = () => statSync(bundle).mtimeMs;
    assert.match(help(), /orch-apiserver serves/);
    const first = built();
    help();
    assert.equal(built(), first, 'an unchanged tree keeps its bundle');
    const source = join(copy, 'src/util/timers.ts');
    const touch = (file: string) => utimesSync(file, new Date(), new Date());
    touch(source);
    help();
    const second = built();
    assert.ok(second > first, 'a newer source rebuilt the bundle');
    // Without find(1) on the PATH the bin walks the tree itself.
    const noFind = { ...process.env, PATH: '/nonexistent' };
    help(noFind);
    assert.equal(built(), second, 'without find, an unchanged tree keeps its bundle');
    touch(join(copy, 'package.json'));
    assert.match(help(noFind), /orch-apiserver serves/);
    assert.ok(built() > second, 'without find, a newer package.json rebuilt the bundle');

    // A server that rebuilt the bundle keeps no process of the build: esbuild's service child had
    // stayed for good, one more process in the server's tree and memory it never gave back.
    touch(source);
    const server = await startTestServer(['--workers=1'], { bin });
    try {
      assert.ok(built() > second, 'the server rebuilt the bundle');
      assert.deepEqual(childrenOf(server.process.pid!), [], 'no child process is left');
    } finally {
      await server.close();
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
