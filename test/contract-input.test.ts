// The inputs of the contract (openapi/README.md): the vendored upstream material under openapi/upstream,
// checked on its own on a clean clone (and against ../shared/reference where that is present), and the
// overlays' schema patches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Json } from '../codegen/canonical-json.ts';
import { refsOf } from '../codegen/closure.ts';
import { merge } from '../codegen/merge-contract.ts';
import { loadOverlays, type KindOverlay, type Overlays } from '../codegen/overlays.ts';
import type { SchemaPatch } from '../codegen/schema-patches.ts';
import { GENERATED_KEY, loadUpstream, UPSTREAM_DIR } from '../codegen/upstream.ts';
import { vendorFiles } from '../scripts/vendor-upstream.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const contractDir = path.join(repoRoot, 'openapi');
const upstreamDir = path.join(contractDir, UPSTREAM_DIR);
const referenceDir = path.resolve(repoRoot, '..', 'shared', 'reference');

const overlays = loadOverlays(contractDir);
const upstream = loadUpstream(contractDir);
const vendored = ['openapi', 'proto'].flatMap((sub) => readdirSync(path.join(upstreamDir, sub)).map((f) => `${sub}/${f}`));

test('every vendored file says it is generated input, from what and by which script', () => {
  assert.ok(vendored.length > 10);
  for (const file of vendored) {
    const doc = JSON.parse(readFileSync(path.join(upstreamDir, file), 'utf8'));
    const header = doc[GENERATED_KEY];
    assert.deepEqual(Object.keys(doc), [GENERATED_KEY, file.startsWith('openapi/') ? 'schemas' : 'messages'], file);
    assert.match(header.by, /scripts\/vendor-upstream\.ts/, file);
    assert.equal(header.release, '1.31', file);
    assert.match(header.from, file.startsWith('openapi/') ? /api\/openapi-spec\/v3/ : /generated\.proto/, file);
    assert.match(header.note, /do not edit/, file);
  }
});

test('the vendored schemas are self-contained: every $ref resolves inside them', () => {
  let count = 0;
  for (const [name, schema] of upstream.schemas) {
    assert.ok(name.startsWith('io.k8s.'), `${name}: vendored under its upstream name`);
    for (const ref of refsOf(schema)) {
      count++;
      assert.ok(upstream.schemas.has(ref), `${name} refers to ${ref}, which is not vendored`);
    }
  }
  assert.ok(count > 500);
});

test("every overlay's upstream roots are vendored", () => {
  for (const overlay of overlays.kinds) {
    for (const v of overlay.versions.filter((v) => v.schema.startsWith('io.k8s.'))) {
      assert.ok(upstream.schemas.has(v.schema), `${overlay.file}: ${v.schema}`);
      if (overlay.resource?.stored) assert.ok(upstream.schemas.has(`${v.schema}List`), `${overlay.file}: ${v.schema}List`);
    }
  }
  for (const root of overlays.meta.roots) assert.ok(upstream.schemas.has(root), `meta.yaml: ${root}`);
});

test('openapi/upstream holds exactly what the overlays need: vendoring it again from itself changes no byte', () => {
  // Fails with the name of a missing schema, and as a difference when something vendored is no longer used.
  const files = vendorFiles(upstream, overlays, 'openapi/upstream');
  assert.deepEqual([...files.keys()].sort(), [...vendored].sort(), 'no file missing, none left over (`npm run vendor-upstream -- --prune`)');
  for (const [file, text] of files) assert.ok(text === readFileSync(path.join(upstreamDir, file), 'utf8'), `${file} differs: unused or reordered content`);
});

test('vendor-upstream --check: openapi/upstream is what ../shared/reference gives', { skip: !existsSync(referenceDir) && 'no ../shared/reference next to the repository' }, () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/vendor-upstream.ts'), '--check', '--ref', referenceDir], { cwd: repoRoot, encoding: 'utf8' });
  assert.match(out, /up to date/);
});

/** The overlays with one kind's overlay changed. */
function withOverlay(kind: string, change: (o: KindOverlay) => KindOverlay): Overlays {
  assert.ok(overlays.kinds.some((o) => o.kind === kind));
  return { ...overlays, kinds: overlays.kinds.map((o) => (o.kind === kind && o.group !== 'events.orch.io' ? change(structuredClone(o)) : o)) };
}
const PORT = 'io.k8s.api.networking.v1.NetworkPolicyPort';
const schemaOf = (docs: Map<string, any>, file: string, name: string) => docs.get(file)!.components.schemas[name];

