/**
 * Decoding an orchconfig document (kubeconfig format `v1`/`Config`, SPEC 2.9,
 * 2.10) as client-go's clientcmd.Load does: YAML or JSON, the named lists
 * turned into maps (a duplicate name is an error), fields of the wrong type
 * refused, `*-data` fields base64, exec's interactiveMode defaulted for v1beta1.
 * Unknown fields are ignored, as upstream's decoder ignores them.
 */
import { yaml } from '../util/lazy-packages.ts';

export type Fields = Record<string, unknown>;

export interface OrchconfigDocument {
  clusters: Map<string, Fields>;
  users: Map<string, Fields>;
  contexts: Map<string, Fields>;
  currentContext: string;
}

/** The plugin group of SPEC 2.10; v1beta1 defaults interactiveMode, v1 requires it. */
export const EXEC_API_VERSIONS = ['client.authentication.orch.io/v1', 'client.authentication.orch.io/v1beta1'];

const STRING_FIELDS = {
  cluster: ['server', 'tls-server-name', 'certificate-authority', 'proxy-url'],
  user: ['client-certificate', 'client-key', 'token', 'tokenFile', 'as', 'as-uid', 'username', 'password'],
  context: ['cluster', 'user', 'namespace'],
  exec: ['command', 'apiVersion', 'installHint', 'interactiveMode'],
};
const BOOLEAN_FIELDS = { cluster: ['insecure-skip-tls-verify', 'disable-compression'], exec: ['provideClusterInfo'] };
const DATA_FIELDS = { cluster: ['certificate-authority-data'], user: ['client-certificate-data', 'client-key-data'] };

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

function mismatch(value: unknown, where: string, type: string): Error {
  return new Error(`json: cannot unmarshal ${typeName(value)} into Go struct field ${where} of type ${type}`);
}

function object(value: unknown, where: string): Fields {
  if (value == null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw mismatch(value, where, 'object');
  return value as Fields;
}

function list(value: unknown, where: string): unknown[] {
  if (value == null) return [];
  if (!Array.isArray(value)) throw mismatch(value, where, 'array');
  return value;
}

/** Go's encoding/json reads []byte as standard base64, skipping line breaks. */
function base64(value: string, where: string): string {
  const compact = value.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) throw new Error(`illegal base64 data in ${where}`);
  return Buffer.from(compact, 'base64').toString('utf8');
}

/** Type-checks one section in place; `*-data` fields come back decoded. */
function section(raw: unknown, kind: 'cluster' | 'user' | 'context', where: string): Fields {
  const fields = { ...object(raw, where) };
  for (const key of STRING_FIELDS[kind]) if (fields[key] != null && typeof fields[key] !== 'string') throw mismatch(fields[key], `${where}.${key}`, 'string');
  for (const key of (BOOLEAN_FIELDS as Record<string, string[]>)[kind] ?? []) if (fields[key] != null && typeof fields[key] !== 'boolean') throw mismatch(fields[key], `${where}.${key}`, 'bool');
  for (const key of (DATA_FIELDS as Record<string, string[]>)[kind] ?? []) {
    if (fields[key] == null) continue;
    if (typeof fields[key] !== 'string') throw mismatch(fields[key], `${where}.${key}`, '[]uint8');
    fields[key] = base64(fields[key] as string, `${where}.${key}`);
  }
  if (kind === 'cluster') fields.extensions = named(fields.extensions, `${where}.extensions`, (e) => e, 'extension');
  if (kind === 'user') {
    if (fields['as-groups'] != null && !list(fields['as-groups'], `${where}.as-groups`).every((g) => typeof g === 'string')) throw mismatch(fields['as-groups'], `${where}.as-groups`, '[]string');
    const extra = object(fields['as-user-extra'], `${where}.as-user-extra`);
    for (const [key, values] of Object.entries(extra)) if (!list(values, `${where}.as-user-extra.${key}`).every((v) => typeof v === 'string')) throw mismatch(values, `${where}.as-user-extra`, 'map[string][]string');
    if (fields.exec != null) fields.exec = execSection(fields.exec, `${where}.exec`);
  }
  return fields;
}

function execSection(raw: unknown, where: string): Fields {
  const exec = { ...object(raw, where) };
  for (const key of STRING_FIELDS.exec) if (exec[key] != null && typeof exec[key] !== 'string') throw mismatch(exec[key], `${where}.${key}`, 'string');
  for (const key of BOOLEAN_FIELDS.exec) if (exec[key] != null && typeof exec[key] !== 'boolean') throw mismatch(exec[key], `${where}.${key}`, 'bool');
  exec.args = list(exec.args, `${where}.args`).map((arg) => {
    if (typeof arg !== 'string') throw mismatch(arg, `${where}.args`, 'string');
    return arg;
  });
  exec.env = list(exec.env, `${where}.env`).map((entry) => {
    const env = object(entry, `${where}.env`);
    for (const key of ['name', 'value']) if (env[key] != null && typeof env[key] !== 'string') throw mismatch(env[key], `${where}.env.${key}`, 'string');
    return { name: (env.name as string | undefined) ?? '', value: (env.value as string | undefined) ?? '' };
  });
  // client-go's SetDefaults_ExecConfig: the older version keeps its old behaviour, v1 must say.
  if (!exec.interactiveMode && exec.apiVersion === 'client.authentication.orch.io/v1beta1') exec.interactiveMode = 'IfAvailable';
  return exec;
}

/** A named list (`[{name, cluster: {...}}]`) as a map; upstream refuses a name given twice. */
function named<T>(raw: unknown, where: string, read: (value: unknown, where: string) => T, entryKey: string): Map<string, T> {
  const out = new Map<string, T>();
  for (const item of list(raw, where)) {
    const entry = object(item, where);
    if (entry.name != null && typeof entry.name !== 'string') throw mismatch(entry.name, `${where}.name`, 'string');
    const name = (entry.name as string | undefined) ?? '';
    if (out.has(name)) throw new Error(`duplicate name "${name}" in list ${where}`);
    out.set(name, read(entry[entryKey], `${where}.${entryKey}`));
  }
  return out;
}

/** Decodes an orchconfig's text; an empty document is an empty config, as upstream. */
export function decodeOrchconfig(text: string): OrchconfigDocument {
  let doc: unknown;
  try {
    doc = text.trim() === '' ? {} : yaml().parse(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new Error(`yaml: ${(err as Error).message.split('\n')[0]}`);
  }
  const root = object(doc, 'Config');
  if (root.apiVersion != null && root.apiVersion !== '' && root.apiVersion !== 'v1') throw new Error(`no kind "Config" is registered for version "${String(root.apiVersion)}"`);
  if (root.kind != null && root.kind !== '' && root.kind !== 'Config') throw new Error(`no kind "${String(root.kind)}" is registered for version "v1"`);
  if (root['current-context'] != null && typeof root['current-context'] !== 'string') throw mismatch(root['current-context'], 'Config.current-context', 'string');
  return {
    clusters: named(root.clusters, 'clusters', (v, w) => section(v, 'cluster', w), 'cluster'),
    users: named(root.users, 'users', (v, w) => section(v, 'user', w), 'user'),
    contexts: named(root.contexts, 'contexts', (v, w) => section(v, 'context', w), 'context'),
    currentContext: (root['current-context'] as string | undefined) ?? '',
  };
}
