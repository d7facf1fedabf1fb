/**
 * ObjectMeta validation on create and update (FACTS 7; SPEC 2.2). Translated
 * from upstream apimachinery api/validation/objectmeta.go, the core wrapper
 * that adds the standard-finalizer check (kubernetes pkg/apis/core/validation
 * `ValidateObjectMeta`), and apiserver registry/rest create.go/update.go, which
 * also run the path-segment name rule.
 *
 * Renamed standard finalizer: upstream `kubernetes` → `orch` (FACTS 0).
 */
import {
  type FieldError,
  child,
  dedupeFieldErrors,
  forbidden,
  goRepr,
  goStringSlice,
  index,
  invalid,
  required,
  tooLong,
} from './field-errors.ts';
import { validateLabels } from './label-selector.ts';
import { type NameValidation, type NameValidator, byteLength, isDNS1123Label, isQualifiedName, nameValidators } from '../../api/names.ts';

export interface ObjectMetaOptions {
  namespaced: boolean;
  nameValidation: NameValidation;
  /** Update only: require metadata.resourceVersion (default true; the store fills it for unconditional updates). */
  checkResourceVersion?: boolean;
  /** apimachinery's rules alone, without core's standard-finalizer check (definitions and custom objects). */
  generic?: boolean;
}

/** Σ(len(key)+len(value)) limit for annotations (FACTS 7). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
/** Finalizer names accepted without a `/` (FACTS 7, renamed). */
export const STANDARD_FINALIZERS: readonly string[] = ['orch', 'orphan', 'foregroundDeletion'];
export const FIELD_IMMUTABLE = 'field is immutable';
const FIELD_MANAGER_MAX = 128;
const SUBRESOURCE_MAX = 256;
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/** Annotation keys (lower-cased qualified names) and total size (FACTS 7). */
export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!annotations || typeof annotations !== 'object') return errs;
  let total = 0;
  for (const [k, v] of Object.entries(annotations as Record<string, unknown>)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, m));
    total += byteLength(k) + byteLength(str(v));
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

function parseAPIVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const slashes = apiVersion.split('/').length - 1;
  if (slashes === 0) return { group: '', version: apiVersion };
  if (slashes === 1) {
    const i = apiVersion.indexOf('/');
    return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
  }
  return { group: '', version: '' };
}