test('a schema patch adds keywords and replaces a list; null removes a key', () => {
  const patched = withOverlay('NetworkPolicy', (o): KindOverlay => ({
    ...o,
    patches: <SchemaPatch[]>[
      ...o.patches,
      { overlay: o.file, schema: PORT, patch: { properties: { protocol: { enum: ['TCP', 'UDP', 'SCTP'] }, port: { maxLength: 15 } } } },
      { overlay: o.file, schema: 'io.k8s.api.networking.v1.IPBlock', patch: { required: [], properties: { except: { description: null } } } },
    ],
  }));
  const docs = merge(patched, upstream) as Map<string, any>;
  const port = schemaOf(docs, 'apis__networking.orch.io__v1.json', 'io.orch.api.networking.v1.NetworkPolicyPort').properties;
  assert.deepEqual(port.protocol.enum, ['TCP', 'UDP', 'SCTP']);
  assert.equal(port.protocol['x-orch-default'], 'TCP', 'the overlay default stays');
  // port is a $ref to IntOrString: the new keyword sits next to it in an allOf wrapper, as OpenAPI 3.0 needs
  assert.equal(port.port.maxLength, 15);
  assert.ok(Array.isArray(port.port.allOf) && port.port.$ref === undefined);
  const ipBlock = schemaOf(docs, 'apis__networking.orch.io__v1.json', 'io.orch.api.networking.v1.IPBlock');
  assert.deepEqual(ipBlock.required, [], 'upstream required [cidr], replaced whole');
  assert.equal(ipBlock.properties.except.description, undefined);
  assert.equal(ipBlock.properties.except['x-kubernetes-list-type'], 'atomic', 'the rest of the property stays');
});

test('two overlays patching the same key of a schema are an error, as is a schema the overlay does not own', () => {
  // Pod and PodTemplate both own PodSpec (core/v1, which both kinds refer to).
  const hostname = (o: KindOverlay, patch: Json): KindOverlay => ({ ...o, patches: [{ overlay: o.file, schema: 'io.k8s.api.core.v1.PodSpec', patch: { properties: { hostname: patch } } }] });
  const pod = withOverlay('Pod', (o) => hostname(o, { maxLength: 63 }));
  assert.ok(merge(pod, upstream), 'one owner is fine');
  const twice = { ...pod, kinds: pod.kinds.map((o) => (o.kind === 'PodTemplate' ? hostname(o, { maxLength: 64 }) : o)) };
  assert.throws(() => merge(twice, upstream), /kinds\/core\/Pod(Template)?\.yaml and kinds\/core\/Pod(Template)?\.yaml both patch io\.k8s\.api\.core\.v1\.PodSpec\.properties\.hostname\.maxLength/);
  const inside = { ...pod, kinds: pod.kinds.map((o) => (o.kind === 'PodTemplate' ? hostname(o, null) : o)) };
  assert.throws(() => merge(inside, upstream), /both patch io\.k8s\.api\.core\.v1\.PodSpec\.properties\.hostname/, 'removing a key another overlay sets inside it');
  const foreign = withOverlay('Ingress', (o) => ({ ...o, patches: [{ overlay: o.file, schema: 'io.k8s.api.core.v1.PodSpec', patch: { maxProperties: 3 } }] }));
  assert.throws(() => merge(foreign, upstream), /patches\.io\.k8s\.api\.core\.v1\.PodSpec: not a schema this overlay owns/);
  const meta = { ...overlays, meta: { ...overlays.meta, patches: [...overlays.meta.patches, { overlay: 'meta.yaml', schema: PORT, patch: { maxProperties: 3 } }] } };
  assert.throws(() => merge(meta, upstream), /meta\.yaml patches the io\.k8s\.apimachinery schemas only/);
});

test('a kind whose upstream schema is not vendored names the command that vendors it', () => {
  const missing = withOverlay('NetworkPolicy', (o) => ({ ...o, versions: [...o.versions, { ...o.versions[0], version: 'v1beta1', schema: 'io.k8s.api.networking.v1beta1.NetworkPolicy' }] }));
  assert.throws(() => merge(missing, upstream), /io\.k8s\.api\.networking\.v1beta1\.NetworkPolicy(List)? is not vendored in openapi\/upstream: run `npm run vendor-upstream`/);
});
