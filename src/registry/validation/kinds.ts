/**
 * Per-kind spec validation and defaulting (SPEC 2.6, FACTS 6; core kinds
 * translated from upstream kubernetes pkg/apis/core/validation and
 * networking/validation at the 1.31 line). ObjectMeta is validated separately
 * by the caller (object-meta.ts). Each validator is `(obj, old?) => FieldError[]`;
 * `old` present means update. Objects are in their versioned JSON shape.
 */
import { BOOTSTRAP_TOKEN_TYPE, validateBootstrapTokenSecret } from '../bootstrap-token.ts';
import { type FieldError, forbidden, index, invalid, required, tooLong } from './field-errors.ts';
import { goJSONObjectError } from './go-json.ts';
import { isConfigMapKey, isDNS1123Subdomain, isQualifiedName } from './names.ts';
import { FIELD_IMMUTABLE, validateStandardFinalizerName } from './object-meta.ts';
import { setOwn } from '../json-value.ts';

export { defaultNetworkPolicy, validateNetworkPolicy, validateNetworkPolicySpec } from './network-policy.ts';
export { goJSONObjectError } from './go-json.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

// ---------------------------------------------------------------- Namespace

/** Namespace: each spec.finalizers entry a qualified, standard-or-prefixed name at `spec.finalizers` (upstream ValidateNamespace). */
export function validateNamespace(obj: any, _old?: any): FieldError[] {
  const path = 'spec.finalizers';
  return arr(obj?.spec?.finalizers).flatMap((f) => {
    const name = str(f);
    return [...isQualifiedName(name).map((m) => invalid(path, name, m)), ...validateStandardFinalizerName(name, path)];
  });
}

/**
 * Namespace defaulting and strategy preparation (upstream SetDefaults_Namespace,
 * namespace strategy PrepareForCreate/PrepareForUpdate, renamed):
 * label `orch.io/metadata.name` = name; create: status `{phase: Active}` and
 * finalizer `orch` appended to spec.finalizers; update: spec.finalizers and
 * status kept from `old`; status.phase defaults to `Active`.
 */
export function defaultNamespace(obj: any, old?: any): void {
  if (old) {
    obj.spec = { ...(obj.spec ?? {}) };
    if (old.spec?.finalizers !== undefined) obj.spec.finalizers = [...old.spec.finalizers];
    else delete obj.spec.finalizers;
    obj.status = old.status === undefined ? undefined : structuredClone(old.status);
  } else {
    obj.status = { phase: 'Active' };
    obj.spec = isObj(obj.spec) ? obj.spec : {};
    const fins = arr(obj.spec.finalizers);
    if (!fins.includes('orch')) obj.spec.finalizers = [...fins, 'orch'];
  }
  if (!isObj(obj.status)) obj.status = {};
  if (!obj.status.phase) obj.status.phase = 'Active';
  const name = str(obj.metadata?.name);
  if (name) {
    obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'orch.io/metadata.name': name };
  }
}

// ---------------------------------------------------------------- ConfigMap / Secret

/** ConfigMap / Secret data limit: 1 MiB (upstream core MaxSecretSize). */
export const MAX_DATA_SIZE = 1024 * 1024;
const IMMUTABLE_SET = 'field is immutable when `immutable` is set';

function b64Len(v: unknown): number {
  return Buffer.from(str(v), 'base64').length;
}

function mapsEqual(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null);
  const ea = Object.entries(a as object);
  const bo = b as Record<string, unknown>;
  return ea.length === Object.keys(bo).length && ea.every(([k, v]) => Object.hasOwn(bo, k) && bo[k] === v);
}

function immutableFlagErrors(obj: any, old: any, fields: string[]): FieldError[] {
  if (!old || old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj?.immutable !== true) errs.push(forbidden('immutable', IMMUTABLE_SET));
  for (const f of fields) if (!mapsEqual(obj?.[f], old[f])) errs.push(forbidden(f, IMMUTABLE_SET));
  return errs;
}

/**
 * ConfigMap (upstream ValidateConfigMap/Update): keys via isConfigMapKey at
 * `data[key]` / `binaryData[key]`, a data key also in binaryData is Invalid,
 * total size > 1 MiB is TooLong at field `[]` (upstream passes an empty path:
 * the whole object), and `immutable` freezes data, binaryData and itself.
 */
export function validateConfigMap(obj: any, old?: any): FieldError[] {
  const errs = immutableFlagErrors(obj, old, ['data', 'binaryData']);
  const data = isObj(obj?.data) ? obj.data : {};
  const bin = isObj(obj?.binaryData) ? obj.binaryData : {};
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(index('data', k), k, m));
    if (Object.hasOwn(bin, k)) errs.push(invalid(index('data', k), k, 'duplicate of key present in binaryData'));
    total += Buffer.byteLength(str(v), 'utf8');
  }
  for (const [k, v] of Object.entries(bin)) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(index('binaryData', k), k, m));
    total += b64Len(v);
  }
  if (total > MAX_DATA_SIZE) errs.push(tooLong('[]', '', MAX_DATA_SIZE));
  return errs;
}

/** Moves `stringData` into `data` (base64) and drops it, as upstream's v1→internal conversion does. */
export function mergeSecretStringData(obj: any): void {
  if (!isObj(obj.stringData)) {
    delete obj.stringData;
    return;
  }
  const entries = Object.entries(obj.stringData);
  if (entries.length > 0) {
    obj.data = isObj(obj.data) ? obj.data : {};
    for (const [k, v] of entries) setOwn(obj.data, k, Buffer.from(str(v), 'utf8').toString('base64'));
  }
  delete obj.stringData;
}

