/**
 * derive-contract.ts — one-time (re-runnable) import tool that derives the
 * contract directory `openapi/` from the upstream reference data in
 * `../shared/reference` (Kubernetes release-1.31 OpenAPI v3 documents and
 * `generated.proto` files).
 *
 * Usage (from the repository root):
 *   npx tsx scripts/derive-contract.ts [--ref <reference dir>] [--out <dir>]
 *
 *   --ref  directory holding `openapi/*.json` and `proto/` (default: ../shared/reference
 *          next to the repository)
 *   --out  output directory (default: openapi/ in the repository)
 *
 * Output is deterministic: 2-space JSON, object keys sorted, trailing newline.
 * The script writes exactly the files listed in DOCS below; hand-written files
 * in the output directory (README.md, extra group documents) are left alone.
 *
 * What it does (see openapi/README.md for the format it produces):
 *  1. collects the schemas transitively referenced by the served kinds (plus a
 *     fixed set of meta/v1 schemas the server needs even if nothing refers to
 *     them) from the upstream documents;
 *  2. renames vendor identifiers (`io.k8s.*` schema names → `io.orch.*`,
 *     `*.k8s.io` API groups → `*.orch.io`, identifiers inside descriptions),
 *     keeping `x-kubernetes-*` extension names and URLs unchanged;
 *  3. splits the schemas over one shared meta document and one document per
 *     group-version, turning cross-document references into external `$ref`s;
 *  4. annotates protobuf field numbers / message names parsed from the
 *     upstream `generated.proto` files, the `x-orch-resource` registry data of
 *     each kind, and `x-orch-default` server-side defaults;
 *  5. verifies (and if needed adds) the list/map semantics extensions that
 *     server-side apply and strategic merge patch rely on.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------
// JSON helpers

type Json = null | boolean | number | string | Json[] | JsonObject;
interface JsonObject {
  [key: string]: Json;
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function clone<T extends Json>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Deterministic serialisation: 2-space indent, keys sorted by code unit, trailing newline. */
export function canonicalJson(value: Json): string {
  const out: string[] = [];
  const write = (v: Json, indent: string): void => {
    if (Array.isArray(v)) {
      if (v.length === 0) {
        out.push('[]');
        return;
      }
      const inner = indent + '  ';
      out.push('[\n');
      v.forEach((item, i) => {
        out.push(inner);
        write(item, inner);
        out.push(i < v.length - 1 ? ',\n' : '\n');
      });
      out.push(indent + ']');
      return;
    }
    if (isObject(v)) {
      const keys = Object.keys(v).sort();
      if (keys.length === 0) {
        out.push('{}');
        return;
      }
      const inner = indent + '  ';
      out.push('{\n');
      keys.forEach((k, i) => {
        out.push(inner + JSON.stringify(k) + ': ');
        write(v[k] as Json, inner);
        out.push(i < keys.length - 1 ? ',\n' : '\n');
      });
      out.push(indent + '}');
      return;
    }
    out.push(JSON.stringify(v));
  };
  write(value, '');
  return out.join('') + '\n';
}

function fail(msg: string): never {
  throw new Error(`derive-contract: ${msg}`);
}

// ---------------------------------------------------------------------------
// Command line

const scriptDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(scriptDir, '..');

function parseArgs(argv: string[]): { ref: string; out: string } {
  let ref = path.resolve(repoRoot, '..', 'shared', 'reference');
  let out = path.resolve(repoRoot, 'openapi');
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) fail(`${a} needs a value`);
      return v;
    };
    if (a === '--ref') ref = path.resolve(next());
    else if (a === '--out') out = path.resolve(next());
    else if (a.startsWith('--ref=')) ref = path.resolve(a.slice(6));
    else if (a.startsWith('--out=')) out = path.resolve(a.slice(6));
    else if (a === '-h' || a === '--help') {
      process.stdout.write('usage: derive-contract.ts [--ref <reference dir>] [--out <dir>]\n');
      process.exit(0);
    } else fail(`unknown argument ${a}`);
  }
  return { ref, out };
}

// ---------------------------------------------------------------------------
// Renaming rule (FACTS §0)

const UPSTREAM_SCHEMA_PREFIX = 'io.k8s.';
const ORCH_SCHEMA_PREFIX = 'io.orch.';

export function renameSchemaName(name: string): string {
  if (!name.startsWith(UPSTREAM_SCHEMA_PREFIX)) fail(`unexpected schema name ${name}`);
  return ORCH_SCHEMA_PREFIX + name.slice(UPSTREAM_SCHEMA_PREFIX.length);
}

/** API group rename: `x.k8s.io` → `x.orch.io`; the spec spells flowcontrol without `apiserver.`. */
export function renameGroup(group: string): string {
  if (group === 'flowcontrol.apiserver.k8s.io') return 'flowcontrol.orch.io';
  return group.replace(/(^|\.)k8s\.io$/, '$1orch.io').replace(/(^|\.)kubernetes\.io$/, '$1orch.io');
}

/**
 * Spans of description text that are references to upstream material and stay
 * byte-for-byte: URLs (https://git.k8s.io/..., https://kubernetes.io/docs/...)
 * and Go module paths of upstream projects (sigs.k8s.io/structured-merge-diff).
 */