/** Owner references: apiVersion/kind/name/uid set, Event banned, one controller (FACTS 7). */
export function validateOwnerReferences(refs: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(refs)) return errs;
  let firstController = '';
  for (const ref of refs as any[]) {
    const r = ref ?? {};
    const apiVersion = str(r.apiVersion);
    const kind = str(r.kind);
    const gv = parseAPIVersion(apiVersion);
    if (!gv.version) errs.push(invalid(child(path, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (!kind) errs.push(invalid(child(path, 'kind'), kind, 'kind must not be empty'));
    if (!str(r.name)) errs.push(invalid(child(path, 'name'), str(r.name), 'name must not be empty'));
    if (!str(r.uid)) errs.push(invalid(child(path, 'uid'), str(r.uid), 'uid must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      errs.push(invalid(path, r, `${gv.group}/${gv.version}, Kind=${kind} is disallowed from being an owner`));
    }
    if (r.controller === true) {
      const cur = `${kind}/${str(r.name)}`;
      if (firstController) {
        errs.push(
          invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`,
          ),
        );
      } else firstController = cur;
    }
  }
  return errs;
}

/** Finalizers: qualified names at the list path; orphan + foregroundDeletion conflict (FACTS 7). */
export function validateFinalizers(finalizers: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(finalizers)) return errs;
  const list = finalizers.map(str);
  for (const f of list) errs.push(...validateFinalizerName(f, path));
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    errs.push(invalid(path, goStringSlice(list), 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** Qualified-name check of one finalizer (upstream apimachinery ValidateFinalizerName). */
export function validateFinalizerName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((m) => invalid(path, name, m));
}

/** A finalizer without `/` must be a standard name (FACTS 7; core validateKubeFinalizerName). */
export function validateStandardFinalizerName(name: string, path: string): FieldError[] {
  if (!name.includes('/') && !STANDARD_FINALIZERS.includes(name)) {
    return [invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

function fieldManagerErrors(manager: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(manager) > FIELD_MANAGER_MAX) errs.push(tooLong(path, manager, FIELD_MANAGER_MAX));
  let pos = 0;
  for (const ch of manager) {
    if (!PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(invalid(path, manager, `invalid character U+${cp} (at position ${pos})`));
    }
    pos += byteLength(ch);
  }
  return errs;
}

/** managedFields entries: operation, fieldsType, manager, subresource (FACTS 7). */
export function validateManagedFields(entries: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(entries)) return errs;
  entries.forEach((e: any, i) => {
    const p = index(path, i);
    const op = str(e?.operation);
    if (op !== 'Apply' && op !== 'Update') errs.push(invalid(child(p, 'operation'), op, 'must be `Apply` or `Update`'));
    const ft = str(e?.fieldsType);
    if (ft && ft !== 'FieldsV1') errs.push(invalid(child(p, 'fieldsType'), ft, 'must be `FieldsV1`'));
    errs.push(...fieldManagerErrors(str(e?.manager), child(p, 'manager')));
    const sub = str(e?.subresource);
    if (byteLength(sub) > SUBRESOURCE_MAX) errs.push(tooLong(child(p, 'subresource'), sub, SUBRESOURCE_MAX));
  });
  return errs;
}

/** Upstream ValidateObjectMetaAccessor: the generic create-time rules with a given name rule. */
export function validateObjectMetaAccessor(meta: any, namespaced: boolean, nameFn: NameValidator, path = 'metadata'): FieldError[] {
  const m = meta ?? {};
  const errs: FieldError[] = [];
  const generateName = str(m.generateName);
  const name = str(m.name);
  const namespace = str(m.namespace);
  if (generateName) {
    for (const msg of nameFn(generateName, true)) errs.push(invalid(child(path, 'generateName'), generateName, msg));
  }
  if (!name) errs.push(required(child(path, 'name'), 'name or generateName is required'));
  else for (const msg of nameFn(name, false)) errs.push(invalid(child(path, 'name'), name, msg));
  if (namespaced) {
    if (!namespace) errs.push(required(child(path, 'namespace')));
    else for (const msg of isDNS1123Label(namespace)) errs.push(invalid(child(path, 'namespace'), namespace, msg));
  } else if (namespace) {
    errs.push(forbidden(child(path, 'namespace'), 'not allowed on this type'));
  }
  const generation = typeof m.generation === 'number' ? m.generation : 0;
  if (generation < 0) errs.push(invalid(child(path, 'generation'), generation, 'must be greater than or equal to 0'));
  errs.push(...validateLabels(m.labels, child(path, 'labels')));
  errs.push(...validateAnnotations(m.annotations, child(path, 'annotations')));
  errs.push(...validateOwnerReferences(m.ownerReferences, child(path, 'ownerReferences')));
  errs.push(...validateFinalizers(m.finalizers, child(path, 'finalizers')));
  errs.push(...validateManagedFields(m.managedFields, child(path, 'managedFields')));
  return errs;
}

function standardFinalizerErrors(meta: any, path: string): FieldError[] {
  const list: unknown[] = Array.isArray(meta?.finalizers) ? meta.finalizers : [];
  return list.flatMap((f, i) => validateStandardFinalizerName(str(f), index(child(path, 'finalizers'), i)));
}

/**
 * Create-time ObjectMeta validation (FACTS 7): the kind's name rule, then the
 * standard-finalizer rule; if that passes, the path-segment name rule that the
 * generic create path applies to every kind.
 */
export function validateObjectMetaCreate(meta: any, opts: ObjectMetaOptions): FieldError[] {
  const errs = [
    ...validateObjectMetaAccessor(meta, opts.namespaced, nameValidators[opts.nameValidation]),
    ...(opts.generic ? [] : standardFinalizerErrors(meta, 'metadata')),
  ];
  if (errs.length > 0 || opts.nameValidation === 'PathSegment') return errs;
  return validateObjectMetaAccessor(meta, opts.namespaced, nameValidators.PathSegment);
}

/** Go `time.Time.String()` of an RFC 3339 value, in UTC (how upstream prints a metav1.Time). */
function goTime(v: unknown): string {
  const s = str(v);
  const ms = s ? Date.parse(s) : NaN;
  if (Number.isNaN(ms)) return s ? s : '0001-01-01 00:00:00 +0000 UTC';
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const frac = /\.(\d+)/.exec(s)?.[1]?.replace(/0+$/, '') ?? '';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? '.' + frac : ''} +0000 UTC`;
}

function sameInstant(a: unknown, b: unknown): boolean {
  const sa = str(a);
  const sb = str(b);
  if (sa === sb) return true;
  const ta = Date.parse(sa);
  const tb = Date.parse(sb);
  return !Number.isNaN(ta) && ta === tb;
}

/** Upstream ValidateObjectMetaAccessorUpdate: deletion finalizers, resourceVersion, generation, immutables, maps. */
export function validateObjectMetaAccessorUpdate(newMeta: any, oldMeta: any, path = 'metadata', checkRV = true): FieldError[] {
  const n = newMeta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    const old = new Set<string>((Array.isArray(o.finalizers) ? o.finalizers : []).map(str));
    const extra = [...new Set<string>((Array.isArray(n.finalizers) ? n.finalizers : []).map(str))]
      .filter((f) => !old.has(f))
      .sort();
    if (extra.length) {
      errs.push(
        forbidden(
          child(path, 'finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra).text}`,
        ),
      );
    }
  }
  if (checkRV && !str(n.resourceVersion)) {
    errs.push(invalid(child(path, 'resourceVersion'), str(n.resourceVersion), 'must be specified for an update'));
  }
  const ng = typeof n.generation === 'number' ? n.generation : 0;
  const og = typeof o.generation === 'number' ? o.generation : 0;
  if (ng < og) errs.push(invalid(child(path, 'generation'), ng, 'must not be decremented'));
  for (const f of ['name', 'namespace', 'uid'] as const) {
    if (str(n[f]) !== str(o[f])) errs.push(invalid(child(path, f), str(n[f]), FIELD_IMMUTABLE));
  }
  if (!sameInstant(n.creationTimestamp, o.creationTimestamp)) {
    errs.push(invalid(child(path, 'creationTimestamp'), goRepr(goTime(n.creationTimestamp)), FIELD_IMMUTABLE));
  }
  const nd = n.deletionTimestamp ?? null;
  const od = o.deletionTimestamp ?? null;
  if ((nd === null) !== (od === null) || (nd !== null && !sameInstant(nd, od))) {
    errs.push(invalid(child(path, 'deletionTimestamp'), nd === null ? null : goRepr(goTime(nd)), FIELD_IMMUTABLE));
  }
  const ngp = n.deletionGracePeriodSeconds ?? null;
  if (ngp !== (o.deletionGracePeriodSeconds ?? null)) {
    errs.push(invalid(child(path, 'deletionGracePeriodSeconds'), ngp, FIELD_IMMUTABLE));
  }
  errs.push(...validateLabels(n.labels, child(path, 'labels')));
  errs.push(...validateAnnotations(n.annotations, child(path, 'annotations')));
  errs.push(...validateOwnerReferences(n.ownerReferences, child(path, 'ownerReferences')));
  errs.push(...validateManagedFields(n.managedFields, child(path, 'managedFields')));
  return errs;
}

/**
 * Update-time ObjectMeta validation (FACTS 7). Upstream runs, in order, the
 * generic path-segment create rules, the update rules, then the kind's own
 * create rules and update rules again (so causes repeat); we return the same
 * sequence with repeated texts removed, which yields the same message.
 */
export function validateObjectMetaUpdate(newMeta: any, oldMeta: any, opts: ObjectMetaOptions): FieldError[] {
  return dedupeFieldErrors([
    ...validateObjectMetaAccessor(newMeta, opts.namespaced, nameValidators.PathSegment),
    ...validateObjectMetaAccessorUpdate(newMeta, oldMeta, 'metadata', opts.checkResourceVersion ?? true),
    ...validateObjectMetaAccessor(newMeta, opts.namespaced, nameValidators[opts.nameValidation]),
    ...(opts.generic ? [] : standardFinalizerErrors(newMeta, 'metadata')),
  ]);
}