/** Secret defaulting (upstream SetDefaults_Secret): type `Opaque` when empty. */
export function defaultSecret(obj: any): void {
  if (!obj.type) obj.type = 'Opaque';
}

/**
 * Secret (upstream ValidateSecret/Update, renamed types): keys at `data[key]`,
 * total ≤ 1 MiB (TooLong at `data`), per-type required keys, `type`
 * immutable, `immutable` freezes data. Expects stringData already merged.
 */
export function validateSecret(obj: any, old?: any): FieldError[] {
  const errs: FieldError[] = [];
  if (old) {
    if (str(obj?.type) !== str(old.type)) errs.push(invalid('type', str(obj?.type), FIELD_IMMUTABLE));
    errs.push(...immutableFlagErrors(obj, old, ['data']));
  }
  const data: Record<string, unknown> = isObj(obj?.data) ? obj.data : {};
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(index('data', k), k, m));
    total += b64Len(v);
  }
  if (total > MAX_DATA_SIZE) errs.push(tooLong('data', '', MAX_DATA_SIZE));
  const has = (k: string) => Object.hasOwn(data, k);
  const key = (k: string) => index('data', k);
  switch (str(obj?.type)) {
    case BOOTSTRAP_TOKEN_TYPE:
      errs.push(...validateBootstrapTokenSecret(obj));
      break;
    case 'orch.io/service-account-token':
      if (!str(obj?.metadata?.annotations?.['orch.io/service-account.name'])) {
        errs.push(required(index('metadata.annotations', 'orch.io/service-account.name')));
      }
      break;
    case 'orch.io/dockercfg':
    case 'orch.io/dockerconfigjson': {
      const k = obj.type === 'orch.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      if (!has(k)) {
        errs.push(required(key(k)));
        break;
      }
      const err = goJSONObjectError(Buffer.from(str(data[k]), 'base64').toString('utf8'));
      if (err) errs.push(invalid(key(k), '<secret contents redacted>', err));
      break;
    }
    case 'orch.io/basic-auth':
      if (!has('username') && !has('password')) errs.push(required(key('username')), required(key('password')));
      break;
    case 'orch.io/ssh-auth':
      if (b64Len(data['ssh-privatekey']) === 0) errs.push(required(key('ssh-privatekey')));
      break;
    case 'orch.io/tls':
      if (!has('tls.crt')) errs.push(required(key('tls.crt')));
      if (!has('tls.key')) errs.push(required(key('tls.key')));
      break;
    default: // Opaque, "", bootstrap.orch.io/token and any other type: no checks
  }
  return errs;
}

// ---------------------------------------------------------------- ServiceAccount / Event

/** ServiceAccount: upstream checks only ObjectMeta (name = DNS subdomain), so no spec errors. */
export function validateServiceAccount(_obj: any, _old?: any): FieldError[] {
  return [];
}

const isZeroTime = (v: unknown) => v === undefined || v === null || v === '' || str(v).startsWith('0001-01-01T00:00:00');
const bytes = (v: unknown) => Buffer.byteLength(str(v), 'utf8');

/**
 * core/v1 Event (upstream legacyValidateEvent; ValidateEventCreate/Update for
 * the core group run only this). Without eventTime, involvedObject.namespace
 * must equal metadata.namespace (empty allowed with "" or `default`); with
 * eventTime, empty involvedObject.namespace needs namespace `default` or
 * `orch-system`, and reportingController (JSON `reportingComponent`),
 * reportingInstance, action, reason are required and length-limited.
 * metadata.namespace must be a DNS-1123 subdomain (path `namespace`).
 * Left out: the strict events.orch.io/v1 rules (series, type, unset legacy
 * fields, update immutables) and ObjectMeta, which upstream does not check
 * for core/v1 events at all.
 */
export function validateEvent(obj: any, _old?: any): FieldError[] {
  const errs: FieldError[] = [];
  const e = obj ?? {};
  const ns = str(e.metadata?.namespace);
  const ioNs = str(e.involvedObject?.namespace);
  const ioPath = 'involvedObject.namespace';
  if (isZeroTime(e.eventTime)) {
    if (ioNs === '' ? ns !== '' && ns !== 'default' : ns !== ioNs) errs.push(invalid(ioPath, ioNs, 'does not match event.namespace'));
  } else {
    if (ioNs === '' && ns !== 'default' && ns !== 'orch-system') errs.push(invalid(ioPath, ioNs, 'does not match event.namespace'));
    const rc = str(e.reportingComponent);
    if (!rc) errs.push(required('reportingController'));
    for (const m of isQualifiedName(rc)) errs.push(invalid('reportingController', rc, m));
    const limited: Array<[string, unknown, number, boolean]> = [
      ['reportingInstance', e.reportingInstance, 128, true],
      ['action', e.action, 128, true],
      ['reason', e.reason, 128, true],
      ['message', e.message, 1024, false],
    ];
    for (const [f, v, max, req] of limited) {
      if (req && !str(v)) errs.push(required(f));
      if (bytes(v) > max) errs.push(invalid(f, '', `can have at most ${max} characters`));
    }
  }
  for (const m of isDNS1123Subdomain(ns)) errs.push(invalid('namespace', ns, m));
  return errs;
}