const PROTECTED_SPANS = /(https?:\/\/[^\s"'<>()[\]]+|\bsigs\.k8s\.io\/[A-Za-z0-9._/-]+)/;

/** Identifier rule inside prose: rename identifiers, keep prose words ("Kubernetes", "kubelet") and URLs. */
export function renameText(text: string): string {
  return text
    .split(PROTECTED_SPANS)
    .map((part, i) => {
      if (i % 2 === 1) return part; // protected span (captured by the split regex)
      return part
        .replace(/\bflowcontrol\.apiserver\.k8s\.io\b/g, 'flowcontrol.orch.io')
        .replace(/\b((?:[a-z0-9-]+\.)*)k8s\.io\b/g, '$1orch.io')
        .replace(/\b((?:[a-z0-9-]+\.)*)kubernetes\.io\//g, '$1orch.io/')
        .replace(/\bvnd\.kubernetes\b/g, 'vnd.orch')
        .replace(/\bkube-(system|public|node-lease)\b/g, 'orch-$1');
    })
    .join('');
}

// ---------------------------------------------------------------------------
// Protobuf: tiny parser for the upstream generated.proto files

export interface ProtoField {
  number: number;
  label: 'optional' | 'repeated' | 'required' | 'map';
  type: string;
}
export type ProtoIndex = Map<string, Map<string, ProtoField>>;

/** Parses `package`, (nested) `message` blocks and their `optional|repeated|required|map<K,V>` fields. */
export function parseProto(source: string, index: ProtoIndex = new Map()): ProtoIndex {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
  const tokens = text.match(/map\s*<[^>]*>|"(?:[^"\\]|\\.)*"|[A-Za-z_.][A-Za-z0-9_.]*|\d+|[{};=[\]<>,()]/g) ?? [];
  let pkg = '';
  const scopes: string[] = []; // message name stack
  const blockKinds: ('message' | 'other')[] = [];
  let i = 0;
  const skipStatement = (): void => {
    while (i < tokens.length && tokens[i] !== ';') i++;
    i++;
  };
  while (i < tokens.length) {
    const t = tokens[i];
    if (t === 'package') {
      pkg = tokens[i + 1] ?? '';
      skipStatement();
    } else if (t === 'syntax' || t === 'import' || t === 'option') {
      skipStatement();
    } else if (t === 'message') {
      const name = tokens[i + 1];
      if (tokens[i + 2] !== '{') fail(`proto: expected { after message ${name}`);
      scopes.push(name);
      blockKinds.push('message');
      index.set([pkg, ...scopes].join('.'), new Map());
      i += 3;
    } else if (t === 'enum' || t === 'oneof' || t === 'service' || t === 'extend') {
      // not used by the Kubernetes generated.proto files; skip the block, but keep
      // oneof members (they are ordinary fields of the enclosing message)
      if (t === 'oneof') {
        blockKinds.push('other');
        i += 3;
      } else {
        let depth = 0;
        while (i < tokens.length) {
          if (tokens[i] === '{') depth++;
          else if (tokens[i] === '}' && --depth === 0) break;
          i++;
        }
        i++;
      }
    } else if (t === '}') {
      const kind = blockKinds.pop();
      if (kind === 'message') scopes.pop();
      i++;
    } else if (t === ';') {
      i++;
    } else if (scopes.length > 0) {
      // field: [label] type name = N [options] ;
      let label: ProtoField['label'] = 'optional';
      let type: string;
      if (t.startsWith('map')) {
        label = 'map';
        type = t.replace(/\s+/g, '');
        i++;
      } else {
        if (t === 'optional' || t === 'repeated' || t === 'required') {
          label = t;
          i++;
        }
        type = tokens[i++];
      }
      const name = tokens[i++];
      if (tokens[i++] !== '=') fail(`proto: cannot parse field ${name} in ${scopes.join('.')}`);
      const number = Number(tokens[i++]);
      if (!Number.isInteger(number)) fail(`proto: bad field number for ${name}`);
      skipStatement();
      index.get([pkg, ...scopes].join('.'))!.set(name, { number, label, type });
    } else {
      fail(`proto: unexpected token ${t}`);
    }
  }
  return index;
}

function loadProtoIndex(protoDir: string): ProtoIndex {
  const index: ProtoIndex = new Map();
  const walk = (dir: string): string[] =>
    readdirSync(dir)
      .sort()
      .flatMap((e) => {
        const p = path.join(dir, e);
        return statSync(p).isDirectory() ? walk(p) : e.endsWith('.proto') ? [p] : [];
      });
  for (const file of walk(protoDir)) parseProto(readFileSync(file, 'utf8'), index);
  return index;
}

/** A message type named in a field, resolved from the enclosing message's package as protoc does. */
function resolveProtoType(index: ProtoIndex, fromMessage: string, type: string): string | undefined {
  if (index.has(type)) return type;
  const scopes = fromMessage.split('.');
  for (let i = scopes.length - 1; i > 0; i--) {
    const candidate = [...scopes.slice(0, i), type].join('.');
    if (index.has(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The proto field of a JSON property: the field of the same name (Go's
 * initialisms may differ in case: `uID` is `uid`), or, for a Go struct embedded
 * in its parent (JSON inlines its fields; protobuf nests them in one field), the
 * embedding field with `inline` saying where the property sits inside it.
 */
function protoFieldOf(
  index: ProtoIndex,
  messageName: string,
  message: Map<string, ProtoField>,
  property: string,
  jsonProperties: Set<string>,
): { outer: string; number: number; inline?: JsonObject } | undefined {
  // Go field names for JSON names that are not identifiers: `$ref` is Ref, `x-kubernetes-list-type` XKubernetesListType.
  const goName = property.replace(/^\$/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  const direct = message.get(property)
    ? property
    : message.get(goName)
      ? goName
      : [...message.keys()].find((f) => f.toLowerCase() === property.toLowerCase() && !message.has(f.toLowerCase()) && f !== property);
  if (direct && message.get(direct)) return { outer: direct, number: message.get(direct)!.number };
  for (const [fname, field] of message) {
    // Only a field no JSON property names can be an embedding.
    if (field.label !== 'optional' || jsonProperties.has(fname)) continue;
    const embedded = resolveProtoType(index, messageName, field.type);
    const inner = embedded && index.get(embedded);
    if (!inner || inner.size === 0) continue;
    const innerField = inner.get(property);
    if (!innerField) continue;
    return { outer: fname, number: field.number, inline: { message: embedded, field: innerField.number } };
  }
  return undefined;
}

/**
 * `io.k8s.api.networking.v1.NetworkPolicyPort` → `k8s.io.api.networking.v1.NetworkPolicyPort`; go-to-protobuf
 * spells a Go module's `-` as `_` in the package (`k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1`).
 */
function protoMessageName(upstreamSchema: string): string {
  return 'k8s.io.' + upstreamSchema.slice(UPSTREAM_SCHEMA_PREFIX.length).replaceAll('-', '_');
}

// ---------------------------------------------------------------------------
// Contract configuration

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const CORE = 'io.k8s.api.core.v1.';
const NET = 'io.k8s.api.networking.v1.';
const AUTHN = 'io.k8s.api.authentication.v1.';
const COORD = 'io.k8s.api.coordination.v1.';
const AUTHZ = 'io.k8s.api.authorization.v1.';
const RBAC = 'io.k8s.api.rbac.v1.';
const APIEXT = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
const AUTOSCALING = 'io.k8s.api.autoscaling.v1.';
const APPS = 'io.k8s.api.apps.v1.';
const BATCH = 'io.k8s.api.batch.v1.';
const DISCOVERY = 'io.k8s.api.discovery.v1.';
const POLICY = 'io.k8s.api.policy.v1.';
const NODE = 'io.k8s.api.node.v1.';
const STORAGE = 'io.k8s.api.storage.v1.';
const FLOWCONTROL = 'io.k8s.api.flowcontrol.v1.';
const AUTOSCALING_V2 = 'io.k8s.api.autoscaling.v2.';
const EVENTS = 'io.k8s.api.events.v1.';
const FLOWCONTROL_V1BETA3 = 'io.k8s.api.flowcontrol.v1beta3.';

interface DocSpec {
  file: string;
  title: string;
  description: string;
  /** upstream documents this one is derived from (for info.x-orch-upstream) */
  upstream: string[];
  owns(upstreamName: string): boolean;
  roots: string[];
}

const UPSTREAM_FILES = [
  'api__v1_openapi.json',
  'apis__networking.k8s.io__v1_openapi.json',
  'apis__authentication.k8s.io__v1_openapi.json',
  'apis__coordination.k8s.io__v1_openapi.json',
  'apis__authorization.k8s.io__v1_openapi.json',
  'apis__rbac.authorization.k8s.io__v1_openapi.json',
  'apis__apiextensions.k8s.io__v1_openapi.json',
  'apis__autoscaling__v1_openapi.json',
  'apis__apps__v1_openapi.json',
  'apis__batch__v1_openapi.json',
  'apis__discovery.k8s.io__v1_openapi.json',
  'apis__policy__v1_openapi.json',
  'apis__node.k8s.io__v1_openapi.json',
  'apis__storage.k8s.io__v1_openapi.json',
  'apis__flowcontrol.apiserver.k8s.io__v1_openapi.json',
  'apis__flowcontrol.apiserver.k8s.io__v1beta3_openapi.json',
  'apis__autoscaling__v2_openapi.json',
  'apis__events.k8s.io__v1_openapi.json',
  'api_openapi.json',
  'apis_openapi.json',
];

/**
 * The document of one named group-version whose kinds (and their lists) are the
 * roots, taken from one upstream document: `what` says what it serves.
 */
function groupDoc(group: string, version: string, prefix: string, kinds: string[], upstream: string, what: string): DocSpec {
  return {
    file: `apis__${group}__${version}.json`,
    title: `orch ${group}/${version}`,
    description: `Kinds of the ${group} group, version ${version}, served under /apis/${group}/${version}: ${what}. paths are emitted by the generator.`,
    upstream: [upstream],
    owns: (n) => n.startsWith(prefix),
    roots: kinds.flatMap((k) => [prefix + k, prefix + k + 'List']),
  };
}

const DOCS: DocSpec[] = [
  {
    file: 'meta__v1.json',
    title: 'orch meta/v1 shared schemas',
    description:
      'Schemas of the meta.orch.io/v1 (apimachinery) types shared by every group-version document. Referenced from the other documents through external $refs.',
    upstream: UPSTREAM_FILES,
    owns: (n) => n.startsWith('io.k8s.apimachinery.'),
    roots: [
      'DeleteOptions',
      'Status',
      'StatusDetails',
      'StatusCause',
      'Preconditions',
      'APIResource',
      'APIResourceList',
      'APIGroup',
      'APIGroupList',
      'APIVersions',
      'GroupVersionForDiscovery',
      'ServerAddressByClientCIDR',
      'WatchEvent',
      // request body schema of every PATCH operation
      'Patch',
    ].map((k) => META + k),
  },
  {
    file: 'api__v1.json',
    title: 'orch core v1',
    description: 'Kinds of the core group (""), version v1, served under /api/v1. paths are emitted by the generator.',
    upstream: ['api__v1_openapi.json'],
    owns: (n) => n.startsWith(CORE),
    roots: ['Namespace', 'ConfigMap', 'Secret', 'ServiceAccount', 'Event', 'Pod', 'Node', 'LimitRange', 'ResourceQuota', 'PersistentVolume', 'PersistentVolumeClaim', 'ReplicationController', 'Endpoints', 'PodTemplate'].flatMap((k) => [CORE + k, CORE + k + 'List']),
  },
  {
    file: 'apis__authentication.orch.io__v1.json',
    title: 'orch authentication.orch.io/v1',
    description:
      'Kinds of the authentication.orch.io group, version v1, served under /apis/authentication.orch.io/v1: reviews computed on create and never stored, and TokenRequest, the body of serviceaccounts/token. paths are emitted by the generator.',
    upstream: ['apis__authentication.k8s.io__v1_openapi.json'],
    owns: (n) => n.startsWith(AUTHN),
    roots: [AUTHN + 'SelfSubjectReview', AUTHN + 'TokenReview', AUTHN + 'TokenRequest'],
  },
  {
    file: 'apis__coordination.orch.io__v1.json',
    title: 'orch coordination.orch.io/v1',
    description:
      'Kinds of the coordination.orch.io group, version v1, served under /apis/coordination.orch.io/v1. paths are emitted by the generator.',
    upstream: ['apis__coordination.k8s.io__v1_openapi.json'],
    owns: (n) => n.startsWith(COORD),
    roots: [COORD + 'Lease', COORD + 'LeaseList'],
  },
  {
    file: 'apis__authorization.orch.io__v1.json',
    title: 'orch authorization.orch.io/v1',
    description:
      'Kinds of the authorization.orch.io group, version v1, served under /apis/authorization.orch.io/v1: access reviews computed on create and never stored. paths are emitted by the generator.',
    upstream: ['apis__authorization.k8s.io__v1_openapi.json'],
    owns: (n) => n.startsWith(AUTHZ),
    roots: ['SelfSubjectAccessReview', 'SubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview'].map((k) => AUTHZ + k),
  },
  {
    file: 'apis__rbac.authorization.orch.io__v1.json',
    title: 'orch rbac.authorization.orch.io/v1',
    description:
      'Kinds of the rbac.authorization.orch.io group, version v1, served under /apis/rbac.authorization.orch.io/v1 (SPEC 5.5). paths are emitted by the generator.',
    upstream: ['apis__rbac.authorization.k8s.io__v1_openapi.json'],
    owns: (n) => n.startsWith(RBAC),
    roots: ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'].flatMap((k) => [RBAC + k, RBAC + k + 'List']),
  },
  {
    file: 'apis__apiextensions.orch.io__v1.json',
    title: 'orch apiextensions.orch.io/v1',
    description:
      'Kinds of the apiextensions.orch.io group, version v1, served under /apis/apiextensions.orch.io/v1: CustomResourceDefinitions, which add kinds at run time. paths are emitted by the generator.',
    upstream: ['apis__apiextensions.k8s.io__v1_openapi.json'],
    owns: (n) => n.startsWith(APIEXT),
    roots: [APIEXT + 'CustomResourceDefinition', APIEXT + 'CustomResourceDefinitionList'],
  },
  {
    file: 'apis__autoscaling__v1.json',
    title: 'orch autoscaling/v1',
    description:
      'Kinds of the autoscaling group, version v1, served under /apis/autoscaling/v1: HorizontalPodAutoscaler, the same objects as autoscaling/v2 (stored at v2; what v1 cannot say travels in annotations), and Scale, the body of the scale subresource of custom resources (SPEC 2.1) and of apps/v1 Deployments, ReplicaSets and StatefulSets. paths are emitted by the generator.',
    upstream: ['apis__autoscaling__v1_openapi.json'],
    owns: (n) => n.startsWith(AUTOSCALING),
    roots: [AUTOSCALING + 'Scale', AUTOSCALING + 'HorizontalPodAutoscaler', AUTOSCALING + 'HorizontalPodAutoscalerList'],
  },
  {
    file: 'apis__apps__v1.json',
    title: 'orch apps/v1',
    description:
      'Kinds of the apps group, version v1, served under /apis/apps/v1: the workload kinds (SPEC 9.7, the replacement of extensions/v1beta1 and apps/v1beta1/v1beta2). paths are emitted by the generator.',
    upstream: ['apis__apps__v1_openapi.json'],
    owns: (n) => n.startsWith(APPS),
    roots: ['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'ControllerRevision'].flatMap((k) => [APPS + k, APPS + k + 'List']),
  },
  {
    file: 'apis__batch__v1.json',
    title: 'orch batch/v1',
    description:
      'Kinds of the batch group, version v1, served under /apis/batch/v1: Job and CronJob (SPEC 9.7, the replacement of batch/v1beta1 CronJob). paths are emitted by the generator.',
    upstream: ['apis__batch__v1_openapi.json'],
    owns: (n) => n.startsWith(BATCH),
    roots: ['Job', 'CronJob'].flatMap((k) => [BATCH + k, BATCH + k + 'List']),
  },
  {
    file: 'apis__networking.orch.io__v1.json',
    title: 'orch networking.orch.io/v1',
    description:
      'Kinds of the networking.orch.io group, version v1, served under /apis/networking.orch.io/v1. paths are emitted by the generator.',
    upstream: ['apis__networking.k8s.io__v1_openapi.json'],
    owns: (n) => n.startsWith(NET),
    roots: [NET + 'NetworkPolicy', NET + 'NetworkPolicyList', ...['Ingress', 'IngressClass'].flatMap((k) => [NET + k, NET + k + 'List'])],
  },
  groupDoc('discovery.orch.io', 'v1', DISCOVERY, ['EndpointSlice'], 'apis__discovery.k8s.io__v1_openapi.json',
    'EndpointSlice (SPEC 9.7, the replacement of discovery.orch.io/v1beta1)'),
  groupDoc('policy', 'v1', POLICY, ['PodDisruptionBudget'], 'apis__policy__v1_openapi.json',
    'PodDisruptionBudget (SPEC 9.7, the replacement of policy/v1beta1)'),
  groupDoc('node.orch.io', 'v1', NODE, ['RuntimeClass'], 'apis__node.k8s.io__v1_openapi.json',
    'RuntimeClass (SPEC 9.7, the replacement of node.orch.io/v1beta1)'),
  groupDoc('storage.orch.io', 'v1', STORAGE, ['StorageClass', 'VolumeAttachment', 'CSIDriver', 'CSINode', 'CSIStorageCapacity'], 'apis__storage.k8s.io__v1_openapi.json',
    'StorageClass, VolumeAttachment, CSIDriver, CSINode and CSIStorageCapacity'),
  groupDoc('flowcontrol.orch.io', 'v1', FLOWCONTROL, ['FlowSchema', 'PriorityLevelConfiguration'], 'apis__flowcontrol.apiserver.k8s.io__v1_openapi.json',
    'FlowSchema and PriorityLevelConfiguration (SPEC 9.7), their storage version'),
  groupDoc('flowcontrol.orch.io', 'v1beta3', FLOWCONTROL_V1BETA3, ['FlowSchema', 'PriorityLevelConfiguration'], 'apis__flowcontrol.apiserver.k8s.io__v1beta3_openapi.json',
    'the same FlowSchemas and PriorityLevelConfigurations as v1, stored at v1; deprecated in 1.29, removed in 1.32 (SPEC 9.5, 9.7)'),
  groupDoc('autoscaling', 'v2', AUTOSCALING_V2, ['HorizontalPodAutoscaler'], 'apis__autoscaling__v2_openapi.json',
    'HorizontalPodAutoscaler (SPEC 9.7, the replacement of autoscaling/v2beta1 and v2beta2), the storage version of the autoscaling/v1 ones'),
  groupDoc('events.orch.io', 'v1', EVENTS, ['Event'], 'apis__events.k8s.io__v1_openapi.json',
    'Event, the same objects as core v1 Events, stored as those (SPEC 9.7, the replacement of events.orch.io/v1beta1)'),
];

/** Description taken from a (renamed) schema property, or a literal. */
type DocText = string | { schema: string; property: string };

interface ColumnSpec {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: DocText;
  priority?: number;
  jsonPath: string;
  formatter?: string;
}

interface SubresourceSpec {
  name: string;
  verbs: string[];
  kind: string;
  group?: string;
  version?: string;
}

interface FieldSelectorSpec {
  name: string;
  jsonPath: string;
  fallbackJsonPath?: string;
  /** The value of an absent field (a bool upstream formats as "false"). */
  default?: string;
}

interface ResourceSpec {
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  verbs: string[];
  subresources: SubresourceSpec[];
  allowCreateOnUpdate: boolean;
  allowUnconditionalUpdate: boolean;
  nameValidation: 'DNSSubdomain' | 'DNSLabel' | 'PathSegment';
  fieldSelectors: FieldSelectorSpec[];
  printerColumns: ColumnSpec[];
  /** false: a review computed on create and never stored (no list kind, no storage version). */
  stored?: boolean;
  /** A kind served at several versions over one key space (SPEC 9.4): the version its objects are stored at, when not its own. */
  storageVersion?: string;
  /** The group whose key space holds the objects, when another (events.orch.io Events are core Events). */
  storageGroup?: string;
  /** A deprecated version (SPEC 9.5; upstream's prerelease-lifecycle-gen tags): releases as `1.29`, the replacing kind. */
  deprecated?: { deprecatedIn: string; removedIn: string; replacement: { group: string; version: string; kind: string } };
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const NAME_COLUMN: ColumnSpec = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: { schema: META + 'ObjectMeta', property: 'name' },
  jsonPath: '.metadata.name',
};
const AGE_COLUMN: ColumnSpec = {
  name: 'Age',
  type: 'string',
  description: { schema: META + 'ObjectMeta', property: 'creationTimestamp' },
  jsonPath: '.metadata.creationTimestamp',
  formatter: 'age',
};

/** An access review (SPEC 2.8): computed on create, never stored. */
function review(plural: string, namespaced = false): ResourceSpec {
  return {
    plural,
    singular: plural.replace(/s$/, ''),
    shortNames: [],
    categories: [],
    namespaced,
    verbs: ['create'],
    subresources: [],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'PathSegment',
    fieldSelectors: [],
    printerColumns: [],
    stored: false,
  };
}

/** K pkg/printers/internalversion/printers.go roleColumnDefinitions: the creation time in RFC 3339. */
const ROLE_COLUMNS: ColumnSpec[] = [
  NAME_COLUMN,
  { name: 'Created At', type: 'date', description: { schema: META + 'ObjectMeta', property: 'creationTimestamp' }, jsonPath: '.metadata.creationTimestamp' },
];

/** K printers.go roleBindingsColumnDefinitions / clusterRoleBindingsColumnDefinitions. */
function bindingColumns(kind: 'roleBinding' | 'clusterRoleBinding', schema: string): ColumnSpec[] {
  return [
    NAME_COLUMN,
    { name: 'Role', type: 'string', description: { schema, property: 'roleRef' }, jsonPath: '.roleRef', formatter: 'roleRef' },
    AGE_COLUMN,
    { name: 'Users', type: 'string', priority: 1, description: `Users in the ${kind}`, jsonPath: '.subjects', formatter: 'subjectUsers' },
    { name: 'Groups', type: 'string', priority: 1, description: `Groups in the ${kind}`, jsonPath: '.subjects', formatter: 'subjectGroups' },
    { name: 'ServiceAccounts', type: 'string', priority: 1, description: `ServiceAccounts in the ${kind}`, jsonPath: '.subjects', formatter: 'subjectServiceAccounts' },
  ];
}

/** K pkg/registry/rbac/*: names are path segments (ValidateRBACName), PUT creates (AllowCreateOnUpdate). */
function rbacKind(plural: string, namespaced: boolean, printerColumns: ColumnSpec[]): ResourceSpec {
  return {
    plural,
    singular: plural.replace(/s$/, ''),
    shortNames: [],
    categories: [],
    namespaced,
    verbs: ALL_VERBS,
    subresources: [],
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    nameValidation: 'PathSegment',
    fieldSelectors: [],
    printerColumns,
  };
}

/** K printers.go flowSchemaColumnDefinitions (v1's field docs for every version, as upstream prints the internal form). */
const FLOWSCHEMA_COLUMNS: ColumnSpec[] = [
  NAME_COLUMN,
  { name: 'PriorityLevel', type: 'string', description: { schema: FLOWCONTROL + 'PriorityLevelConfigurationReference', property: 'name' }, jsonPath: '.spec.priorityLevelConfiguration.name' },
  { name: 'MatchingPrecedence', type: 'string', description: { schema: FLOWCONTROL + 'FlowSchemaSpec', property: 'matchingPrecedence' }, jsonPath: '.spec.matchingPrecedence', formatter: 'integer' },
  { name: 'DistinguisherMethod', type: 'string', description: { schema: FLOWCONTROL + 'FlowSchemaSpec', property: 'distinguisherMethod' }, jsonPath: '.spec.distinguisherMethod', formatter: 'distinguisherMethod' },
  AGE_COLUMN,
  { name: 'MissingPL', type: 'string', description: 'references a broken or non-existent PriorityLevelConfiguration', jsonPath: '.status.conditions', formatter: 'danglingCondition' },
];

/** K printers.go priorityLevelColumnDefinitions: `<none>` for what a level without limits (or without queuing) lacks. */
const PRIORITY_LEVEL_COLUMNS: ColumnSpec[] = [
  NAME_COLUMN,
  { name: 'Type', type: 'string', description: { schema: FLOWCONTROL + 'PriorityLevelConfigurationSpec', property: 'type' }, jsonPath: '.spec.type' },
  { name: 'NominalConcurrencyShares', type: 'string', description: { schema: FLOWCONTROL + 'LimitedPriorityLevelConfiguration', property: 'nominalConcurrencyShares' }, jsonPath: '.spec.limited.nominalConcurrencyShares', formatter: 'ifLimited' },
  ...(['queues', 'handSize', 'queueLengthLimit'] as const).map((field): ColumnSpec => ({
    name: field[0].toUpperCase() + field.slice(1),
    type: 'string',
    description: { schema: FLOWCONTROL + 'QueuingConfiguration', property: field },
    jsonPath: `.spec.limited.limitResponse.queuing.${field}`,
    formatter: 'ifQueuing',
  })),
  AGE_COLUMN,
];

/**
 * Registry data per kind, upstream 1.31 values:
 *  - names/verbs/subresources: OAPI paths + K pkg/registry/core/{namespace,configmap,secret,serviceaccount,event,pod,node}/storage,
 *    K pkg/registry/networking/networkpolicy/storage (ShortNames());
 *  - allowCreateOnUpdate/allowUnconditionalUpdate: the registry strategies (strategy.go);
 *  - nameValidation: K pkg/apis/core/validation (ValidateNamespaceName = DNS label, ConfigMap/Secret/ServiceAccount
 *    = DNS subdomain; core/v1 Events skip ObjectMeta validation (ValidateEventCreate "legacy" path), so only the
 *    generic path-segment check of AS registry/rest/create.go applies), K pkg/apis/networking/validation;
 *  - fieldSelectors: K pkg/registry/core/*\/strategy.go *ToSelectableFields + K pkg/apis/core/v1/conversion.go;
 *  - printerColumns: K pkg/printers/internalversion/printers.go (column definitions + print* functions).
 */
const RESOURCES: Record<string, ResourceSpec> = {
  [CORE + 'Namespace']: {
    plural: 'namespaces',
    singular: 'namespace',
    shortNames: ['ns'],
    categories: [],
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [
      { name: 'finalize', verbs: ['update'], kind: 'Namespace' },
      { name: 'status', verbs: ['get', 'patch', 'update'], kind: 'Namespace' },
    ],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'DNSLabel',
    fieldSelectors: [{ name: 'status.phase', jsonPath: '.status.phase' }],
    printerColumns: [
      NAME_COLUMN,
      { name: 'Status', type: 'string', description: 'The status of the namespace', jsonPath: '.status.phase' },
      AGE_COLUMN,
    ],
  },
  [CORE + 'ConfigMap']: {
    plural: 'configmaps',
    singular: 'configmap',
    shortNames: ['cm'],
    categories: [],
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: [],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'DNSSubdomain',
    fieldSelectors: [],
    printerColumns: [
      NAME_COLUMN,
      {
        name: 'Data',
        type: 'string',
        description: { schema: CORE + 'ConfigMap', property: 'data' },
        jsonPath: '.data',
        formatter: 'dataCount',
      },
      AGE_COLUMN,
    ],
  },
  [CORE + 'Secret']: {
    plural: 'secrets',
    singular: 'secret',
    shortNames: [],
    categories: [],
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: [],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'DNSSubdomain',
    fieldSelectors: [{ name: 'type', jsonPath: '.type' }],
    printerColumns: [
      NAME_COLUMN,
      { name: 'Type', type: 'string', description: { schema: CORE + 'Secret', property: 'type' }, jsonPath: '.type' },
      {
        name: 'Data',
        type: 'string',
        description: { schema: CORE + 'Secret', property: 'data' },
        jsonPath: '.data',
        formatter: 'dataCount',
      },
      AGE_COLUMN,
    ],
  },
  [CORE + 'ServiceAccount']: {
    plural: 'serviceaccounts',
    singular: 'serviceaccount',
    shortNames: ['sa'],
    categories: [],
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: [
      { name: 'token', verbs: ['create'], group: 'authentication.orch.io', version: 'v1', kind: 'TokenRequest' },
    ],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'DNSSubdomain',
    fieldSelectors: [],
    printerColumns: [
      NAME_COLUMN,
      {
        name: 'Secrets',
        type: 'string',
        description: { schema: CORE + 'ServiceAccount', property: 'secrets' },
        jsonPath: '.secrets',
        formatter: 'count',
      },
      AGE_COLUMN,
    ],
  },
  [CORE + 'Event']: {
    plural: 'events',
    singular: 'event',
    shortNames: ['ev'],
    categories: [],
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: [],
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    nameValidation: 'PathSegment',
    fieldSelectors: [
      { name: 'involvedObject.kind', jsonPath: '.involvedObject.kind' },
      { name: 'involvedObject.namespace', jsonPath: '.involvedObject.namespace' },
      { name: 'involvedObject.name', jsonPath: '.involvedObject.name' },
      { name: 'involvedObject.uid', jsonPath: '.involvedObject.uid' },
      { name: 'involvedObject.apiVersion', jsonPath: '.involvedObject.apiVersion' },
      { name: 'involvedObject.resourceVersion', jsonPath: '.involvedObject.resourceVersion' },
      { name: 'involvedObject.fieldPath', jsonPath: '.involvedObject.fieldPath' },
      { name: 'reason', jsonPath: '.reason' },
      // internal ReportingController = v1 JSON field reportingComponent
      { name: 'reportingComponent', jsonPath: '.reportingComponent' },
      // source.component, or reportingComponent when that is empty
      { name: 'source', jsonPath: '.source.component', fallbackJsonPath: '.reportingComponent' },
      { name: 'type', jsonPath: '.type' },
    ],
    printerColumns: [
      {
        name: 'Last Seen',
        type: 'string',
        description: { schema: CORE + 'Event', property: 'lastTimestamp' },
        jsonPath: '.lastTimestamp',
        formatter: 'eventLastSeen',
      },
      { name: 'Type', type: 'string', description: { schema: CORE + 'Event', property: 'type' }, jsonPath: '.type' },
      { name: 'Reason', type: 'string', description: { schema: CORE + 'Event', property: 'reason' }, jsonPath: '.reason' },
      {
        name: 'Object',
        type: 'string',
        description: { schema: CORE + 'Event', property: 'involvedObject' },
        jsonPath: '.involvedObject',
        formatter: 'eventObject',
      },
      {
        name: 'Subobject',
        type: 'string',
        priority: 1,
        description: { schema: CORE + 'ObjectReference', property: 'fieldPath' },
        jsonPath: '.involvedObject.fieldPath',
      },
      {
        name: 'Source',
        type: 'string',
        priority: 1,
        description: { schema: CORE + 'Event', property: 'source' },
        jsonPath: '.source',
        formatter: 'eventSource',
      },
      {
        name: 'Message',
        type: 'string',
        description: { schema: CORE + 'Event', property: 'message' },
        jsonPath: '.message',
        formatter: 'trimSpace',
      },
      {
        name: 'First Seen',
        type: 'string',
        priority: 1,
        description: { schema: CORE + 'Event', property: 'firstTimestamp' },
        jsonPath: '.firstTimestamp',
        formatter: 'eventFirstSeen',
      },
      {
        name: 'Count',
        type: 'string',
        priority: 1,
        description: { schema: CORE + 'Event', property: 'count' },
        jsonPath: '.count',
        formatter: 'eventCount',
      },
      { ...NAME_COLUMN, priority: 1 },
    ],
  },
  [CORE + 'Pod']: {
    plural: 'pods',
    singular: 'pod',
    shortNames: ['po'],
    categories: ['all'],
    namespaced: true,
    verbs: ALL_VERBS,
    // Only the subresources this server serves: attach, exec, log, portforward, proxy, binding,
    // eviction and ephemeralcontainers need nodes and a scheduler.
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], kind: 'Pod' }],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'DNSSubdomain',
    // K pkg/registry/core/pod/strategy.go ToSelectableFields
    fieldSelectors: [
      { name: 'spec.nodeName', jsonPath: '.spec.nodeName' },
      { name: 'spec.restartPolicy', jsonPath: '.spec.restartPolicy' },
      { name: 'spec.schedulerName', jsonPath: '.spec.schedulerName' },
      { name: 'spec.serviceAccountName', jsonPath: '.spec.serviceAccountName' },
      // strconv.FormatBool: an absent hostNetwork is "false"
      { name: 'spec.hostNetwork', jsonPath: '.spec.hostNetwork', default: 'false' },
      { name: 'status.phase', jsonPath: '.status.phase' },
      { name: 'status.podIP', jsonPath: '.status.podIP' },
      { name: 'status.podIPs', jsonPath: '.status.podIPs' },
      { name: 'status.nominatedNodeName', jsonPath: '.status.nominatedNodeName' },
    ],
    printerColumns: [
      NAME_COLUMN,
      { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.', jsonPath: '.status', formatter: 'podReady' },
      { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', jsonPath: '.status', formatter: 'podStatus' },
      { name: 'Restarts', type: 'string', description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.', jsonPath: '.status', formatter: 'podRestarts' },
      AGE_COLUMN,
      { name: 'IP', type: 'string', priority: 1, description: { schema: CORE + 'PodStatus', property: 'podIP' }, jsonPath: '.status.podIP', formatter: 'noneIfEmpty' },
      { name: 'Node', type: 'string', priority: 1, description: { schema: CORE + 'PodSpec', property: 'nodeName' }, jsonPath: '.spec.nodeName', formatter: 'noneIfEmpty' },
      { name: 'Nominated Node', type: 'string', priority: 1, description: { schema: CORE + 'PodStatus', property: 'nominatedNodeName' }, jsonPath: '.status.nominatedNodeName', formatter: 'noneIfEmpty' },
      { name: 'Readiness Gates', type: 'string', priority: 1, description: { schema: CORE + 'PodSpec', property: 'readinessGates' }, jsonPath: '.spec.readinessGates', formatter: 'podReadinessGates' },
    ],
  },
  [CORE + 'Node']: {
    plural: 'nodes',
    singular: 'node',
    shortNames: ['no'],
    categories: [],
    namespaced: false,
    verbs: ALL_VERBS,
    // Only the subresources this server serves: proxy needs a kubelet to talk to.
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], kind: 'Node' }],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'DNSSubdomain',
    // K pkg/registry/core/node/strategy.go NodeToSelectableFields: fmt.Sprint(spec.unschedulable)
    fieldSelectors: [{ name: 'spec.unschedulable', jsonPath: '.spec.unschedulable', default: 'false' }],
    // K printers.go nodeColumnDefinitions / printNode
    printerColumns: [
      NAME_COLUMN,
      { name: 'Status', type: 'string', description: 'The status of the node', jsonPath: '.status', formatter: 'nodeStatus' },
      { name: 'Roles', type: 'string', description: 'The roles of the node', jsonPath: '.metadata.labels', formatter: 'nodeRoles' },
      AGE_COLUMN,
      { name: 'Version', type: 'string', description: { schema: CORE + 'NodeSystemInfo', property: 'kubeletVersion' }, jsonPath: '.status.nodeInfo.kubeletVersion' },
      { name: 'Internal-IP', type: 'string', priority: 1, description: { schema: CORE + 'NodeStatus', property: 'addresses' }, jsonPath: '.status.addresses', formatter: 'nodeInternalIP' },
      { name: 'External-IP', type: 'string', priority: 1, description: { schema: CORE + 'NodeStatus', property: 'addresses' }, jsonPath: '.status.addresses', formatter: 'nodeExternalIP' },
      { name: 'OS-Image', type: 'string', priority: 1, description: { schema: CORE + 'NodeSystemInfo', property: 'osImage' }, jsonPath: '.status.nodeInfo.osImage', formatter: 'unknownIfEmpty' },
      { name: 'Kernel-Version', type: 'string', priority: 1, description: { schema: CORE + 'NodeSystemInfo', property: 'kernelVersion' }, jsonPath: '.status.nodeInfo.kernelVersion', formatter: 'unknownIfEmpty' },
      { name: 'Container-Runtime', type: 'string', priority: 1, description: { schema: CORE + 'NodeSystemInfo', property: 'containerRuntimeVersion' }, jsonPath: '.status.nodeInfo.containerRuntimeVersion', formatter: 'unknownIfEmpty' },
    ],
  },
  [AUTHN + 'SelfSubjectReview']: {
    plural: 'selfsubjectreviews',
    singular: 'selfsubjectreview',
    shortNames: [],
    categories: [],
    namespaced: false,
    verbs: ['create'],
    subresources: [],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'PathSegment',
    fieldSelectors: [],
    printerColumns: [],
    stored: false,
  },
  [AUTHN + 'TokenReview']: {
    plural: 'tokenreviews',
    singular: 'tokenreview',
    shortNames: [],
    categories: [],
    namespaced: false,
    verbs: ['create'],
    subresources: [],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'PathSegment',
    fieldSelectors: [],
    printerColumns: [],
    stored: false,
  },
  [AUTHZ + 'SelfSubjectAccessReview']: review('selfsubjectaccessreviews'),
  [AUTHZ + 'SubjectAccessReview']: review('subjectaccessreviews'),
  [AUTHZ + 'LocalSubjectAccessReview']: review('localsubjectaccessreviews', true),
  [AUTHZ + 'SelfSubjectRulesReview']: review('selfsubjectrulesreviews'),
  [RBAC + 'Role']: rbacKind('roles', true, ROLE_COLUMNS),
  [RBAC + 'ClusterRole']: rbacKind('clusterroles', false, ROLE_COLUMNS),
  [RBAC + 'RoleBinding']: rbacKind('rolebindings', true, bindingColumns('roleBinding', RBAC + 'RoleBinding')),
  [RBAC + 'ClusterRoleBinding']: rbacKind('clusterrolebindings', false, bindingColumns('clusterRoleBinding', RBAC + 'ClusterRoleBinding')),
  [COORD + 'Lease']: {
    plural: 'leases',
    singular: 'lease',
    shortNames: [],
    categories: [],
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: [],
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    nameValidation: 'DNSSubdomain',
    fieldSelectors: [],
    printerColumns: [
      NAME_COLUMN,
      { name: 'Holder', type: 'string', description: { schema: COORD + 'LeaseSpec', property: 'holderIdentity' }, jsonPath: '.spec.holderIdentity' },
      AGE_COLUMN,
    ],
  },
  // apiextensions-apiserver pkg/registry/customresourcedefinition: strategy.go (no create or unconditional
  // update), etcd.go (short names, category, status subresource, the default Name / Created At table).
  [APIEXT + 'CustomResourceDefinition']: {
    plural: 'customresourcedefinitions',
    singular: 'customresourcedefinition',
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    namespaced: false,
    verbs: ALL_VERBS,
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], kind: 'CustomResourceDefinition' }],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    nameValidation: 'DNSSubdomain',
    fieldSelectors: [],
    // rest.NewDefaultTableConvertor: the name, and the creation time as RFC 3339.
    printerColumns: [
      NAME_COLUMN,
      { name: 'Created At', type: 'date', description: { schema: META + 'ObjectMeta', property: 'creationTimestamp' }, jsonPath: '.metadata.creationTimestamp' },
    ],
  },
  // K pkg/registry/apps/{deployment,replicaset,daemonset,statefulset,controllerrevision}/storage and strategy.go
  // (short names, category all, status and scale subresources, unconditional update, no create on update),
  // K pkg/apis/apps/validation (names: DNS subdomain, StatefulSet DNS label), K pkg/apis/apps/v1/conversion.go
  // (ReplicaSet's status.replicas selector), K printers.go for the columns.
  [APPS + 'Deployment']: workload('Deployment', 'deployments', ['deploy'], ['scale', 'status'], 'DNSSubdomain', [], [
    NAME_COLUMN,
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', jsonPath: '.status', formatter: 'readyOfReplicas' },
    { name: 'Up-to-date', type: 'string', description: { schema: APPS + 'DeploymentStatus', property: 'updatedReplicas' }, jsonPath: '.status.updatedReplicas', formatter: 'integer' },
    { name: 'Available', type: 'string', description: { schema: APPS + 'DeploymentStatus', property: 'availableReplicas' }, jsonPath: '.status.availableReplicas', formatter: 'integer' },
    AGE_COLUMN,
    ...templateColumns('.spec.template', { schema: APPS + 'DeploymentSpec', property: 'selector' }, '.spec.selector'),
  ]),
  [APPS + 'ReplicaSet']: workload('ReplicaSet', 'replicasets', ['rs'], ['scale', 'status'], 'DNSSubdomain', [{ name: 'status.replicas', jsonPath: '.status.replicas', default: '0' }], [
    NAME_COLUMN,
    { name: 'Desired', type: 'integer', description: { schema: APPS + 'ReplicaSetSpec', property: 'replicas' }, jsonPath: '.spec.replicas', formatter: 'integer' },
    { name: 'Current', type: 'integer', description: { schema: APPS + 'ReplicaSetStatus', property: 'replicas' }, jsonPath: '.status.replicas', formatter: 'integer' },
    { name: 'Ready', type: 'integer', description: { schema: APPS + 'ReplicaSetStatus', property: 'readyReplicas' }, jsonPath: '.status.readyReplicas', formatter: 'integer' },
    AGE_COLUMN,
    ...templateColumns('.spec.template', { schema: APPS + 'ReplicaSetSpec', property: 'selector' }, '.spec.selector'),
  ]),
  [APPS + 'DaemonSet']: workload('DaemonSet', 'daemonsets', ['ds'], ['status'], 'DNSSubdomain', [], [
    NAME_COLUMN,
    { name: 'Desired', type: 'integer', description: { schema: APPS + 'DaemonSetStatus', property: 'desiredNumberScheduled' }, jsonPath: '.status.desiredNumberScheduled', formatter: 'integer' },
    { name: 'Current', type: 'integer', description: { schema: APPS + 'DaemonSetStatus', property: 'currentNumberScheduled' }, jsonPath: '.status.currentNumberScheduled', formatter: 'integer' },
    { name: 'Ready', type: 'integer', description: { schema: APPS + 'DaemonSetStatus', property: 'numberReady' }, jsonPath: '.status.numberReady', formatter: 'integer' },
    { name: 'Up-to-date', type: 'integer', description: { schema: APPS + 'DaemonSetStatus', property: 'updatedNumberScheduled' }, jsonPath: '.status.updatedNumberScheduled', formatter: 'integer' },
    { name: 'Available', type: 'integer', description: { schema: APPS + 'DaemonSetStatus', property: 'numberAvailable' }, jsonPath: '.status.numberAvailable', formatter: 'integer' },
    { name: 'Node Selector', type: 'string', description: { schema: CORE + 'PodSpec', property: 'nodeSelector' }, jsonPath: '.spec.template.spec.nodeSelector', formatter: 'labels' },
    AGE_COLUMN,
    ...templateColumns('.spec.template', { schema: APPS + 'DaemonSetSpec', property: 'selector' }, '.spec.selector'),
  ]),
  [APPS + 'StatefulSet']: workload('StatefulSet', 'statefulsets', ['sts'], ['scale', 'status'], 'DNSLabel', [], [
    NAME_COLUMN,
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', jsonPath: '.status', formatter: 'readyOfReplicas' },
    AGE_COLUMN,
    ...templateColumns('.spec.template'),
  ]),
  [APPS + 'ControllerRevision']: {
    ...workload('ControllerRevision', 'controllerrevisions', [], [], 'DNSSubdomain', [], [
      NAME_COLUMN,
      { name: 'Controller', type: 'string', description: 'Controller of the object', jsonPath: '.metadata.ownerReferences', formatter: 'controllerOf' },
      { name: 'Revision', type: 'string', description: { schema: APPS + 'ControllerRevision', property: 'revision' }, jsonPath: '.revision', formatter: 'integer' },
      AGE_COLUMN,
    ]),
    categories: [],
  },
  // K pkg/registry/batch/{job,cronjob}/storage and strategy.go, K pkg/apis/batch/v1/conversion.go (Job's
  // status.successful selector), K pkg/apis/batch/validation (names: DNS subdomain), K printers.go printJob/printCronJob.
  [BATCH + 'Job']: workload('Job', 'jobs', [], ['status'], 'DNSSubdomain', [{ name: 'status.successful', jsonPath: '.status.succeeded', default: '0' }], [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'Status of the job.', jsonPath: '.status', formatter: 'jobStatus' },
    { name: 'Completions', type: 'string', description: { schema: BATCH + 'JobStatus', property: 'succeeded' }, jsonPath: '.status.succeeded', formatter: 'jobCompletions' },
    { name: 'Duration', type: 'string', description: 'Time required to complete the job.', jsonPath: '.status', formatter: 'jobDuration' },
    AGE_COLUMN,
    ...templateColumns('.spec.template', { schema: BATCH + 'JobSpec', property: 'selector' }, '.spec.selector'),
  ]),
  [BATCH + 'CronJob']: workload('CronJob', 'cronjobs', ['cj'], ['status'], 'DNSSubdomain', [], [
    NAME_COLUMN,
    { name: 'Schedule', type: 'string', description: { schema: BATCH + 'CronJobSpec', property: 'schedule' }, jsonPath: '.spec.schedule' },
    { name: 'Timezone', type: 'string', description: { schema: BATCH + 'CronJobSpec', property: 'timeZone' }, jsonPath: '.spec.timeZone', formatter: 'noneIfEmpty' },
    { name: 'Suspend', type: 'boolean', description: { schema: BATCH + 'CronJobSpec', property: 'suspend' }, jsonPath: '.spec.suspend', formatter: 'boolPtr' },
    { name: 'Active', type: 'integer', description: { schema: BATCH + 'CronJobStatus', property: 'active' }, jsonPath: '.status.active', formatter: 'count' },
    { name: 'Last Schedule', type: 'string', description: { schema: BATCH + 'CronJobStatus', property: 'lastScheduleTime' }, jsonPath: '.status.lastScheduleTime', formatter: 'ageOrNone' },
    AGE_COLUMN,
    ...templateColumns('.spec.jobTemplate.spec.template', { schema: BATCH + 'JobSpec', property: 'selector' }, '.spec.jobTemplate.spec.selector'),
  ]),
  [NET + 'NetworkPolicy']: {
    plural: 'networkpolicies',
    singular: 'networkpolicy',
    shortNames: ['netpol'],
    categories: [],
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: [],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'DNSSubdomain',
    fieldSelectors: [],
    printerColumns: [
      NAME_COLUMN,
      {
        name: 'Pod-Selector',
        type: 'string',
        description: { schema: NET + 'NetworkPolicySpec', property: 'podSelector' },
        jsonPath: '.spec.podSelector',
        formatter: 'labelSelector',
      },
      AGE_COLUMN,
    ],
  },
  // K pkg/registry/core/{limitrange,resourcequota,persistentvolume,persistentvolumeclaim,replicationcontroller,
  // endpoint,podtemplate}/storage and strategy.go (short names, category all, status and scale subresources,
  // create on update for LimitRange and Endpoints), K pkg/apis/core/v1/conversion.go (RC's status.replicas
  // selector; the others select on metadata only), K printers.go (LimitRange has no printer: the default
  // Name / Created At table).
  [CORE + 'LimitRange']: { ...coreKind('LimitRange', 'limitranges', ['limits'], [], ROLE_COLUMNS), allowCreateOnUpdate: true },
  [CORE + 'ResourceQuota']: coreKind('ResourceQuota', 'resourcequotas', ['quota'], ['status'], [
    NAME_COLUMN,
    AGE_COLUMN,
    { name: 'Request', type: 'string', description: 'Request represents a minimum amount of cpu/memory that a container may consume.', jsonPath: '.status', formatter: 'quotaRequests' },
    { name: 'Limit', type: 'string', description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.', jsonPath: '.status', formatter: 'quotaLimits' },
  ]),
  [CORE + 'PersistentVolume']: { ...coreKind('PersistentVolume', 'persistentvolumes', ['pv'], ['status'], [
    NAME_COLUMN,
    { name: 'Capacity', type: 'string', description: { schema: CORE + 'PersistentVolumeSpec', property: 'capacity' }, jsonPath: '.spec.capacity', formatter: 'storageQuantity' },
    { name: 'Access Modes', type: 'string', description: { schema: CORE + 'PersistentVolumeSpec', property: 'accessModes' }, jsonPath: '.spec.accessModes', formatter: 'accessModes' },
    { name: 'Reclaim Policy', type: 'string', description: { schema: CORE + 'PersistentVolumeSpec', property: 'persistentVolumeReclaimPolicy' }, jsonPath: '.spec.persistentVolumeReclaimPolicy' },
    { name: 'Status', type: 'string', description: { schema: CORE + 'PersistentVolumeStatus', property: 'phase' }, jsonPath: '.status.phase', formatter: 'volumePhase' },
    { name: 'Claim', type: 'string', description: { schema: CORE + 'PersistentVolumeSpec', property: 'claimRef' }, jsonPath: '.spec.claimRef', formatter: 'claimRef' },
    ...volumeClassColumns('pv'),
    { name: 'Reason', type: 'string', description: { schema: CORE + 'PersistentVolumeStatus', property: 'reason' }, jsonPath: '.status.reason' },
    AGE_COLUMN,
    volumeModeColumn(CORE + 'PersistentVolumeSpec'),
  ]), namespaced: false },
  [CORE + 'PersistentVolumeClaim']: coreKind('PersistentVolumeClaim', 'persistentvolumeclaims', ['pvc'], ['status'], [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: { schema: CORE + 'PersistentVolumeClaimStatus', property: 'phase' }, jsonPath: '.status.phase', formatter: 'volumePhase' },
    { name: 'Volume', type: 'string', description: { schema: CORE + 'PersistentVolumeClaimSpec', property: 'volumeName' }, jsonPath: '.spec.volumeName' },
    { name: 'Capacity', type: 'string', description: { schema: CORE + 'PersistentVolumeClaimStatus', property: 'capacity' }, jsonPath: '.status.capacity', formatter: 'boundCapacity' },
    { name: 'Access Modes', type: 'string', description: { schema: CORE + 'PersistentVolumeClaimStatus', property: 'accessModes' }, jsonPath: '.status.accessModes', formatter: 'boundAccessModes' },
    ...volumeClassColumns('pvc'),
    AGE_COLUMN,
    volumeModeColumn(CORE + 'PersistentVolumeClaimSpec'),
  ]),
  [CORE + 'ReplicationController']: {
    ...coreKind('ReplicationController', 'replicationcontrollers', ['rc'], ['scale', 'status'], [
      NAME_COLUMN,
      { name: 'Desired', type: 'integer', description: { schema: CORE + 'ReplicationControllerSpec', property: 'replicas' }, jsonPath: '.spec.replicas', formatter: 'integer' },
      { name: 'Current', type: 'integer', description: { schema: CORE + 'ReplicationControllerStatus', property: 'replicas' }, jsonPath: '.status.replicas', formatter: 'integer' },
      { name: 'Ready', type: 'integer', description: { schema: CORE + 'ReplicationControllerStatus', property: 'readyReplicas' }, jsonPath: '.status.readyReplicas', formatter: 'integer' },
      AGE_COLUMN,
      ...templateColumns('.spec.template'),
      { name: 'Selector', type: 'string', priority: 1, description: { schema: CORE + 'ReplicationControllerSpec', property: 'selector' }, jsonPath: '.spec.selector', formatter: 'labels' },
    ]),
    categories: ['all'],
    fieldSelectors: [{ name: 'status.replicas', jsonPath: '.status.replicas', default: '0' }],
  },
  [CORE + 'Endpoints']: {
    ...coreKind('Endpoints', 'endpoints', ['ep'], [], [
      NAME_COLUMN,
      { name: 'Endpoints', type: 'string', description: { schema: CORE + 'Endpoints', property: 'subsets' }, jsonPath: '.subsets', formatter: 'endpoints' },
      AGE_COLUMN,
    ]),
    allowCreateOnUpdate: true,
  },
  [CORE + 'PodTemplate']: coreKind('PodTemplate', 'podtemplates', [], [], [
    NAME_COLUMN,
    { name: 'Containers', type: 'string', description: 'Names of each container in the template.', jsonPath: '.template.spec.containers', formatter: 'containerNames' },
    { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', jsonPath: '.template.spec.containers', formatter: 'containerImages' },
    { name: 'Pod Labels', type: 'string', description: 'The labels for the pod template.', jsonPath: '.template.metadata.labels', formatter: 'labels' },
  ]),
  // K pkg/registry/discovery/endpointslice/storage (no short names), strategy.go; K pkg/apis/discovery/validation
  // (names: DNS subdomain); K printers.go endpointSliceColumnDefinitions / printEndpointSlice.
  [DISCOVERY + 'EndpointSlice']: groupKind('EndpointSlice', 'endpointslices', [], true, [], [
    NAME_COLUMN,
    { name: 'AddressType', type: 'string', description: { schema: DISCOVERY + 'EndpointSlice', property: 'addressType' }, jsonPath: '.addressType' },
    { name: 'Ports', type: 'string', description: { schema: DISCOVERY + 'EndpointSlice', property: 'ports' }, jsonPath: '.ports', formatter: 'discoveryPorts' },
    { name: 'Endpoints', type: 'string', description: { schema: DISCOVERY + 'EndpointSlice', property: 'endpoints' }, jsonPath: '.endpoints', formatter: 'discoveryEndpoints' },
    AGE_COLUMN,
  ]),
  // K pkg/registry/policy/poddisruptionbudget/storage (short name pdb, status), strategy.go (updates need a
  // resourceVersion: the eviction API relies on it), K printers.go printPodDisruptionBudget.
  [POLICY + 'PodDisruptionBudget']: groupKind('PodDisruptionBudget', 'poddisruptionbudgets', ['pdb'], true, ['status'], [
    NAME_COLUMN,
    { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available.', jsonPath: '.spec.minAvailable', formatter: 'intOrStringOrNA' },
    { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable.', jsonPath: '.spec.maxUnavailable', formatter: 'intOrStringOrNA' },
    { name: 'Allowed Disruptions', type: 'integer', description: 'Calculated number of pods that may be disrupted at this time.', jsonPath: '.status.disruptionsAllowed', formatter: 'integer' },
    AGE_COLUMN,
  ], { allowUnconditionalUpdate: false }),
  // K pkg/registry/node/runtimeclass/storage, strategy.go (PUT creates; updates need a resourceVersion),
  // K printers.go runtimeClassColumnDefinitions: the Handler column's
  // description is ObjectMeta's SwaggerDoc()["handler"], which is empty.
  [NODE + 'RuntimeClass']: groupKind('RuntimeClass', 'runtimeclasses', [], false, [], [
    NAME_COLUMN,
    { name: 'Handler', type: 'string', description: '', jsonPath: '.handler' },
    AGE_COLUMN,
  ], { allowCreateOnUpdate: true, allowUnconditionalUpdate: false }),
  // K pkg/registry/storage/{storageclass,volumeattachment,csidriver,csinode,csistoragecapacity}/storage and
  // strategy.go (all but StorageClass need a resourceVersion on update), K printers.go (the StorageClass's name gets " (default)" from its is-default-class annotation).
  [STORAGE + 'StorageClass']: groupKind('StorageClass', 'storageclasses', ['sc'], false, [], [
    { ...NAME_COLUMN, formatter: 'storageClassName' },
    { name: 'Provisioner', type: 'string', description: { schema: STORAGE + 'StorageClass', property: 'provisioner' }, jsonPath: '.provisioner' },
    { name: 'ReclaimPolicy', type: 'string', description: { schema: STORAGE + 'StorageClass', property: 'reclaimPolicy' }, jsonPath: '.reclaimPolicy' },
    { name: 'VolumeBindingMode', type: 'string', description: { schema: STORAGE + 'StorageClass', property: 'volumeBindingMode' }, jsonPath: '.volumeBindingMode' },
    { name: 'AllowVolumeExpansion', type: 'string', description: { schema: STORAGE + 'StorageClass', property: 'allowVolumeExpansion' }, jsonPath: '.allowVolumeExpansion', formatter: 'falseIfUnset' },
    AGE_COLUMN,
  ]),
  [STORAGE + 'VolumeAttachment']: groupKind('VolumeAttachment', 'volumeattachments', [], false, ['status'], [
    NAME_COLUMN,
    { name: 'Attacher', type: 'string', format: 'name', description: { schema: STORAGE + 'VolumeAttachmentSpec', property: 'attacher' }, jsonPath: '.spec.attacher' },
    { name: 'PV', type: 'string', description: { schema: STORAGE + 'VolumeAttachmentSource', property: 'persistentVolumeName' }, jsonPath: '.spec.source.persistentVolumeName' },
    { name: 'Node', type: 'string', description: { schema: STORAGE + 'VolumeAttachmentSpec', property: 'nodeName' }, jsonPath: '.spec.nodeName' },
    { name: 'Attached', type: 'boolean', description: { schema: STORAGE + 'VolumeAttachmentStatus', property: 'attached' }, jsonPath: '.status.attached', formatter: 'falseIfUnset' },
    AGE_COLUMN,
  ], { allowUnconditionalUpdate: false }),
  [STORAGE + 'CSIDriver']: groupKind('CSIDriver', 'csidrivers', [], false, [], [
    NAME_COLUMN,
    { name: 'AttachRequired', type: 'boolean', description: { schema: STORAGE + 'CSIDriverSpec', property: 'attachRequired' }, jsonPath: '.spec.attachRequired', formatter: 'trueIfUnset' },
    { name: 'PodInfoOnMount', type: 'boolean', description: { schema: STORAGE + 'CSIDriverSpec', property: 'podInfoOnMount' }, jsonPath: '.spec.podInfoOnMount', formatter: 'falseIfUnset' },
    { name: 'StorageCapacity', type: 'boolean', description: { schema: STORAGE + 'CSIDriverSpec', property: 'storageCapacity' }, jsonPath: '.spec.storageCapacity', formatter: 'falseIfUnset' },
    { name: 'TokenRequests', type: 'string', description: { schema: STORAGE + 'CSIDriverSpec', property: 'tokenRequests' }, jsonPath: '.spec.tokenRequests', formatter: 'tokenAudiences' },
    { name: 'RequiresRepublish', type: 'boolean', description: { schema: STORAGE + 'CSIDriverSpec', property: 'requiresRepublish' }, jsonPath: '.spec.requiresRepublish', formatter: 'falseIfUnset' },
    { name: 'Modes', type: 'string', description: { schema: STORAGE + 'CSIDriverSpec', property: 'volumeLifecycleModes' }, jsonPath: '.spec.volumeLifecycleModes', formatter: 'joinedOrNone' },
    AGE_COLUMN,
  ], { allowUnconditionalUpdate: false }),
  [STORAGE + 'CSINode']: groupKind('CSINode', 'csinodes', [], false, [], [
    NAME_COLUMN,
    { name: 'Drivers', type: 'integer', description: 'Drivers indicates the number of CSI drivers registered on the node', jsonPath: '.spec.drivers', formatter: 'count' },
    AGE_COLUMN,
  ], { allowUnconditionalUpdate: false }),
  // printCSIStorageCapacity prints no age.
  [STORAGE + 'CSIStorageCapacity']: groupKind('CSIStorageCapacity', 'csistoragecapacities', [], true, [], [
    NAME_COLUMN,
    { name: 'StorageClassName', type: 'string', description: { schema: STORAGE + 'CSIStorageCapacity', property: 'storageClassName' }, jsonPath: '.storageClassName' },
    { name: 'Capacity', type: 'string', description: { schema: STORAGE + 'CSIStorageCapacity', property: 'capacity' }, jsonPath: '.capacity', formatter: 'unsetIfAbsent' },
  ], { allowUnconditionalUpdate: false }),
  // K pkg/registry/networking/{ingress,ingressclass}/storage (ingress: short name ing, status), K printers.go
  // printIngress (server-side Tables are printed wide: the address is not clipped) and printIngressClass.
  [NET + 'Ingress']: groupKind('Ingress', 'ingresses', ['ing'], true, ['status'], [
    NAME_COLUMN,
    { name: 'Class', type: 'string', description: 'The name of the IngressClass resource that should be used for additional configuration', jsonPath: '.spec.ingressClassName', formatter: 'noneIfUnset' },
    { name: 'Hosts', type: 'string', description: 'Hosts that incoming requests are matched against before the ingress rule', jsonPath: '.spec.rules', formatter: 'ingressHosts' },
    { name: 'Address', type: 'string', description: 'Address is a list containing ingress points for the load-balancer', jsonPath: '.status.loadBalancer.ingress', formatter: 'loadBalancerAddresses' },
    { name: 'Ports', type: 'string', description: 'Ports of TLS configurations that open', jsonPath: '.spec.tls', formatter: 'ingressPorts' },
    AGE_COLUMN,
  ]),
  [NET + 'IngressClass']: groupKind('IngressClass', 'ingressclasses', [], false, [], [
    NAME_COLUMN,
    { name: 'Controller', type: 'string', description: 'Controller that is responsible for handling this class', jsonPath: '.spec.controller' },
    { name: 'Parameters', type: 'string', description: 'A reference to a resource with additional parameters', jsonPath: '.spec.parameters', formatter: 'ingressClassParameters' },
    AGE_COLUMN,
  ]),
  // K pkg/registry/flowcontrol/{flowschema,prioritylevelconfiguration}/storage and strategy.go (cluster scope, status
  // subresource), K pkg/apis/flowcontrol/validation (names: DNS subdomain), K printers.go printFlowSchema /
  // printPriorityLevelConfiguration; v1beta3's lifecycle from k8s.io/api flowcontrol/v1beta3 zz_generated.prerelease-lifecycle.go.
  [FLOWCONTROL + 'FlowSchema']: flowcontrolKind('FlowSchema', 'flowschemas', FLOWSCHEMA_COLUMNS),
  [FLOWCONTROL + 'PriorityLevelConfiguration']: flowcontrolKind('PriorityLevelConfiguration', 'prioritylevelconfigurations', PRIORITY_LEVEL_COLUMNS),
  [FLOWCONTROL_V1BETA3 + 'FlowSchema']: flowcontrolKind('FlowSchema', 'flowschemas', FLOWSCHEMA_COLUMNS, 'v1beta3'),
  [FLOWCONTROL_V1BETA3 + 'PriorityLevelConfiguration']: flowcontrolKind('PriorityLevelConfiguration', 'prioritylevelconfigurations', PRIORITY_LEVEL_COLUMNS, 'v1beta3'),
  // K pkg/registry/autoscaling/horizontalpodautoscaler/storage (short name hpa, category all, status) and strategy.go,
  // K printers.go printHorizontalPodAutoscaler; autoscaling/v2 is the storage version (K pkg/apis/autoscaling/install).
  [AUTOSCALING_V2 + 'HorizontalPodAutoscaler']: horizontalPodAutoscaler(),
  [AUTOSCALING + 'HorizontalPodAutoscaler']: { ...horizontalPodAutoscaler(), storageVersion: 'v2' },
};

// K pkg/registry/core/event (the one storage of both groups), K pkg/apis/core/validation ValidateEventCreate (events.orch.io/v1
// names are DNS subdomains); only metadata.name and metadata.namespace select (no field label conversion for events.k8s.io).
// The printer prints the internal (core) form: the core Event's columns.
RESOURCES[EVENTS + 'Event'] = { ...RESOURCES[CORE + 'Event'], nameValidation: 'DNSSubdomain', fieldSelectors: [], storageVersion: 'v1', storageGroup: '' };

/** HorizontalPodAutoscaler at either version: the columns print the stored (v2) form, as upstream prints the internal one. */
function horizontalPodAutoscaler(): ResourceSpec {
  return {
    plural: 'horizontalpodautoscalers',
    singular: 'horizontalpodautoscaler',
    shortNames: ['hpa'],
    categories: ['all'],
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], kind: 'HorizontalPodAutoscaler' }],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'DNSSubdomain',
    fieldSelectors: [],
    printerColumns: [
      NAME_COLUMN,
      { name: 'Reference', type: 'string', description: { schema: AUTOSCALING_V2 + 'HorizontalPodAutoscalerSpec', property: 'scaleTargetRef' }, jsonPath: '.spec.scaleTargetRef', formatter: 'scaleTargetRef' },
      { name: 'Targets', type: 'string', description: { schema: AUTOSCALING_V2 + 'HorizontalPodAutoscalerSpec', property: 'metrics' }, jsonPath: '.spec.metrics', formatter: 'hpaTargets' },
      { name: 'MinPods', type: 'string', description: { schema: AUTOSCALING_V2 + 'HorizontalPodAutoscalerSpec', property: 'minReplicas' }, jsonPath: '.spec.minReplicas', formatter: 'unsetIfAbsent' },
      { name: 'MaxPods', type: 'string', description: { schema: AUTOSCALING_V2 + 'HorizontalPodAutoscalerSpec', property: 'maxReplicas' }, jsonPath: '.spec.maxReplicas', formatter: 'integer' },
      { name: 'Replicas', type: 'string', description: { schema: AUTOSCALING_V2 + 'HorizontalPodAutoscalerStatus', property: 'currentReplicas' }, jsonPath: '.status.currentReplicas', formatter: 'integer' },
      AGE_COLUMN,
    ],
  };
}

/**
 * A flowcontrol.orch.io kind: cluster-scoped, every verb, a status subresource. An older version is
 * stored at v1 and deprecated in 1.29, unavailable in 1.32 (SPEC 9.7).
 */
function flowcontrolKind(kind: string, plural: string, printerColumns: ColumnSpec[], olderVersion?: 'v1beta3'): ResourceSpec {
  return {
    plural,
    singular: plural.replace(/s$/, ''),
    shortNames: [],
    categories: [],
    namespaced: false,
    verbs: ALL_VERBS,
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'], kind }],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation: 'DNSSubdomain',
    fieldSelectors: [],
    printerColumns,
    ...(olderVersion
      ? {
          storageVersion: 'v1',
          deprecated: { deprecatedIn: '1.29', removedIn: '1.32', replacement: { group: 'flowcontrol.orch.io', version: 'v1', kind } },
        }
      : {}),
  };
}


/**
 * A kind of the named groups (SPEC 9.7): every verb, no category, names DNS subdomains; PUT does not create
 * and an update needs no resourceVersion unless `updates` says otherwise (the strategy's AllowCreateOnUpdate
 * and AllowUnconditionalUpdate).
 */
function groupKind(
  kind: string,
  plural: string,
  shortNames: string[],
  namespaced: boolean,
  subresources: Array<'status'>,
  printerColumns: ColumnSpec[],
  updates: Partial<Pick<ResourceSpec, 'allowCreateOnUpdate' | 'allowUnconditionalUpdate'>> = {},
): ResourceSpec {
  return {
    plural,
    singular: kind.toLowerCase(),
    shortNames,
    categories: [],
    namespaced,
    verbs: ALL_VERBS,
    subresources: subresources.map((name) => ({ name, verbs: ['get', 'patch', 'update'], kind })),
    allowCreateOnUpdate: updates.allowCreateOnUpdate ?? false,
    allowUnconditionalUpdate: updates.allowUnconditionalUpdate ?? true,
    nameValidation: 'DNSSubdomain',
    fieldSelectors: [],
    printerColumns,
  };
}


/** K printers.go: the StorageClass and VolumeAttributesClass columns of a volume (`pv`) or claim (`pvc`). */
function volumeClassColumns(short: 'pv' | 'pvc'): ColumnSpec[] {
  return [
    { name: 'StorageClass', type: 'string', description: `StorageClass of the ${short}`, jsonPath: '.spec.storageClassName', formatter: 'storageClass' },
    { name: 'VolumeAttributesClass', type: 'string', description: `VolumeAttributesClass of the ${short}`, jsonPath: '.spec.volumeAttributesClassName', formatter: 'unsetIfAbsent' },
  ];
}

/** K printers.go: the wide VolumeMode column, `<unset>` when nil. */
function volumeModeColumn(specSchema: string): ColumnSpec {
  return { name: 'VolumeMode', type: 'string', priority: 1, description: { schema: specSchema, property: 'volumeMode' }, jsonPath: '.spec.volumeMode', formatter: 'unsetIfAbsent' };
}

/** A namespaced core/v1 kind (DNS-subdomain names, every verb, no category) with its status and scale subresources. */
function coreKind(kind: string, plural: string, shortNames: string[], subresources: Array<'scale' | 'status'>, printerColumns: ColumnSpec[]): ResourceSpec {
  return { ...workload(kind, plural, shortNames, subresources, 'DNSSubdomain', [], printerColumns), singular: kind.toLowerCase(), categories: [] };
}

/** A namespaced workload kind of apps/v1 or batch/v1: every verb, category `all`, status (and scale) subresources. */
function workload(
  kind: string,
  plural: string,
  shortNames: string[],
  subresources: Array<'scale' | 'status'>,
  nameValidation: ResourceSpec['nameValidation'],
  fieldSelectors: FieldSelectorSpec[],
  printerColumns: ColumnSpec[],
): ResourceSpec {
  return {
    plural,
    singular: plural.replace(/s$/, ''),
    shortNames,
    categories: ['all'],
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: subresources.map((name) =>
      name === 'scale'
        ? { name, verbs: ['get', 'patch', 'update'], group: 'autoscaling', version: 'v1', kind: 'Scale' }
        : { name, verbs: ['get', 'patch', 'update'], kind },
    ),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    nameValidation,
    fieldSelectors,
    printerColumns,
  };
}

/** K printers.go layoutContainerCells (and the selector) of a pod template: the wide columns of the workload printers. */
function templateColumns(template: string, selectorDoc?: DocText, selectorPath?: string): ColumnSpec[] {
  const columns: ColumnSpec[] = [
    { name: 'Containers', type: 'string', priority: 1, description: 'Names of each container in the template.', jsonPath: `${template}.spec.containers`, formatter: 'containerNames' },
    { name: 'Images', type: 'string', priority: 1, description: 'Images referenced by each container in the template.', jsonPath: `${template}.spec.containers`, formatter: 'containerImages' },
  ];
  if (selectorDoc && selectorPath) columns.push({ name: 'Selector', type: 'string', priority: 1, description: selectorDoc, jsonPath: selectorPath, formatter: 'labelSelector' });
  return columns;
}

/** Server-side defaults applied by the generated decoder (`x-orch-default`). */
const DEFAULTS: { schema: string; property: string; value: Json }[] = [
  // K pkg/apis/networking/v1/defaults.go SetDefaults_NetworkPolicyPort
  { schema: NET + 'NetworkPolicyPort', property: 'protocol', value: 'TCP' },
  // K pkg/apis/core/v1/defaults.go SetDefaults_Secret
  { schema: CORE + 'Secret', property: 'type', value: 'Opaque' },
  // K pkg/apis/apps/v1/defaults.go SetDefaults_Deployment, _ReplicaSet, _DaemonSet, _StatefulSet: the defaults
  // that depend on no other field (the update strategies' are in code: they depend on the strategy type).
  { schema: APPS + 'DeploymentSpec', property: 'replicas', value: 1 },
  { schema: APPS + 'DeploymentSpec', property: 'revisionHistoryLimit', value: 10 },
  { schema: APPS + 'DeploymentSpec', property: 'progressDeadlineSeconds', value: 600 },
  { schema: APPS + 'ReplicaSetSpec', property: 'replicas', value: 1 },
  { schema: APPS + 'DaemonSetSpec', property: 'revisionHistoryLimit', value: 10 },
  { schema: APPS + 'StatefulSetSpec', property: 'replicas', value: 1 },
  { schema: APPS + 'StatefulSetSpec', property: 'revisionHistoryLimit', value: 10 },
  { schema: APPS + 'StatefulSetSpec', property: 'podManagementPolicy', value: 'OrderedReady' },
  // K pkg/apis/batch/v1/defaults.go SetDefaults_CronJob (Job's are in code: JobSpec is also a CronJob's
  // jobTemplate.spec, which upstream leaves undefaulted).
  { schema: BATCH + 'CronJobSpec', property: 'concurrencyPolicy', value: 'Allow' },
  { schema: BATCH + 'CronJobSpec', property: 'suspend', value: false },
  { schema: BATCH + 'CronJobSpec', property: 'successfulJobsHistoryLimit', value: 3 },
  { schema: BATCH + 'CronJobSpec', property: 'failedJobsHistoryLimit', value: 1 },
  // K pkg/apis/core/v1/defaults.go SetDefaults_PersistentVolume, _PersistentVolumeClaimSpec, _EndpointPort,
  // _ReplicationController (its selector and labels from the template, and the status phases, are in code).
  { schema: CORE + 'PersistentVolumeSpec', property: 'persistentVolumeReclaimPolicy', value: 'Retain' },
  { schema: CORE + 'PersistentVolumeSpec', property: 'volumeMode', value: 'Filesystem' },
  { schema: CORE + 'PersistentVolumeClaimSpec', property: 'volumeMode', value: 'Filesystem' },
  { schema: CORE + 'EndpointPort', property: 'protocol', value: 'TCP' },
  { schema: CORE + 'ReplicationControllerSpec', property: 'replicas', value: 1 },
  // K pkg/apis/discovery/v1/defaults.go SetDefaults_EndpointPort
  { schema: DISCOVERY + 'EndpointPort', property: 'name', value: '' },
  { schema: DISCOVERY + 'EndpointPort', property: 'protocol', value: 'TCP' },
  // K pkg/apis/storage/v1/defaults.go SetDefaults_StorageClass, SetDefaults_CSIDriver (volumeLifecycleModes is
  // defaulted in code: an empty list gets the default too); seLinuxMount with SELinuxMountReadWriteOncePod (beta, on).
  { schema: STORAGE + 'StorageClass', property: 'reclaimPolicy', value: 'Delete' },
  { schema: STORAGE + 'StorageClass', property: 'volumeBindingMode', value: 'Immediate' },
  { schema: STORAGE + 'CSIDriverSpec', property: 'attachRequired', value: true },
  { schema: STORAGE + 'CSIDriverSpec', property: 'podInfoOnMount', value: false },
  { schema: STORAGE + 'CSIDriverSpec', property: 'storageCapacity', value: false },
  { schema: STORAGE + 'CSIDriverSpec', property: 'fsGroupPolicy', value: 'ReadWriteOnceWithFSType' },
  { schema: STORAGE + 'CSIDriverSpec', property: 'requiresRepublish', value: false },
  { schema: STORAGE + 'CSIDriverSpec', property: 'seLinuxMount', value: false },
  // K pkg/apis/networking/v1/defaults.go SetDefaults_IngressClass: parameters without a scope are Cluster-scoped.
  { schema: NET + 'IngressClassParametersReference', property: 'scope', value: 'Cluster' },
];

/**
 * List/map semantics that must be present (FACTS §6.4). `add` values are merged in
 * when missing; a conflicting upstream value is an error.
 */
const LIST_SEMANTICS: { schema: string; property: string; ext: JsonObject }[] = [
  {
    schema: META + 'ObjectMeta',
    property: 'finalizers',
    ext: { 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
  },
  {
    schema: META + 'ObjectMeta',
    property: 'ownerReferences',
    ext: {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    },
  },
  { schema: META + 'ObjectMeta', property: 'managedFields', ext: { 'x-kubernetes-list-type': 'atomic' } },
  // granular is the default for maps; stated explicitly so the contract is self-describing
  { schema: META + 'ObjectMeta', property: 'labels', ext: { 'x-kubernetes-map-type': 'granular' } },
  { schema: META + 'ObjectMeta', property: 'annotations', ext: { 'x-kubernetes-map-type': 'granular' } },
  { schema: META + 'LabelSelector', property: 'matchExpressions', ext: { 'x-kubernetes-list-type': 'atomic' } },
  { schema: META + 'LabelSelectorRequirement', property: 'values', ext: { 'x-kubernetes-list-type': 'atomic' } },
  { schema: NET + 'NetworkPolicySpec', property: 'ingress', ext: { 'x-kubernetes-list-type': 'atomic' } },
  { schema: NET + 'NetworkPolicySpec', property: 'egress', ext: { 'x-kubernetes-list-type': 'atomic' } },
  { schema: NET + 'NetworkPolicySpec', property: 'policyTypes', ext: { 'x-kubernetes-list-type': 'atomic' } },
  { schema: NET + 'NetworkPolicyIngressRule', property: 'from', ext: { 'x-kubernetes-list-type': 'atomic' } },
  { schema: NET + 'NetworkPolicyIngressRule', property: 'ports', ext: { 'x-kubernetes-list-type': 'atomic' } },
  { schema: NET + 'NetworkPolicyEgressRule', property: 'to', ext: { 'x-kubernetes-list-type': 'atomic' } },
  { schema: NET + 'NetworkPolicyEgressRule', property: 'ports', ext: { 'x-kubernetes-list-type': 'atomic' } },
  { schema: NET + 'IPBlock', property: 'except', ext: { 'x-kubernetes-list-type': 'atomic' } },
];
/** Whole-schema semantics that must be present. */
const MAP_SEMANTICS: { schema: string; ext: JsonObject }[] = [
  { schema: META + 'LabelSelector', ext: { 'x-kubernetes-map-type': 'atomic' } },
  { schema: META + 'OwnerReference', ext: { 'x-kubernetes-map-type': 'atomic' } },
];

// ---------------------------------------------------------------------------
// Derivation

const REF_PREFIX = '#/components/schemas/';

function collectRefs(node: Json, out: Set<string>): void {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, out));
  else if (isObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') {
        if (!v.startsWith(REF_PREFIX)) fail(`unexpected $ref ${v}`);
        out.add(v.slice(REF_PREFIX.length));
      } else collectRefs(v, out);
    }
  }
}

