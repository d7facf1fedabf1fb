/**
 * One line of an ABAC policy file (SPEC 5.1 item 5, mode ABAC), decoded as
 * upstream's pkg/apis/abac scheme decodes it: a line that names a registered
 * kind (`abac.authorization.orch.io/v1beta1` or `v0`, kind `Policy`) is that
 * version; a line without a kind or version, or naming one the scheme does
 * not know, is read again as a v0 policy (an "unversioned" line). Each version
 * is then converted to the one spec the authorizer matches, with upstream's
 * rules about `*` and empty fields.
 */
import { yaml } from '../../util/lazy-packages.ts';
import { goJSONObjectError, jsonDepthError } from '../../registry/validation/go-json.ts';
import { AUTHENTICATED_GROUP } from '../../api/user.ts';

/** upstream's abac.GroupName, renamed. */
export const ABAC_GROUP = 'abac.authorization.orch.io';

/** upstream abac.PolicySpec: what one policy grants, after conversion. */
export interface PolicySpec {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

export interface DecodedPolicy {
  spec: PolicySpec;
  /** The line was read as a v0 policy because it named no registered kind. */
  unversioned: boolean;
}

// ---- Go's JSON decoding into the scheme's structs ----

/** A field's Go type: a string, a bool, or a nested struct (named as Go's errors print it). */
type GoField = 'string' | 'bool' | { goType: string; struct: GoStruct };

interface GoStruct {
  /** The Go type's name, as json's errors print it (`Policy.spec.user`). */
  name: string;
  fields: Map<string, GoField>;
}

const goStruct = (name: string, fields: Record<string, GoField>): GoStruct => ({ name, fields: new Map(Object.entries(fields)) });

/** PolicySpec's fields: json name (v1beta1), Go name (the internal type, which has no json tags), type. */
const SPEC_FIELDS: Array<[keyof PolicySpec, string, 'string' | 'bool']> = [
  ['user', 'User', 'string'],
  ['group', 'Group', 'string'],
  ['readonly', 'Readonly', 'bool'],
  ['apiGroup', 'APIGroup', 'string'],
  ['resource', 'Resource', 'string'],
  ['namespace', 'Namespace', 'string'],
  ['nonResourcePath', 'NonResourcePath', 'string'],
];
const specStruct = (goNames: boolean) => goStruct('PolicySpec', Object.fromEntries(SPEC_FIELDS.map(([json, go, type]) => [goNames ? go : json, type])));

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * sigs.k8s.io/json's case-sensitive, non-strict decoding: unknown keys are
 * ignored, null leaves the zero value, and the first value of the wrong type
 * is the error (`json: cannot unmarshal number into Go struct field PolicySpec.spec.user of type string`).
 */
function decodeInto(value: unknown, struct: GoStruct, stack: string[] = []): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!isObject(value)) return out;
  for (const [key, field] of Object.entries(value)) {
    const type = struct.fields.get(key);
    if (type === undefined || field === null) continue;
    const path = [...stack, key];
    const fail = (goType: string) => new Error(`json: cannot unmarshal ${jsonKind(field)} into Go struct field ${struct.name}.${path.join('.')} of type ${goType}`);
    if (type === 'string' || type === 'bool') {
      if (typeof field !== (type === 'bool' ? 'boolean' : 'string')) throw fail(type);
      out.set(key, field);
    } else {
      if (!isObject(field)) throw fail(type.goType);
      out.set(key, decodeInto(field, type.struct, path));
    }
  }
  return out;
}

const text = (fields: Map<string, unknown>, key: string) => (fields.get(key) as string | undefined) ?? '';

// ---- the scheme: registered kinds and their conversions ----

interface Kind {
  /** Go's type name, as the converter's errors print it. */
  goType: string;
  struct: GoStruct;
  convert(fields: Map<string, unknown>): PolicySpec;
}

/** upstream v0 conversion: empty subjects, namespaces and resources mean "all"; every API group. */
const V0: Kind = {
  goType: 'v0.Policy',
  struct: goStruct('Policy', { user: 'string', group: 'string', readonly: 'bool', resource: 'string', namespace: 'string' }),
  convert(fields) {
    const [user, group, namespace, resource] = ['user', 'group', 'namespace', 'resource'].map((key) => text(fields, key));
    const spec: PolicySpec = { user, group, readonly: fields.get('readonly') === true, apiGroup: '*', resource: resource || '*', namespace: namespace || '*', nonResourcePath: '' };
    if (!user && !group) spec.group = AUTHENTICATED_GROUP;
    if (user === '*' || group === '*') Object.assign(spec, { group: AUTHENTICATED_GROUP, user: '' });
    // Neither a namespace nor a resource also opens every non-resource path.
    if (!namespace && !resource) spec.nonResourcePath = '*';
    return spec;
  },
};

/** The spec a v1beta1 or internal Policy carries, as written. */
function writtenSpec(policy: Map<string, unknown>, goNames: boolean): PolicySpec {
  const fields = (policy.get(goNames ? 'Spec' : 'spec') as Map<string, unknown> | undefined) ?? new Map<string, unknown>();
  const spec: Record<string, unknown> = {};
  for (const [json, go, type] of SPEC_FIELDS) spec[json] = fields.get(goNames ? go : json) ?? (type === 'bool' ? false : '');
  return spec as unknown as PolicySpec;
}

