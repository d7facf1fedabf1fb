/**
 * The vendored upstream input of the contract, openapi/upstream/ (written by
 * scripts/vendor-upstream.ts, never edited):
 *
 *   openapi/<Go package>.json     {generated, schemas: {<upstream name>: <schema, verbatim>}}
 *   proto/<proto package>.json    {generated, messages: {<full name>: [{name, number, label, type}, ...]}}
 *
 * Schemas come from Kubernetes 1.31's api/openapi-spec/v3 documents, messages
 * from its generated.proto files, parsed (fields in .proto order, message
 * types as full names). Both are grouped by package so a diff after
 * re-vendoring reads per API group.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson, isObject, type JsonObject } from './canonical-json.ts';
import { packageOf } from './renaming.ts';
import type { UpstreamProtoField, UpstreamProtoIndex } from './protobuf-fields.ts';

export const UPSTREAM_DIR = 'upstream';
/** The top-level key that marks a vendored file as generated input. */
export const GENERATED_KEY = 'generated';

/** Upstream schemas by upstream name, and upstream messages by full name. */
export interface UpstreamInput {
  schemas: Map<string, JsonObject>;
  proto: UpstreamProtoIndex;
}

const HEADER = {
  by: 'scripts/vendor-upstream.ts (npm run vendor-upstream)',
  release: '1.31',
  note: 'Generated input of the contract: do not edit. Change the overlays (openapi/kinds/, openapi/meta.yaml) and run `npm run vendor-upstream`.',
};
const FROM = {
  openapi: 'kubernetes release-1.31 api/openapi-spec/v3/*.json (../shared/reference/openapi)',
  proto: 'k8s.io/api, k8s.io/apimachinery, k8s.io/apiextensions-apiserver v0.31.14 generated.proto (../shared/reference/proto)',
};

/** The files of openapi/upstream/ for the given input, path (relative to it) → text. */
export function upstreamFiles(input: UpstreamInput): Map<string, string> {
  const groups = new Map<string, { schemas?: JsonObject; messages?: JsonObject }>();
  const group = (file: string) => groups.get(file) ?? groups.set(file, {}).get(file)!;
  for (const name of [...input.schemas.keys()].sort()) {
    (group(`openapi/${packageOf(name)}.json`).schemas ??= {})[name] = input.schemas.get(name)!;
  }
  for (const name of [...input.proto.keys()].sort()) {
    const fields = [...input.proto.get(name)!].map(([field, f]) => ({ name: field, ...f }));
    (group(`proto/${packageOf(name)}.json`).messages ??= {})[name] = fields as unknown as JsonObject;
  }
  const files = new Map<string, string>();
  for (const [file, content] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    files.set(file, canonicalJson({ [GENERATED_KEY]: { ...HEADER, from: content.schemas ? FROM.openapi : FROM.proto }, ...content }));
  }
  return files;
}

/** Reads openapi/upstream/ of a contract directory. */
export function loadUpstream(contractDir: string): UpstreamInput {
  const dir = path.join(contractDir, UPSTREAM_DIR);
  const input: UpstreamInput = { schemas: new Map(), proto: new Map() };
  for (const sub of ['openapi', 'proto']) {
    const subdir = path.join(dir, sub);
    if (!existsSync(subdir)) continue;
    for (const file of readdirSync(subdir).filter((f) => f.endsWith('.json')).sort()) {
      const where = `${UPSTREAM_DIR}/${sub}/${file}`;
      const doc = JSON.parse(readFileSync(path.join(subdir, file), 'utf8'));
      if (!isObject(doc[GENERATED_KEY])) throw new Error(`${where}: no "${GENERATED_KEY}" header: not written by scripts/vendor-upstream.ts`);
      for (const [name, schema] of Object.entries<JsonObject>(doc.schemas ?? {})) input.schemas.set(name, schema);
      for (const [name, fields] of Object.entries<Array<UpstreamProtoField & { name: string }>>(doc.messages ?? {})) {
        input.proto.set(name, new Map(fields.map(({ name: field, ...f }) => [field, f])));
      }
    }
  }
  return input;
}