function loadSchemaPool(openapiDir: string): Map<string, JsonObject> {
  const pool = new Map<string, JsonObject>();
  for (const file of UPSTREAM_FILES) {
    const doc = JSON.parse(readFileSync(path.join(openapiDir, file), 'utf8')) as JsonObject;
    const components = doc.components;
    const schemas = isObject(components) ? components.schemas : undefined;
    if (!isObject(schemas)) fail(`${file} has no components.schemas`);
    for (const [name, schema] of Object.entries(schemas)) {
      if (!isObject(schema)) fail(`${file}: schema ${name} is not an object`);
      const seen = pool.get(name);
      if (seen && canonicalJson(seen) !== canonicalJson(schema)) fail(`schema ${name} differs between reference documents`);
      if (!seen) pool.set(name, schema);
    }
  }
  return pool;
}

function closure(pool: Map<string, JsonObject>, roots: string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (seen.has(name)) continue;
    const schema = pool.get(name);
    if (!schema) fail(`schema ${name} not found in the reference documents`);
    seen.add(name);
    const refs = new Set<string>();
    collectRefs(schema, refs);
    stack.push(...refs);
  }
  return seen;
}

/** Rename one schema node (recursively): $refs, descriptions, GVK groups. */
function transformSchema(node: Json, refFor: (upstream: string) => string): Json {
  if (Array.isArray(node)) return node.map((n) => transformSchema(n, refFor));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') out[k] = refFor(v.slice(REF_PREFIX.length));
    else if (k === 'description' && typeof v === 'string') out[k] = renameText(v);
    else if (k === 'properties' && isObject(v)) {
      const props: JsonObject = {};
      for (const [pname, pschema] of Object.entries(v)) props[pname] = transformSchema(pschema, refFor);
      out[k] = props;
    } else if (k === 'x-kubernetes-group-version-kind' && Array.isArray(v)) {
      out[k] = v.map((gvk) => {
        if (!isObject(gvk) || typeof gvk.group !== 'string') fail('malformed x-kubernetes-group-version-kind');
        return { ...gvk, group: renameGroup(gvk.group) };
      });
    } else if (k === 'default' || k === 'enum' || k === 'example') out[k] = clone(v);
    else out[k] = transformSchema(v, refFor);
  }
  return out;
}

