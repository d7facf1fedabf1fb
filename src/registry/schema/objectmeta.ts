/**
 * apiVersion, kind and metadata of embedded resources (SPEC 9.7; upstream
 * apiextensions-apiserver pkg/apiserver/schema/objectmeta coerce.go,
 * algorithm.go `Coerce` and validation.go `Validate`): where a schema marks a
 * node x-kubernetes-embedded-resource (and at the root), the value's
 * apiVersion and kind must be strings and its metadata a valid ObjectMeta.
 */
import { child, index, invalid, jsonValue, required, type FieldError } from '../validation/field-errors.ts';
import { isDNS1035Label, nameValidators } from '../../api/names.ts';
import { validateObjectMetaAccessor } from '../validation/object-meta.ts';
import { asResourceRoot, type Structural } from './structural.ts';

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const key = (path: string, k: string) => `${path}[${k}]`;

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

const STRING_FIELDS = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion'];

/** The error Go's json.Unmarshal gives when metadata does not decode into an ObjectMeta; undefined when it does. */
export function objectMetaDecodeError(metadata: unknown): string | undefined {
  if (metadata === null) return undefined;
  if (!isObject(metadata)) return `json: cannot unmarshal ${jsonKind(metadata)} into Go value of type v1.ObjectMeta`;
  const field = (name: string, type: string, v: unknown) => `json: cannot unmarshal ${jsonKind(v)} into Go struct field ObjectMeta.${name} of type ${type}`;
  for (const name of STRING_FIELDS) {
    const v = metadata[name];
    if (v !== undefined && v !== null && typeof v !== 'string') return field(name, 'string', v);
  }
  for (const name of ['labels', 'annotations']) {
    const v = metadata[name];
    if (v === undefined || v === null) continue;
    if (!isObject(v)) return field(name, 'map[string]string', v);
    for (const x of Object.values(v)) if (x !== null && typeof x !== 'string') return field(name, 'string', x);
  }
  const finalizers = metadata.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers)) return field('finalizers', '[]string', finalizers);
    for (const x of finalizers) if (x !== null && typeof x !== 'string') return field('finalizers', 'string', x);
  }
  for (const name of ['generation', 'deletionGracePeriodSeconds']) {
    const v = metadata[name];
    if (v !== undefined && v !== null && !(typeof v === 'number' && Number.isInteger(v))) return field(name, 'int64', v);
  }
  return undefined;
}

/** Upstream Coerce without dropping: the first apiVersion/kind/metadata that cannot be read, if any. */
export function coerceError(path: string, obj: unknown, s: Structural | undefined, isResourceRoot: boolean): FieldError | undefined {
  return coerce(path, obj, isResourceRoot ? asResourceRoot(s) : s);
}

function coerce(path: string, x: unknown, s: Structural | undefined): FieldError | undefined {
  if (!s) return undefined;
  if (isObject(x)) {
    for (const k of Object.keys(x).sort()) {
      const v = x[k];
      if (s.extensions.xEmbeddedResource) {
        if ((k === 'apiVersion' || k === 'kind') && typeof v !== 'string') return invalid(child(path, k), jsonValue(v), 'must be a string');
        if (k === 'metadata') {
          const why = objectMetaDecodeError(v);
          if (why) return invalid(child(path, 'metadata'), jsonValue(v), why);
        }
      }
      const prop = s.properties?.[k];
      const err = prop ? coerce(child(path, k), v, prop) : s.additionalProperties ? coerce(key(path, k), v, s.additionalProperties.structural) : undefined;
      if (err) return err;
    }
  } else if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const err = coerce(index(path, i), x[i], s.items);
      if (err) return err;
    }
  }
  return undefined;
}

/** Upstream objectmeta.Validate: embedded resources' apiVersion, kind and metadata. */
export function validateEmbeddedResources(path: string, obj: unknown, s: Structural | undefined, isResourceRoot: boolean): FieldError[] {
  return walk(path, obj, isResourceRoot ? asResourceRoot(s) : s);
}

function walk(path: string, x: unknown, s: Structural | undefined): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (isObject(x)) {
    if (s.extensions.xEmbeddedResource) errs.push(...embeddedResource(path, x));
    for (const k of Object.keys(x).sort()) {
      const prop = s.properties?.[k];
      if (prop) errs.push(...walk(child(path, k), x[k], prop));
      else if (s.additionalProperties) errs.push(...walk(key(path, k), x[k], s.additionalProperties.structural));
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => errs.push(...walk(index(path, i), v, s.items)));
  }
  return errs;
}

function embeddedResource(path: string, x: Record<string, any>): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(required(child(path, 'apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(x, 'kind')) errs.push(required(child(path, 'kind'), 'must not be empty'));
  for (const k of Object.keys(x).sort()) {
    const v = x[k];
    if (k === 'apiVersion') {
      if (typeof v !== 'string') errs.push(invalid(child(path, k), jsonValue(v), 'must be a string'));
      else if (!v) errs.push(invalid(child(path, k), v, 'must not be empty'));
      else if ((v.match(/\//g)?.length ?? 0) > 1) errs.push(invalid(child(path, k), v, `unexpected GroupVersion string: ${v}`));
    } else if (k === 'kind') {
      if (typeof v !== 'string') errs.push(invalid(child(path, k), jsonValue(v), 'must be a string'));
      else if (!v) errs.push(invalid(child(path, k), v, 'must not be empty'));
      else {
        const msgs = isDNS1035Label(v.toLowerCase());
        if (msgs.length > 0) errs.push(invalid(child(path, k), v, 'may have mixed case, but should otherwise match: ' + msgs.join(',')));
      }
    } else if (k === 'metadata') {
      const why = objectMetaDecodeError(v);
      if (why) errs.push(invalid(child(path, k), jsonValue(v), why));
      else {
        const meta = { ...(isObject(v) ? v : {}) };
        if (!meta.name) meta.name = 'fakename';
        errs.push(...validateObjectMetaAccessor(meta, !!meta.namespace, nameValidators.PathSegment, child(path, 'metadata')));
      }
    }
  }
  return errs;
}
