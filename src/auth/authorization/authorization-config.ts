/**
 * `--authorization-config` (SPEC 5.1.6 and its table, 8): an
 * AuthorizationConfiguration (`apiserver.config.orch.io/v1beta1`, or
 * v1alpha1 as upstream 1.31 also reads) decoded strictly, defaulted and
 * validated as upstream's LoadAndValidateData (load.LoadFromData,
 * ValidateAuthorizationConfiguration, kube-apiserver's name and required-type
 * checks), with upstream's messages, into the chain's entries.
 *
 * Authorizer types are the spec's three, Webhook, Node and RBAC (upstream's
 * kube-apiserver also takes ABAC, AlwaysAllow and AlwaysDeny here). The
 * later cacheAuthorizedRequests/cacheUnauthorizedRequests switches (default
 * true; false caches none of those answers) are read as upstream reads them.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { isDNS1123Subdomain } from '../../api/names.ts';
import { aggregateText, duplicate, goRepr, invalid, notSupported, required, type FieldError } from '../../registry/validation/field-errors.ts';
import { goQuote } from '../../util/go-print.ts';
import { formatGoDuration } from '../../util/go-duration.ts';
import { DecodeError, decodeStrict, parseConfigDocument, type Shape } from '../../util/strict-decode.ts';
import type { AuthorizerEntry, WebhookSettings } from './authorizer-entries.ts';
import { compileMatchConditions } from './match-conditions.ts';

const GROUP = 'apiserver.config.orch.io';
const VERSIONS = ['v1alpha1', 'v1beta1'];
const KIND = 'AuthorizationConfiguration';
/** The group's other kinds: decoding one is upstream's "expected ..., got ..." error. */
const OTHER_KINDS = ['AdmissionConfiguration', 'AuthenticationConfiguration', 'EgressSelectorConfiguration', 'TracingConfiguration'];
/** SPEC 5.1.6, sorted as upstream's sets.String.List(). */
const KNOWN_TYPES = ['Node', 'RBAC', 'Webhook'];
const REPEATABLE_TYPES = ['Webhook'];
const MAX_TIMEOUT_MS = 30_000;

const shape = (version: string): Extract<Shape, { kind: 'struct' }> => {
  const str: Shape = { kind: 'string' };
  const duration: Shape = { kind: 'duration' };
  const webhook: Shape = {
    kind: 'struct',
    goType: `${version}.WebhookConfiguration`,
    fields: {
      authorizedTTL: duration,
      cacheAuthorizedRequests: { kind: 'bool' },
      unauthorizedTTL: duration,
      cacheUnauthorizedRequests: { kind: 'bool' },
      timeout: duration,
      subjectAccessReviewVersion: str,
      matchConditionSubjectAccessReviewVersion: str,
      failurePolicy: str,
      connectionInfo: { kind: 'struct', goType: `${version}.WebhookConnectionInfo`, fields: { type: str, orchConfigFile: str } },
      matchConditions: { kind: 'list', goType: `[]${version}.WebhookMatchCondition`, of: { kind: 'struct', goType: `${version}.WebhookMatchCondition`, fields: { expression: str } } },
    },
  };
  const authorizer: Shape = { kind: 'struct', goType: `${version}.AuthorizerConfiguration`, fields: { type: str, name: str, webhook } };
  return { kind: 'struct', goType: `${version}.${KIND}`, fields: { authorizers: { kind: 'list', goType: `[]${version}.AuthorizerConfiguration`, of: authorizer } } };
};

interface Webhook {
  authorizedTTL?: number;
  cacheAuthorizedRequests?: boolean;
  unauthorizedTTL?: number;
  cacheUnauthorizedRequests?: boolean;
  timeout?: number;
  subjectAccessReviewVersion?: string;
  matchConditionSubjectAccessReviewVersion?: string;
  failurePolicy?: string;
  connectionInfo?: { type?: string; orchConfigFile?: string };
  matchConditions?: Array<{ expression?: string }>;
}
interface Authorizer {
  type?: string;
  name?: string;
  webhook?: Webhook;
}

export interface AuthorizationConfigOptions {
  /** The AuthorizeWithSelectors gate: matchConditions may read selectors. */
  selectors: boolean;
  /** On reload: the Node and RBAC authorizers the running chain has, which the file must keep. */
  requireNonWebhookTypes?: ReadonlySet<string>;
}

