/**
 * Validation of ResourceQuota (SPEC 9.7), translated from K
 * pkg/apis/core/validation/validation.go ValidateResourceQuota(Update,
 * StatusUpdate), validateResourceQuotaScopes and K pkg/apis/core/helper
 * (IsStandardQuotaResourceName, IsIntegerResourceName,
 * IsResourceQuotaScopeValidForResource). A quantity's value is printed as its
 * text where upstream prints the Go struct (as validateResources does).
 */
import { goStringSlice, invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { isExtended, validateResourceName } from '../pod/validate-containers.ts';
import { compareQuantities, isIntegerQuantity, parseQuantity, zeroQuantity } from '../../../api/quantity.ts';
import { deepEqual } from '../../../registry/json-value.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
/** Go's DeepEqual of the decoded values: key order is irrelevant, nil and absent are alike. */
const same = (a: unknown, b: unknown) => deepEqual(a ?? null, b ?? null);
const entries = (list: unknown): Array<[string, string]> => (isObj(list) ? Object.entries(list).map(([k, v]) => [k, String(v)]) : []);

/** standardQuotaResources. */
const QUOTA_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets',
  'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers',
]);
/** integerResources: object counts. */
const INTEGER_RESOURCES = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);
const isQuotaHugePages = (name: string) => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
const isStandardQuota = (name: string) => QUOTA_RESOURCES.has(name) || isQuotaHugePages(name);

/** ValidateResourceQuotaResourceName. */
function validateQuotaResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardQuota(name)) errs.push(invalid(path, name, 'must be a standard resource for quota'));
  return errs;
}

/** ValidateResourceQuantityValue: non-negative, and whole for counts and extended resources. */
function validateQuantityValue(name: string, text: string, path: string): FieldError[] {
  const q = parseQuantity(text);
  const errs = compareQuantities(q, zeroQuantity()) < 0 ? [invalid(path, text, 'must be greater than or equal to 0')] : [];
  if ((INTEGER_RESOURCES.has(name) || isExtended(name)) && !isIntegerQuantity(q)) errs.push(invalid(path, text, 'must be an integer'));
  return errs;
}

function validateQuotaList(list: unknown, path: string): FieldError[] {
  return entries(list).flatMap(([name, text]) => [...validateQuotaResourceName(name, `${path}[${name}]`), ...validateQuantityValue(name, text, `${path}[${name}]`)]);
}

const SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];
const POD_COMPUTE = new Set(['cpu', 'limits.cpu', 'limits.memory', 'memory', 'requests.cpu', 'requests.memory']);

/** IsResourceQuotaScopeValidForResource. */
function scopeFits(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return resource === 'pods';
  if (SCOPES.includes(scope)) return resource === 'pods' || POD_COMPUTE.has(resource);
  return true;
}

/**
 * The rules validateResourceQuotaScopes and validateScopedResourceSelectorRequirement
 * share: each scope standard and fitting every standard hard resource, no
 * conflicting pair. `unsupported` reports an unknown scope at its own place.
 */
function scopeErrors(scopes: string[], hard: string[], path: string, value: unknown, unsupported: (scope: string) => FieldError): FieldError[] {
  const errs: FieldError[] = [];
  for (const scope of scopes) {
    if (!SCOPES.includes(scope)) errs.push(unsupported(scope));
    for (const name of hard) if (isStandardQuota(name) && !scopeFits(scope, name)) errs.push(invalid(path, value, 'unsupported scope applied to resource'));
  }
  return errs;
}

function conflictingScopes(scopes: string[], path: string, value: unknown): FieldError[] {
  return [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']].filter(([a, b]) => scopes.includes(a) && scopes.includes(b)).map(() => invalid(path, value, 'conflicting scopes'));
}

const scopesValue = (scopes: unknown) => goStringSlice(Array.isArray(scopes) ? scopes : [], '[]core.ResourceQuotaScope');
/** The scopes whose selector requirement can only be Exists. */
const EXISTS_ONLY = ['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'];

/** validateResourceQuotaScopes and validateScopeSelector. */
function validateScopes(spec: any): FieldError[] {
  const hard = Object.keys(isObj(spec.hard) ? spec.hard : {}).sort();
  const scopes: string[] = Array.isArray(spec.scopes) ? spec.scopes : [];
  const errs: FieldError[] = [];
  if (scopes.length) {
    const value = scopesValue(scopes);
    errs.push(...scopeErrors(scopes, hard, 'spec.scopes', value, () => invalid('spec.scopes', value, 'unsupported scope')), ...conflictingScopes(scopes, 'spec.scopes', value));
  }
  if (!isObj(spec.scopeSelector)) return errs;
  const path = 'spec.scopeSelector.matchExpressions';
  const requirements: any[] = Array.isArray(spec.scopeSelector.matchExpressions) ? spec.scopeSelector.matchExpressions : [];
  const names: string[] = [];
  for (const req of requirements) {
    const scope = String(req?.scopeName ?? '');
    const operator = String(req?.operator ?? '');
    const values: unknown[] = Array.isArray(req?.values) ? req.values : [];
    errs.push(...scopeErrors([scope], hard, path, spec.scopeSelector, () => invalid(`${path}.scopeName`, scope, 'unsupported scope')));
    if (EXISTS_ONLY.includes(scope) && operator !== 'Exists') {
      errs.push(invalid(`${path}.operator`, operator, "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"));
    }
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) errs.push(required(`${path}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length) errs.push(invalid(`${path}.values`, goStringSlice(values.map(String)), "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else errs.push(invalid(`${path}.operator`, operator, 'not a valid selector operator'));
    names.push(scope);
  }
  // upstream reports the conflict with spec.scopes as the value
  errs.push(...conflictingScopes(names, path, scopesValue(spec.scopes)));
  return errs;
}

/** ValidateResourceQuota (its status is emptied on create) and ValidateResourceQuotaUpdate: the set of scopes is immutable. */
export function validateResourceQuota(quota: any, old?: any): FieldError[] {
  const spec = isObj(quota.spec) ? quota.spec : {};
  const errs = [...validateQuotaList(spec.hard, 'spec.hard'), ...validateScopes(spec)];
  const scopeSet = (scopes: unknown) => [...new Set(Array.isArray(scopes) ? scopes.map(String) : [])].sort();
  if (old && !same(scopeSet(spec.scopes), scopeSet(old.spec?.scopes))) errs.push(invalid('spec.scopes', scopesValue(spec.scopes), FIELD_IMMUTABLE));
  return errs;
}

/** ValidateResourceQuotaStatusUpdate: the hard and used lists' names and values. */
export function validateResourceQuotaStatus(quota: any): FieldError[] {
  return [...validateQuotaList(quota.status?.hard, 'status.hard'), ...validateQuotaList(quota.status?.used, 'status.used')];
}
