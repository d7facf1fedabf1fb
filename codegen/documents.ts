/**
 * The documents of the merged contract: one per served group-version
 * (`api__v1`, `apis__<group>__<version>`, the upstream /openapi/v3 file
 * names) and the shared `meta__v1`. Their `info` comes from
 * openapi/documents.yaml; a document it does not list gets the defaults below,
 * so a new group needs no entry there.
 */
import type { JsonObject } from './canonical-json.ts';
import type { DocumentInfo } from './overlays.ts';

export interface Documents {
  /** Upstream Go package (`io.k8s.api.core.v1`) → the stem of the document holding its schemas. */
  byPackage: Map<string, string>;
  /** Stem → the group-version it serves and the upstream groups its kinds come from. */
  stems: Map<string, { group: string; version: string; upstreamGroups: Set<string> }>;
}

export const stemOf = (group: string, version: string): string => (group ? `apis__${group}__${version}` : `api__${version}`);

/** Upstream's /openapi/v3 document of an upstream group-version. */
const upstreamFile = (group: string, version: string) => `${stemOf(group, version)}_openapi.json`;

/** The `info` of a document: documents.yaml's entry over the defaults. */
export function documentInfo(stem: string, docs: Documents, table: ReadonlyMap<string, DocumentInfo>): JsonObject {
  const served = docs.stems.get(stem);
  const given = table.get(stem) ?? {};
  const where = served && (served.group ? `the ${served.group} group, version ${served.version}, served under /apis/${served.group}/${served.version}` : `the core group (""), version ${served.version}, served under /api/${served.version}`);
  const upstream = given.upstream ?? (served ? [...served.upstreamGroups].sort().map((g) => upstreamFile(g, served.version)) : []);
  return {
    title: given.title ?? (served ? `orch ${served.group ? `${served.group}/` : 'core '}${served.version}` : `orch ${stem}`),
    version: served?.version ?? 'v1',
    description: given.description ?? (where ? `Kinds of ${where}. paths are emitted by the generator.` : `Schemas shared by the other documents (${stem}).`),
    ...(upstream.length
      ? {
          'x-orch-upstream': {
            release: 'kubernetes release-1.31',
            openapi: upstream.map((f) => `api/openapi-spec/v3/${f}`),
            proto: 'k8s.io/api, k8s.io/apimachinery v0.31.14 generated.proto',
            generator: 'codegen/merge-contract.ts from openapi/upstream and the overlays',
          },
        }
      : {}),
  };
}
