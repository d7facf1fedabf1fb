#!/usr/bin/env node
// Runs orch-apiserver from its TypeScript sources. A bundle in dist/ (esbuild, made
// here when missing or older than any source file) starts in about two thirds of
// the time of loading every module through tsx; tsx is the fallback.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, rmSync } from 'node:fs';
import module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const bundle = join(dist, 'orch-apiserver.mjs');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
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
 * CommonJS, file by file (prom-client with @opentelemetry/api, protobufjs), cost
 * a start about 80 ms. The rest stay outside: native code (better-sqlite3),
 * tools, and packages loaded on first use (src/util/lazy-packages.ts).
 */
const BUNDLED_PACKAGES = /^(prom-client|@opentelemetry\/api|tdigest|bintrees|protobufjs|@protobufjs\/[^/]+)(\/|$)/;
const bundledPackages = {
  name: 'bundled-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED_PACKAGES.test(args.path) || args.path.startsWith('node:') ? undefined : { path: args.path, external: true }));
  },
};

async function ensureBundle() {
  const sources = Math.max(newestSource(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs);
  if (existsSync(bundle) && statSync(bundle).mtimeMs >= sources) return true;
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return false;
  }
  // Built beside and renamed into place, so concurrent starts never see half a bundle.
  const staging = join(dist, `.build-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  await esbuild.build({
    entryPoints: [join(root, 'src/cli/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [sourceRelativeUrls, bundledPackages],
    // The CommonJS packages bundled above require Node's built-in modules.
    banner: { js: "import { createRequire as __orchCreateRequire } from 'node:module'; const require = __orchCreateRequire(import.meta.url);" },
    sourcemap: 'linked',
    outfile: join(staging, 'orch-apiserver.mjs'),
    logLevel: 'error',
  });
  renameSync(join(staging, 'orch-apiserver.mjs.map'), `${bundle}.map`);
  renameSync(join(staging, 'orch-apiserver.mjs'), bundle);
  rmSync(staging, { recursive: true, force: true });
  return true;
}

// Node 22.1+ keeps V8's compiled code of the bundle between starts (parsing it was 22 ms of a
// 150 ms start on Node 20, which has no such cache).
module.enableCompileCache?.();

let bundled = false;
try {
  bundled = await ensureBundle();
} catch (err) {
  console.error(`orch-apiserver: bundling failed, running from sources: ${err.message}`);
}
if (bundled) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
