#!/usr/bin/env node
// Runs orch-apiserver from its TypeScript sources through a bundle in dist/ (esbuild,
// a dependency, made here when missing or older than any source file): the
// server's runtime needs no TypeScript loader, and the bundle starts in about two
// thirds of the time of loading every module through one.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, rmSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { isAscii } from 'node:buffer';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import v8 from 'node:v8';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const bundle = join(dist, 'orch-apiserver.cjs');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Whether a source file changed after the bundle was built. find(1) walks src/
 * on another core while this one compiles the bundle (the same walk here took
 * 10-15 ms of a start); without find, the walk runs here.
 */
function bundleStale() {
  const walk = () => {
    try {
      return Math.max(newestSource(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs) > statSync(bundle).mtimeMs;
    } catch {
      // What cannot be compared is rebuilt.
      return true;
    }
  };
  return new Promise((resolveStale) => {
    let newer = '';
    const find = spawn('find', [join(root, 'src'), join(root, 'package.json'), '-newer', bundle, '-print', '-quit'], { stdio: ['ignore', 'pipe', 'ignore'] });
    find.stdout.on('data', (chunk) => (newer += chunk));
    // Without find(1) spawning fails ('error'), and 'close' follows with a negative code.
    find.once('error', () => {});
    find.once('close', (code) => resolveStale(code === 0 ? newer.length > 0 : walk()));
  });
}

/** Files that find data beside themselves keep resolving it beside their source, not beside the bundle. */
const sourceRelativeUrls = {
  name: 'source-relative-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /src[\\/]generated[\\/]index\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
      loader: 'ts',
    }));
  },
};

/**
 * Pure JavaScript packages every start loads go into the bundle: loading them as
 * CommonJS, file by file (prom-client with @opentelemetry/api, protobufjs and the
 * `long` it looks for), cost a start about 90 ms. The rest stay outside: native
 * code (better-sqlite3), tools, and packages loaded on first use
 * (src/util/lazy-packages.ts).
 */
const BUNDLED_PACKAGES = /^(prom-client|@opentelemetry\/api|tdigest|bintrees|protobufjs|@protobufjs\/[^/]+|long)(\/|$)/;
const bundledPackages = {
  name: 'bundled-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED_PACKAGES.test(args.path) || args.path.startsWith('node:') ? undefined : { path: args.path, external: true }));
  },
};

async function buildBundle() {
  const esbuild = await import('esbuild');
  // Built beside and renamed into place, so concurrent starts never see half a bundle.
  const staging = join(dist, `.build-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // esbuild serves builds from a child process that lives until stopped: left running, every server
  // started after a source change kept it as a child for good (memory, and one more process in its tree).
  try {
    await esbuild.build({
      entryPoints: [join(root, 'src/cli/main.ts')],
      bundle: true,
      platform: 'node',
      // CommonJS, so that compileBundle can hand V8 its code cache (Node 20 caches no ES module).
      format: 'cjs',
      target: 'node20',
      plugins: [sourceRelativeUrls, bundledPackages],
      banner: { js: `"use strict"; const __orchImportMetaUrl = require('node:url').pathToFileURL(__filename).href;` },
      define: { 'import.meta.url': '__orchImportMetaUrl' },
      sourcemap: 'linked',
      outfile: join(staging, 'orch-apiserver.cjs'),
      logLevel: 'error',
    });
  } finally {
    await esbuild.stop();
  }
  // ASCII throughout (esbuild leaves comments and regular expressions as written),
  // so that compileBundle reads it without decoding UTF-8: 6 ms instead of 18.
  const built = join(staging, 'orch-apiserver.cjs');
  const text = readFileSync(built, 'utf8');
  writeFileSync(built, text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  renameSync(join(staging, 'orch-apiserver.cjs.map'), `${bundle}.map`);
  renameSync(built, bundle);
  rmSync(staging, { recursive: true, force: true });
}

/**
 * Runs the bundle with V8's code cache: compiling the 3 MB bundle took 120 ms
 * of a start on Node 20, and 20 ms from a cache of its top level. The cache is
 * written once the server is ready (main.ts calls STARTED_HOOK), so that it
 * also holds every function the start compiled lazily: spawn to ready took
 * 539 ms with a cache of the top level and 469 with this one (medians of 12).
 * V8 checks only the source's length, so the cache is named after the bundle's
 * size and mtime, Node's version and the process's Node flags. V8 also rejects
 * a cache made under other V8 flags than the next start's: the flag the bundle
 * sets as it loads (cel/regex.ts) is set here before compiling, and the server
 * changes its heap flags only after the hook.
 */
const STARTED_HOOK = Symbol.for('orch-apiserver.started');
const BUNDLE_V8_FLAGS = ['--enable-experimental-regexp-engine'];

function compileBundle() {
  // A bundle compiled before it was found stale writes no cache.
  delete globalThis[STARTED_HOOK];
  for (const flag of BUNDLE_V8_FLAGS) v8.setFlagsFromString(flag);
  const { size, mtimeMs } = statSync(bundle);
  const build = `-${size}-${Math.round(mtimeMs)}.v8cache`;
  const nodeFlags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ').trim();
  const flagsTag = nodeFlags ? `-${createHash('sha256').update(nodeFlags).digest('hex').slice(0, 8)}` : '';
  const cacheFile = join(dist, `orch-apiserver.cjs.${process.version}-${process.arch}${flagsTag}${build}`);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {}
  const bytes = readFileSync(bundle);
  const script = new vm.Script(module.wrap(isAscii(bytes) ? bytes.latin1Slice() : bytes.toString('utf8')), {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (!cachedData || script.cachedDataRejected) {
    globalThis[STARTED_HOOK] = () => {
      delete globalThis[STARTED_HOOK];
      try {
        // Caches of older builds go (a server still running an old build, ready after the rebuild,
        // leaves the new build's alone); other Nodes' and other flags' caches of this build stay.
        for (const other of readdirSync(dist)) {
          const builtAt = /-\d+-(\d+)\.v8cache$/.exec(other)?.[1];
          if (builtAt !== undefined && Number(builtAt) < Math.round(mtimeMs)) rmSync(join(dist, other), { force: true });
        }
        const staging = join(dist, `.${process.pid}.v8cache`);
        writeFileSync(staging, script.createCachedData());
        renameSync(staging, cacheFile);
      } catch {
        // A read-only install starts without the cache.
      }
    };
  }
  return script;
}

function runBundle(script) {
  const moduleRecord = { exports: {}, filename: bundle, id: bundle };
  script.runInThisContext()(moduleRecord.exports, module.createRequire(bundle), moduleRecord, bundle, dist);
}

// Node 22.1+ also caches the code of the packages the bundle requires.
module.enableCompileCache?.();

let script;
if (existsSync(bundle)) {
  const stale = bundleStale();
  script = compileBundle();
  if (await stale) script = undefined;
}
if (!script) {
  try {
    await buildBundle();
  } catch (err) {
    console.error(`orch-apiserver: could not build dist/orch-apiserver.cjs from src/: ${err.message}`);
    process.exit(1);
  }
  script = compileBundle();
}
runBundle(script);
