/**
 * vendor-upstream.ts — writes openapi/upstream/, the upstream input of the
 * contract: exactly the Kubernetes 1.31 schemas the overlays need (the closure
 * over `$ref` of their roots, each schema verbatim under its upstream name) and
 * the protobuf fields of those schemas' messages (parsed from generated.proto).
 * codegen reads these files and never the reference data, so a clone builds
 * without ../shared/reference. Format: codegen/upstream.ts.
 *
 *   npm run vendor-upstream                       from ../shared/reference next to the clone
 *   npm run vendor-upstream -- --ref DIR          from another reference directory (openapi/*.json, proto/**)
 *   npm run vendor-upstream -- --check            exit 1 when openapi/upstream differs from what would be written
 *   npm run vendor-upstream -- --prune            from openapi/upstream itself: drops what no overlay needs any more
 *                                                 (needs no reference; fails when an overlay needs something new)
 *   --contract DIR                                another contract directory than openapi/
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson, type JsonObject } from '../codegen/canonical-json.ts';
import { closure, contractRoots } from '../codegen/closure.ts';
import { loadOverlays, type Overlays } from '../codegen/overlays.ts';
import { messagesUsedBy, type UpstreamProtoIndex } from '../codegen/protobuf-fields.ts';
import { loadUpstream, upstreamFiles, UPSTREAM_DIR, type UpstreamInput } from '../codegen/upstream.ts';
import { loadProtoDir } from './parse-proto.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The files of openapi/upstream/ (relative path → text) that `overlays` need, taken from `source`. */
export function vendorFiles(source: UpstreamInput, overlays: Overlays, sourceName: string): Map<string, string> {
  const names = closure(source.schemas, contractRoots(overlays), (name) => `schema ${name} is not in ${sourceName}`);
  const schemas = new Map([...names].sort().map((n) => [n, source.schemas.get(n)!]));
  const messages = new Set([...schemas].flatMap(([name, schema]) => messagesUsedBy(source.proto, name, schema)));
  const proto: UpstreamProtoIndex = new Map([...messages].sort().map((m) => [m, source.proto.get(m)!]));
  return upstreamFiles({ schemas, proto });
}

/** Every schema of the reference's OpenAPI documents; a name two documents define differently is an error. */
function referenceInput(refDir: string): UpstreamInput {
  const openapiDir = path.join(refDir, 'openapi');
  const schemas = new Map<string, JsonObject>();
  const seenIn = new Map<string, string>();
  for (const file of readdirSync(openapiDir).filter((f) => f.endsWith('.json')).sort()) {
    const doc = JSON.parse(readFileSync(path.join(openapiDir, file), 'utf8'));
    for (const [name, schema] of Object.entries<JsonObject>(doc.components?.schemas ?? {})) {
      const seen = schemas.get(name);
      if (seen && canonicalJson(seen) !== canonicalJson(schema)) throw new Error(`schema ${name} differs between ${seenIn.get(name)} and ${file}`);
      if (!seen) schemas.set(name, schema), seenIn.set(name, file);
    }
  }
  return { schemas, proto: loadProtoDir(path.join(refDir, 'proto')) };
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name]));
}

function main(argv: string[]): void {
  const option = (name: string, fallback: string) => {
    const i = argv.indexOf(name);
    if (i >= 0 && !argv[i + 1]) throw new Error(`${name} needs a value`);
    return i >= 0 ? path.resolve(argv[i + 1]) : fallback;
  };
  const withValue = ['--ref', '--contract'];
  for (const [i, a] of argv.entries()) {
    if (![...withValue, '--check', '--prune'].includes(a) && !withValue.includes(argv[i - 1])) throw new Error(`unknown argument ${a} (see the header of scripts/vendor-upstream.ts)`);
  }
  const contractDir = option('--contract', path.join(repoRoot, 'openapi'));
  const refDir = option('--ref', path.resolve(repoRoot, '..', 'shared', 'reference'));
  const outDir = path.join(contractDir, UPSTREAM_DIR);
  const prune = argv.includes('--prune');
  if (!prune && !existsSync(refDir)) throw new Error(`reference directory ${refDir} not found (use --ref DIR, or --prune to work from openapi/upstream alone)`);
  const source = prune ? loadUpstream(contractDir) : referenceInput(refDir);
  const files = vendorFiles(source, loadOverlays(contractDir), prune ? outDir : refDir);
  const existing = listFiles(outDir);
  if (argv.includes('--check')) {
    const stale = [...files].filter(([f, text]) => !existsSync(path.join(outDir, f)) || readFileSync(path.join(outDir, f), 'utf8') !== text).map(([f]) => f);
    const extra = existing.filter((f) => !files.has(f));
    if (stale.length || extra.length) {
      console.error(`openapi/upstream is stale: ${[...stale, ...extra].join(', ')}; run \`npm run vendor-upstream\``);
      process.exit(1);
    }
    console.log('openapi/upstream is up to date');
    return;
  }
  for (const f of existing) if (!files.has(f)) rmSync(path.join(outDir, f));
  for (const [f, text] of files) {
    mkdirSync(path.dirname(path.join(outDir, f)), { recursive: true });
    writeFileSync(path.join(outDir, f), text);
  }
  const bytes = [...files.values()].reduce((n, t) => n + Buffer.byteLength(t), 0);
  console.log(`wrote ${files.size} files (${bytes} bytes) into ${path.relative(process.cwd(), outDir) || '.'}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    console.error(`vendor-upstream: ${(err as Error).message}`);
    process.exit(1);
  }
}