function propertyOf(schema: JsonObject, property: string, where: string): JsonObject {
  const props = schema.properties;
  const p = isObject(props) ? props[property] : undefined;
  if (!isObject(p)) fail(`${where}: property ${property} not found`);
  return p;
}

/** Adds keys to a property schema; a bare `$ref` is wrapped in allOf first (siblings of $ref are ignored in OAS 3.0). */
function annotate(prop: JsonObject, ext: JsonObject): void {
  if (typeof prop.$ref === 'string') {
    prop.allOf = [{ $ref: prop.$ref }];
    delete prop.$ref;
  }
  Object.assign(prop, ext);
}

function resolveDocText(text: DocText, renamed: Map<string, JsonObject>): string {
  if (typeof text === 'string') return text;
  const schema = renamed.get(text.schema);
  if (!schema) fail(`column description: schema ${text.schema} not in the contract`);
  const d = propertyOf(schema, text.property, text.schema).description;
  if (typeof d !== 'string') fail(`column description: ${text.schema}.${text.property} has no description`);
  return d;
}

function resourceExtension(kindSchema: string, spec: ResourceSpec, renamed: Map<string, JsonObject>): JsonObject {
  const kindName = kindSchema.slice(kindSchema.lastIndexOf('.') + 1);
  const sortedVerbs = (v: string[]): string[] => [...v].sort();
  return {
    plural: spec.plural,
    singular: spec.singular,
    shortNames: [...spec.shortNames],
    categories: [...spec.categories],
    namespaced: spec.namespaced,
    verbs: sortedVerbs(spec.verbs),
    ...(spec.stored === false ? { stored: false } : { listKind: kindName + 'List' }),
    subresources: [...spec.subresources]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((s) => {
        const o: JsonObject = { name: s.name, verbs: sortedVerbs(s.verbs), kind: s.kind };
        if (s.group !== undefined) o.group = s.group;
        if (s.version !== undefined) o.version = s.version;
        return o;
      }),
    allowCreateOnUpdate: spec.allowCreateOnUpdate,
    allowUnconditionalUpdate: spec.allowUnconditionalUpdate,
    nameValidation: spec.nameValidation,
    fieldSelectors: [...spec.fieldSelectors]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((f) => {
        const o: JsonObject = { name: f.name, jsonPath: f.jsonPath };
        if (f.fallbackJsonPath !== undefined) o.fallbackJsonPath = f.fallbackJsonPath;
        if (f.default !== undefined) o.default = f.default;
        return o;
      }),
    ...(spec.storageVersion ? { storageVersion: spec.storageVersion } : {}),
    ...(spec.storageGroup !== undefined ? { storageGroup: spec.storageGroup } : {}),
    ...(spec.deprecated ? { deprecated: clone(spec.deprecated as unknown as Json) } : {}),
    printerColumns: spec.printerColumns.map((c) => {
      const o: JsonObject = {
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: resolveDocText(c.description, renamed),
        priority: c.priority ?? 0,
        jsonPath: c.jsonPath,
      };
      if (c.formatter !== undefined) o.formatter = c.formatter;
      return o;
    }),
  };
}

