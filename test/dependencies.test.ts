/**
 * Every package the code imports is declared in package.json, and what the
 * server runs (src/, bin/) needs only `dependencies`: an install without dev
 * dependencies starts it, with no TypeScript loader (issue 31, item 6).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { ROOT } from './helpers/server.ts';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const runtime = new Set(Object.keys(manifest.dependencies ?? {}));
const development = new Set(Object.keys(manifest.devDependencies ?? {}));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

/** The packages a file imports: static and dynamic imports and requires of bare specifiers, by package name. */
function importedPackages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const names = new Set<string>();
  // A bare specifier is an npm package name (with an optional scope and subpath): prose and code in strings are not.
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bloadPackage\s*\(\s*|^\s*import\s+)(['"])((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(?:\/[\w./-]*)?|node:[\w/]+|\.{1,2}\/[^'"\n]*)\1/gm;
  for (const match of text.matchAll(specifier)) {
    const spec = match[2];
    if (LUA_MODULES.has(`${relative(ROOT, file)}:${spec}`)) continue;
    if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0])) continue;
    names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
  }
  return [...names];
}

/** wrk's Lua scripts, held in a TypeScript string, require LuaJIT's own ffi module. */
const LUA_MODULES = new Set([`${join('scripts', 'bench', 'wrk-scripts.ts')}:ffi`]);

/** Generated decoders hold strings that look like imports to the scanner; they import nothing but relative modules. */
const isGenerated = (file: string) => relative(ROOT, file).startsWith(join('src', 'generated'));

test('every package the code imports is declared in package.json', () => {
  const undeclared: string[] = [];
  for (const dir of ['src', 'codegen', 'scripts', 'test', 'bin']) {
    for (const file of sources(join(ROOT, dir))) {
      if (isGenerated(file)) continue;
      for (const name of importedPackages(file)) if (!runtime.has(name) && !development.has(name)) undeclared.push(`${relative(ROOT, file)}: ${name}`);
    }
  }
  assert.deepEqual(undeclared, []);
});

test('the server (src/, bin/) imports only runtime dependencies, and no TypeScript loader', () => {
  const devOnly: string[] = [];
  for (const dir of ['src', 'bin']) {
    for (const file of sources(join(ROOT, dir))) {
      if (isGenerated(file)) continue;
      for (const name of importedPackages(file)) if (!runtime.has(name)) devOnly.push(`${relative(ROOT, file)}: ${name}`);
    }
  }
  assert.deepEqual(devOnly, []);
  assert.ok(!runtime.has('tsx'), 'tsx is a development dependency: tests and codegen run through it, the server does not');
  assert.ok(runtime.has('esbuild'), 'the bin builds its bundle with esbuild, a runtime dependency');
});

test('the scanner sees static, dynamic and required packages', () => {
  const probe = join(ROOT, 'test', 'dependencies.test.ts');
  assert.ok(importedPackages(probe).length === 0, 'this file imports only node: modules and relative ones');
  // The bin's dynamic import of esbuild is found (a scanner that saw nothing would pass the tests above).
  assert.ok(importedPackages(join(ROOT, 'bin', 'orch-apiserver.mjs')).includes('esbuild'));
  assert.ok(importedPackages(join(ROOT, 'src', 'util', 'lazy-packages.ts')).includes('yaml'));
});
