/**
 * Discovery documents built from the generated kind registry (FACTS 4):
 * /api, /api/v1, /apis, /apis/{group}, /apis/{group}/{version}, and the
 * aggregated APIGroupDiscoveryList served on /api and /apis by content
 * negotiation (`g=apidiscovery.orch.io;v=v2`).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { parseAccept } from '../../http/negotiation.ts';
import { writeJsonText } from '../../http/respond.ts';
import type { KindDefinition } from '../../registry/kind.ts';
import type { ApiRequest } from '../filters/api-request.ts';
import type { Endpoint } from './endpoint.ts';

export interface DiscoveryDocuments {
  /** path -> JSON body */
  legacy: Map<string, string>;
  /** `api` / `apis` -> aggregated document and its ETag */
  aggregated: Map<string, { body: string; etag: string }>;
}

function apiResources(kinds: readonly KindDefinition[]) {
  const resources: any[] = [];
  for (const k of kinds) {
    const resource: Record<string, unknown> = {
      name: k.plural,
      singularName: k.singular,
      namespaced: k.namespaced,
      kind: k.kind,
      verbs: [...k.verbs],
    };
    if (k.shortNames.length) resource.shortNames = [...k.shortNames];
    if (k.categories.length) resource.categories = [...k.categories];
    if (k.stored) resource.storageVersionHash = k.storageVersionHash;
    resources.push(resource);
    for (const sub of k.subresources) {
      const subKind = (sub as any).kind ?? k.kind;
      const entry: Record<string, unknown> = { name: `${k.plural}/${sub.name}`, singularName: '', namespaced: k.namespaced };
      if ((sub as any).group !== undefined) entry.group = (sub as any).group;
      if ((sub as any).version !== undefined) entry.version = (sub as any).version;
      entry.kind = subKind;
      entry.verbs = [...sub.verbs].sort();
      resources.push(entry);
    }
  }
  return resources;
}

/** A version's rank for apimachinery's CompareKubeAwareVersionStrings: GA, then beta, then alpha; higher numbers first. */
function versionRank(version: string): [number, number, number] | undefined {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (!m) return undefined;
  return [m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
}

/** Upstream's version priority (version.CompareKubeAwareVersionStrings): the first is the preferred version. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ra = versionRank(a);
  const rb = versionRank(b);
  if (!ra || !rb) return ra ? -1 : rb ? 1 : a < b ? -1 : a > b ? 1 : 0;
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return rb[i] - ra[i];
  return 0;
}

function groupVersions(kinds: readonly KindDefinition[]): Map<string, Map<string, KindDefinition[]>> {
  const groups = new Map<string, Map<string, KindDefinition[]>>();
  for (const k of kinds) {
    if (!groups.has(k.group)) groups.set(k.group, new Map());
    const versions = groups.get(k.group)!;
    if (!versions.has(k.version)) versions.set(k.version, []);
    versions.get(k.version)!.push(k);
  }
  // A group served at several versions lists them by priority, the preferred first (autoscaling: v2, v1).
  for (const [group, versions] of groups) {
    if (versions.size > 1) groups.set(group, new Map([...versions].sort(([a], [b]) => compareKubeAwareVersions(a, b))));
  }
  return groups;
}

function apiGroup(group: string, versions: string[], serverAddress: string) {
  const list = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return {
    name: group,
    versions: list,
    preferredVersion: list[0],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function aggregatedResource(k: KindDefinition) {
  const entry: Record<string, unknown> = {
    resource: k.plural,
    responseKind: { group: k.group, version: k.version, kind: k.kind },
    scope: k.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: k.singular,
    verbs: [...k.verbs],
  };
  if (k.shortNames.length) entry.shortNames = [...k.shortNames];
  if (k.categories.length) entry.categories = [...k.categories];
  if (k.subresources.length) {
    entry.subresources = k.subresources.map((sub: any) => ({
      subresource: sub.name,
      responseKind: { group: sub.group ?? k.group, version: sub.version ?? k.version, kind: sub.kind ?? k.kind },
      verbs: [...sub.verbs].sort(),
    }));
  }
  return entry;
}

function aggregatedDocument(groups: Array<[string, Map<string, KindDefinition[]>]>) {
  const body = JSON.stringify({
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.orch.io/v2',
    metadata: {},
    items: groups.map(([group, versions]) => ({
      metadata: { name: group, creationTimestamp: null },
      versions: [...versions].map(([version, kinds]) => ({
        version,
        resources: kinds.map(aggregatedResource),
        freshness: 'Current',
      })),
    })),
  });
  return { body, etag: `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"` };
}

export function buildDiscovery(kinds: readonly KindDefinition[], serverAddress: string): DiscoveryDocuments {
  const legacy = new Map<string, string>();
  const groups = groupVersions(kinds);
  const serverAddressByClientCIDRs = [{ clientCIDR: '0.0.0.0/0', serverAddress }];
  legacy.set('/api', JSON.stringify({ kind: 'APIVersions', versions: [...(groups.get('')?.keys() ?? [])], serverAddressByClientCIDRs }));
  const named = [...groups].filter(([g]) => g !== '');
  legacy.set('/apis', JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: named.map(([g, v]) => apiGroup(g, [...v.keys()], serverAddress)) }));
  for (const [group, versions] of groups) {
    if (group) legacy.set(`/apis/${group}`, JSON.stringify({ kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, [...versions.keys()], serverAddress) }));
    for (const [version, members] of versions) {
      const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
      const head = group ? { kind: 'APIResourceList', apiVersion: 'v1' } : { kind: 'APIResourceList' };
      legacy.set(path, JSON.stringify({ ...head, groupVersion: group ? `${group}/${version}` : version, resources: apiResources(members) }));
    }
  }
  const aggregated = new Map([
    ['/api', aggregatedDocument([...groups].filter(([g]) => g === ''))],
    ['/apis', aggregatedDocument(named)],
  ]);
  return { legacy, aggregated };
}

/** Whether the client asks for the aggregated form (its first media range that names a form). */
function wantsAggregatedDiscovery(req: IncomingMessage): boolean {
  for (const range of parseAccept(req.headers.accept)) {
    if (range.params.as === 'APIGroupDiscoveryList' && range.params.g === 'apidiscovery.orch.io' && (range.params.v === 'v2' || range.params.v === 'v2beta1')) return true;
    if (!range.params.as) return false;
  }
  return false;
}

/** The discovery paths: the aggregated document where asked for (with its ETag), else the legacy ones. */
export class DiscoveryEndpoint implements Endpoint {
  readonly methods = 'read';

  /** Replaced whenever the served custom kinds change. */
  constructor(public documents: DiscoveryDocuments) {}

  serve({ req, res, encode }: ApiRequest, path: string): boolean {
    const aggregated = this.documents.aggregated.get(path);
    if (aggregated && wantsAggregatedDiscovery(req)) {
      if (req.headers['if-none-match'] === aggregated.etag) {
        res.writeHead(304, { ETag: aggregated.etag, Vary: 'Accept' });
        res.end();
        return true;
      }
      res.writeHead(200, {
        'Content-Type': 'application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList',
        ETag: aggregated.etag,
        Vary: 'Accept',
        'Cache-Control': 'public',
      });
      res.end(aggregated.body);
      return true;
    }
    const legacy = this.documents.legacy.get(path);
    if (!legacy) return false;
    writeJsonText(res, 200, legacy, encode);
    return true;
  }

  refusesOtherMethods(path: string): boolean {
    return this.documents.legacy.has(path);
  }
}