/** upstream v1beta1 conversion: the spec as written, but `*` as user or group is every authenticated user. */
const V1BETA1: Kind = {
  goType: 'v1beta1.Policy',
  struct: goStruct('Policy', { spec: { goType: 'v1beta1.PolicySpec', struct: specStruct(false) } }),
  convert(fields) {
    const spec = writtenSpec(fields, false);
    if (spec.user === '*' || spec.group === '*') Object.assign(spec, { group: AUTHENTICATED_GROUP, user: '' });
    return spec;
  },
};

/** The internal version is registered too; it decodes as is, with no conversion rules. */
const INTERNAL: Kind = {
  goType: 'abac.Policy',
  struct: goStruct('Policy', { Spec: { goType: 'abac.PolicySpec', struct: specStruct(true) } }),
  convert: (fields) => writtenSpec(fields, true),
};

const INTERNAL_VERSION = '__internal';
const KINDS = new Map<string, Kind>([
  ['v0', V0],
  ['v1beta1', V1BETA1],
  [INTERNAL_VERSION, INTERNAL],
]);
/** Where upstream's abac.Scheme is made, which its not-registered errors name. */
const SCHEME_NAME = 'pkg/apis/abac/register.go:33';

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const kindOf = ({ group, version, kind }: GroupVersionKind) => (group === ABAC_GROUP && kind === 'Policy' ? KINDS.get(version) : undefined);

function notRegistered({ group, version, kind }: GroupVersionKind): Error {
  if (version === INTERNAL_VERSION) return new Error(`no kind "${kind}" is registered for the internal version of group "${group}" in scheme "${SCHEME_NAME}"`);
  return new Error(`no kind "${kind}" is registered for version "${group ? `${group}/${version}` : version}" in scheme "${SCHEME_NAME}"`);
}

// ---- reading the line ----

/** Go's unicode.IsSpace, which unlike JavaScript's trim leaves a byte-order mark alone. */
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const LEADING_SPACE = new RegExp(`^${GO_SPACE}+`);
const SURROUNDING_SPACE = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

/** strings.TrimSpace: blank and `#` lines are skipped on this. */
export const goTrimSpace = (line: string) => line.replace(SURROUNDING_SPACE, '');

const FIND_KIND = `couldn't get version/kind; json parse error: `;

/**
 * The universal decoder's choice of serializer: a line starting with `{` is
 * JSON, anything else YAML (a one-line YAML document). Syntax errors carry
 * Go's texts for JSON; YAML's are this parser's.
 */
function parseLine(line: string): unknown {
  if (line.replace(LEADING_SPACE, '').startsWith('{')) {
    const tooDeep = jsonDepthError(line);
    if (tooDeep) throw new Error(FIND_KIND + tooDeep);
    try {
      return JSON.parse(line);
    } catch (err) {
      // Go's scanner text for the same error.
      throw new Error(FIND_KIND + (goJSONObjectError(line) ?? (err as Error).message));
    }
  }
  try {
    return yaml().parse(line, { schema: 'core', uniqueKeys: false, merge: true, maxAliasCount: 100, logLevel: 'error' }) ?? null;
  } catch (err) {
    throw new Error(`yaml: line 1: ${(err as Error).message.split(' at line ')[0]}`);
  }
}

/** The json serializer's SimpleMetaFactory.Interpret: apiVersion and kind, matched as encoding/json matches (case-insensitively). */
function findKind(value: unknown): GroupVersionKind {
  if (value !== null && !isObject(value)) {
    throw new Error(`${FIND_KIND}json: cannot unmarshal ${jsonKind(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  let apiVersion = '';
  let kind = '';
  for (const [key, field] of Object.entries(value ?? {})) {
    const name = key.toLowerCase() === 'apiversion' ? 'apiVersion' : key.toLowerCase() === 'kind' ? 'kind' : undefined;
    if (!name || field === null) continue;
    if (typeof field !== 'string') throw new Error(`${FIND_KIND}json: cannot unmarshal ${jsonKind(field)} into Go struct field .${name} of type string`);
    if (name === 'kind') kind = field;
    else apiVersion = field;
  }
  // schema.ParseGroupVersion
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '', kind };
  const parts = apiVersion.split('/');
  if (parts.length > 2) throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
  return parts.length === 1 ? { group: '', version: apiVersion, kind } : { group: parts[0], version: parts[1], kind };
}

/** The json serializer's gvkWithDefaults, the defaults being v0's Policy. */
function withV0Defaults(actual: GroupVersionKind): GroupVersionKind {
  const out = { ...actual, kind: actual.kind || 'Policy' };
  if (!out.version && (!out.group || out.group === ABAC_GROUP)) Object.assign(out, { group: ABAC_GROUP, version: 'v0' });
  return out;
}

/**
 * Decodes one policy line as upstream's NewFromFile does, or throws the error
 * upstream reports for it (without the file and line, which the caller adds).
 */
export function decodePolicyLine(line: string): DecodedPolicy {
  const value = parseLine(line);
  const actual = findKind(value);
  const registered = actual.kind && actual.version ? kindOf(actual) : undefined;
  if (registered) return { spec: registered.convert(decodeInto(value, registered.struct)), unversioned: false };
  // A missing kind or version, or a kind the scheme does not know: upstream reads the line again into a v0 Policy.
  const target = withV0Defaults(actual);
  const kind = kindOf(target);
  if (!kind) throw notRegistered(target);
  const fields = decodeInto(value, kind.struct);
  if (kind !== V0) throw new Error(`converting (${kind.goType}) to (${V0.goType}): unknown conversion`);
  return { spec: V0.convert(fields), unversioned: true };
}