export interface DeriveResult {
  /** file name → file content */
  files: Map<string, string>;
  /** human-readable notes (properties without proto fields, remaining vendor words) */
  notes: string[];
}

export function derive(refDir: string): DeriveResult {
  const pool = loadSchemaPool(path.join(refDir, 'openapi'));
  const proto = loadProtoIndex(path.join(refDir, 'proto'));
  const notes: string[] = [];

  // 1. closure of every document's roots; the owner of each schema is decided by its name
  const all = closure(
    pool,
    DOCS.flatMap((d) => d.roots),
  );
  const ownerOf = new Map<string, DocSpec>();
  for (const name of all) {
    const owners = DOCS.filter((d) => d.owns(name));
    if (owners.length !== 1) fail(`schema ${name} has ${owners.length} owning documents`);
    ownerOf.set(name, owners[0]);
  }

  // 2. rename + split
  const renamed = new Map<string, JsonObject>(); // keyed by *upstream* name
  for (const name of [...all].sort()) {
    const home = ownerOf.get(name)!;
    const refFor = (target: string): string => {
      const targetDoc = ownerOf.get(target);
      if (!targetDoc) fail(`${name} refers to ${target}, which is not in the contract`);
      const local = REF_PREFIX + renameSchemaName(target);
      return targetDoc === home ? local : `./${targetDoc.file}${local}`;
    };
    renamed.set(name, transformSchema(pool.get(name)!, refFor) as JsonObject);
  }

  // 3. protobuf annotations
  for (const [name, schema] of renamed) {
    const message = proto.get(protoMessageName(name));
    if (!message) {
      notes.push(`no proto message for ${name}`);
      continue;
    }
    schema['x-orch-protobuf-message'] = protoMessageName(name);
    const props = schema.properties;
    if (!isObject(props)) continue;
    const used = new Set<string>();
    for (const [pname, pschema] of Object.entries(props)) {
      if (!isObject(pschema)) continue;
      const found = protoFieldOf(proto, protoMessageName(name), message, pname, new Set(Object.keys(props)));
      if (!found) {
        notes.push(`no proto field for ${name}.${pname}`);
        continue;
      }
      used.add(found.outer);
      annotate(pschema, { 'x-orch-protobuf-field': found.number });
      if (found.inline) annotate(pschema, { 'x-orch-protobuf-inline': found.inline });
    }
    for (const fname of message.keys()) {
      if (!used.has(fname)) notes.push(`proto field ${protoMessageName(name)}.${fname} has no JSON property`);
    }
  }

  // 4. resources
  for (const [kindSchema, spec] of Object.entries(RESOURCES)) {
    const schema = renamed.get(kindSchema);
    if (!schema) fail(`resource kind ${kindSchema} not in the contract`);
    const gvk = schema['x-kubernetes-group-version-kind'];
    if (!Array.isArray(gvk) || gvk.length !== 1) fail(`${kindSchema} must have exactly one group-version-kind`);
    if (spec.stored !== false && !renamed.has(kindSchema + 'List')) fail(`${kindSchema}List missing`);
    schema['x-orch-resource'] = resourceExtension(kindSchema, spec, renamed);
  }

  // 5. defaults
  for (const d of DEFAULTS) {
    const schema = renamed.get(d.schema);
    if (!schema) fail(`default: ${d.schema} not in the contract`);
    annotate(propertyOf(schema, d.property, d.schema), { 'x-orch-default': d.value });
  }

  // 6. list / map semantics: verify, add when missing
  for (const l of LIST_SEMANTICS) {
    const schema = renamed.get(l.schema);
    if (!schema) fail(`list semantics: ${l.schema} not in the contract`);
    const prop = propertyOf(schema, l.property, l.schema);
    for (const [k, v] of Object.entries(l.ext)) {
      if (prop[k] === undefined) {
        prop[k] = clone(v);
        notes.push(`added ${k} to ${l.schema}.${l.property}`);
      } else if (canonicalJson(prop[k]) !== canonicalJson(v)) {
        fail(`${l.schema}.${l.property}: upstream ${k}=${JSON.stringify(prop[k])}, expected ${JSON.stringify(v)}`);
      }
    }
  }
  for (const m of MAP_SEMANTICS) {
    const schema = renamed.get(m.schema);
    if (!schema) fail(`map semantics: ${m.schema} not in the contract`);
    for (const [k, v] of Object.entries(m.ext)) {
      if (schema[k] === undefined) {
        schema[k] = clone(v);
        notes.push(`added ${k} to ${m.schema}`);
      } else if (canonicalJson(schema[k]) !== canonicalJson(v)) fail(`${m.schema}: unexpected ${k}`);
    }
  }

  // 7. assemble documents
  const files = new Map<string, string>();
  for (const doc of DOCS) {
    const schemas: JsonObject = {};
    for (const [name, schema] of renamed) if (ownerOf.get(name) === doc) schemas[renameSchemaName(name)] = schema;
    const out: JsonObject = {
      openapi: '3.0.3',
      info: {
        title: doc.title,
        version: 'v1',
        description: doc.description,
        'x-orch-upstream': {
          release: 'kubernetes release-1.31',
          openapi: doc.upstream.map((f) => `api/openapi-spec/v3/${f}`),
          proto: 'k8s.io/api, k8s.io/apimachinery v0.31.14 generated.proto',
          generator: 'scripts/derive-contract.ts',
        },
      },
      paths: {},
      components: { schemas },
    };
    const text = canonicalJson(out);
    for (const m of text.matchAll(/"description": "((?:[^"\\]|\\.)*)"/g)) {
      const stripped = m[1].split(PROTECTED_SPANS).filter((_, i) => i % 2 === 0).join('');
      const hit = stripped.match(/.{0,30}(?:k8s\.io|kubernetes\.io\/|kube-(?:system|public)).{0,30}/);
      if (hit) notes.push(`${doc.file}: vendor identifier left in description: …${hit[0]}…`);
    }
    files.set(doc.file, text);
  }
  return { files, notes };
}

function main(): void {
  const { ref, out } = parseArgs(process.argv.slice(2));
  if (!existsSync(ref)) fail(`reference directory ${ref} not found (use --ref)`);
  const { files, notes } = derive(ref);
  mkdirSync(out, { recursive: true });
  for (const [name, text] of files) writeFileSync(path.join(out, name), text);
  if (process.env.DERIVE_CONTRACT_VERBOSE) for (const n of notes) process.stderr.write(`note: ${n}\n`);
  process.stdout.write(`wrote ${[...files.keys()].join(', ')} to ${path.relative(process.cwd(), out) || '.'}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