/** upstream load.LoadFromData: the typed configuration with the version's defaults. */
function load(data: string): Authorizer[] {
  if (data.length === 0) return [];
  const doc = parseConfigDocument(data) as Record<string, unknown>;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    const kind = Array.isArray(doc) ? 'array' : doc === null ? 'null' : typeof doc === 'boolean' ? 'bool' : typeof doc;
    throw new DecodeError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${kind} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const json = JSON.stringify(doc);
  if (typeof doc.kind !== 'string' || !doc.kind) throw new DecodeError(`Object 'Kind' is missing in '${json}'`);
  if (typeof doc.apiVersion !== 'string' || !doc.apiVersion) throw new DecodeError(`Object 'apiVersion' is missing in '${json}'`);
  const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/', 2) : ['', doc.apiVersion];
  if (group === GROUP && VERSIONS.includes(version) && OTHER_KINDS.includes(doc.kind)) throw new DecodeError(`expected ${KIND}, got *apiserver.${doc.kind}`);
  if (group !== GROUP || !VERSIONS.includes(version) || doc.kind !== KIND) {
    throw new DecodeError(`no kind ${goQuote(doc.kind)} is registered for version ${goQuote(doc.apiVersion)} in scheme "pkg/apis/apiserver/load/load.go:33"`);
  }
  const config = decodeStrict(doc, shape(version), ['apiVersion', 'kind']) as { authorizers?: Authorizer[] };
  for (const a of config.authorizers ?? []) {
    if (!a?.webhook) continue;
    // SetDefaults_WebhookConfiguration: a zero TTL is the default one.
    a.webhook.authorizedTTL ||= 5 * 60_000;
    a.webhook.unauthorizedTTL ||= 30_000;
    a.webhook.cacheAuthorizedRequests ??= true;
    a.webhook.cacheUnauthorizedRequests ??= true;
  }
  return (config.authorizers ?? []).map((a) => a ?? {});
}

/** Go's os.Stat error. */
function statError(file: string, err: NodeJS.ErrnoException): string {
  const why = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'EACCES' ? 'permission denied' : err.code === 'ENOTDIR' ? 'not a directory' : err.message;
  return `stat ${file}: ${why}`;
}

/** upstream ValidateWebhookConfiguration; note its paths are the authorizer's, not `.webhook`'s. */
function validateWebhook(path: string, c: Webhook, selectors: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.timeout) errs.push(required(`${path}.timeout`));
  else if (c.timeout > MAX_TIMEOUT_MS || c.timeout < 0) errs.push(invalid(`${path}.timeout`, formatGoDuration(c.timeout), 'must be > 0s and <= 30s'));
  for (const ttl of ['authorizedTTL', 'unauthorizedTTL'] as const) {
    if (!c[ttl]) errs.push(required(`${path}.${ttl}`));
    else if (c[ttl]! < 0) errs.push(invalid(`${path}.${ttl}`, formatGoDuration(c[ttl]!), 'must be > 0s'));
  }
  const sar = c.subjectAccessReviewVersion ?? '';
  if (!sar) errs.push(required(`${path}.subjectAccessReviewVersion`));
  else if (sar !== 'v1' && sar !== 'v1beta1') errs.push(notSupported(`${path}.subjectAccessReviewVersion`, sar, ['v1', 'v1beta1']));
  const matchVersion = c.matchConditionSubjectAccessReviewVersion ?? '';
  if (!matchVersion) {
    if (c.matchConditions?.length) errs.push(required(`${path}.matchConditionSubjectAccessReviewVersion`, 'required if match conditions are specified'));
  } else if (matchVersion !== 'v1') errs.push(notSupported(`${path}.matchConditionSubjectAccessReviewVersion`, matchVersion, ['v1']));
  const policy = c.failurePolicy ?? '';
  if (!policy) errs.push(required(`${path}.failurePolicy`));
  else if (policy !== 'NoOpinion' && policy !== 'Deny') errs.push(notSupported(`${path}.failurePolicy`, policy, ['NoOpinion', 'Deny']));
  const info = c.connectionInfo ?? {};
  const file = info.orchConfigFile;
  const filePath = `${path}.connectionInfo.orchConfigFile`;
  if (!info.type) errs.push(required(`${path}.connectionInfo.type`));
  else if (info.type === 'InClusterConfig') {
    if (file !== undefined) errs.push(invalid(filePath, file, 'can only be set when type=OrchConfig'));
  } else if (info.type === 'OrchConfig') {
    if (!file) errs.push(required(filePath));
    else if (!isAbsolute(file)) errs.push(invalid(filePath, file, 'must be an absolute path'));
    else {
      try {
        if (!statSync(file).isFile()) errs.push(invalid(filePath, file, 'must be a regular file'));
      } catch (err) {
        errs.push(invalid(filePath, file, `error loading file: ${statError(file, err as NodeJS.ErrnoException)}`));
      }
    }
  } else {
    // Upstream prints the whole struct with %#v.
    const struct = goRepr(`apiserver.WebhookConnectionInfo{Type:${goQuote(info.type)}, OrchConfigFile:(*string)(${file === undefined ? 'nil' : '0xc000010000'})}`);
    errs.push(notSupported(`${path}.connectionInfo.type`, struct, ['InClusterConfig', 'OrchConfig']));
  }
  const conditions = (c.matchConditions ?? []).map((m) => ({ expression: m?.expression ?? '' }));
  errs.push(...compileMatchConditions(conditions, path, selectors).errors);
  return errs;
}

/** upstream ValidateAuthorizationConfiguration with the spec's types, Webhook repeatable. */
function validate(authorizers: Authorizer[], selectors: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!authorizers.length) errs.push(required('authorizers', 'at least one authorization mode must be defined'));
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  authorizers.forEach((a, i) => {
    const path = `authorizers[${i}]`;
    const type = a.type ?? '';
    if (!type) return void errs.push(required(`${path}.type`));
    if (!KNOWN_TYPES.includes(type)) return void errs.push(notSupported(`${path}.type`, type, KNOWN_TYPES));
    if (seenTypes.has(type) && !REPEATABLE_TYPES.includes(type)) return void errs.push(duplicate(`${path}.type`, type));
    seenTypes.add(type);
    const name = a.name ?? '';
    const nameErrors = isDNS1123Subdomain(name);
    if (!name) errs.push(required(`${path}.name`));
    else if (seenNames.has(name)) errs.push(duplicate(`${path}.name`, name));
    else if (nameErrors.length) errs.push(invalid(`${path}.name`, name, `authorizer name is invalid: ${nameErrors.join(', ')}`));
    seenNames.add(name);
    if (type === 'Webhook') {
      if (!a.webhook) return void errs.push(required(`${path}.webhook`, 'required when type=Webhook'));
      errs.push(...validateWebhook(path, a.webhook, selectors));
    } else if (a.webhook) errs.push(invalid(`${path}.webhook`, 'non-null', 'may only be specified when type=Webhook'));
  });
  return errs;
}

function toEntry(a: Authorizer): AuthorizerEntry {
  if (a.type !== 'Webhook') return { type: a.type as 'Node' | 'RBAC', name: a.name! };
  const w = a.webhook!;
  const settings: WebhookSettings = {
    authorizedTtlMs: w.cacheAuthorizedRequests ? w.authorizedTTL! : 0,
    unauthorizedTtlMs: w.cacheUnauthorizedRequests ? w.unauthorizedTTL! : 0,
    timeoutMs: w.timeout!,
    subjectAccessReviewVersion: w.subjectAccessReviewVersion as 'v1' | 'v1beta1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    failurePolicy: w.failurePolicy as 'NoOpinion' | 'Deny',
    connectionInfo: w.connectionInfo!.type === 'InClusterConfig' ? { type: 'InClusterConfig' } : { type: 'OrchConfig', orchConfigFile: w.connectionInfo!.orchConfigFile! },
    matchConditions: (w.matchConditions ?? []).map((m) => ({ expression: m.expression! })),
  };
  return { type: 'Webhook', name: a.name!, webhook: settings };
}

/** upstream LoadAndValidateData: the chain's entries, or an Error with upstream's message. */
export function loadAuthorizationConfig(data: string, options: AuthorizationConfigOptions): AuthorizerEntry[] {
  let authorizers: Authorizer[];
  try {
    authorizers = load(data);
  } catch (err) {
    if (err instanceof DecodeError) throw new Error(`failed to load AuthorizationConfiguration from file: ${err.message}`);
    throw err;
  }
  const errs = validate(authorizers, options.selectors);
  if (errs.length) throw new Error(aggregateText(errs));
  // kube-apiserver's own checks, which keep the file's names those the flags would give.
  const problems: string[] = [];
  const seenModes = new Set<string>();
  for (const a of authorizers) {
    if (a.type === 'Webhook') continue;
    seenModes.add(a.type!);
    const expected = a.type!.toLowerCase();
    if (a.name !== expected) problems.push(`expected name ${expected} for authorizer ${a.type} instead of ${a.name}`);
  }
  const missing = [...(options.requireNonWebhookTypes ?? [])].filter((t) => !seenModes.has(t)).sort();
  if (missing.length) problems.push(`missing required types: [${missing.join(' ')}]`);
  if (problems.length) throw new Error(problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`);
  return authorizers.map(toEntry);
}

/** upstream LoadAndValidateFile: the file's bytes, then loadAuthorizationConfig. */
export function readAuthorizationConfigFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(statError(file, err as NodeJS.ErrnoException).replace(/^stat /, 'open '));
  }
}
