/**
 * The scale subresource of a custom resource (SPEC 2.1; upstream
 * apiextensions-apiserver pkg/registry/customresource/etcd.go ScaleREST and
 * validator.go ValidateScaleSpec/ValidateScaleStatus): an autoscaling/v1 Scale
 * read from the object's specReplicasPath, statusReplicasPath and
 * labelSelectorPath, and spec.replicas written back at specReplicasPath.
 * Paths are `.a.b` field paths (CRD validation makes sure of it).
 */
import { goPrint, goTypeName } from '../../util/go-print.ts';
import type { ScalePaths } from '../kind.ts';
import type { ApiObject } from '../strategy.ts';
import { invalid, type FieldError } from '../validation/field-errors.ts';
import { labelSelectorToRequirements, requirementsString } from '../selectors/label-selector.ts';

const MAX_INT32 = 2147483647;

/** An unstructured accessor's error (apimachinery unstructured helpers), with upstream's words. */
export class ScaleAccessError extends Error {}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** splitReplicasPath: the fields of `.a.b`, the leading period ignored. */
function fieldsOf(path: string): string[] {
  return (path.startsWith('.') ? path.slice(1) : path).split('.');
}

const jsonPath = (fields: string[]) => `.${fields.join('.')}`;

/** unstructured.NestedFieldNoCopy: the value at the fields, whether it is there; a non-map on the way is an error. */
function nestedField(obj: unknown, fields: string[]): { value: unknown; found: boolean } {
  let value: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (value === null || value === undefined) return { value: undefined, found: false };
    if (!isMap(value)) {
      throw new ScaleAccessError(`${jsonPath(fields.slice(0, i + 1))} accessor error: ${goPrint(value)} is of the type ${goTypeName(value)}, expected map[string]interface{}`);
    }
    if (!Object.hasOwn(value, fields[i])) return { value: undefined, found: false };
    value = value[fields[i]];
  }
  return { value, found: true };
}

/** unstructured.NestedInt64: a decoded JSON integer; a fraction or any other type is an error. */
function nestedInt64(obj: unknown, path: string): { value: number; found: boolean } {
  const fields = fieldsOf(path);
  const { value, found } = nestedField(obj, fields);
  if (!found) return { value: 0, found: false };
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new ScaleAccessError(`${jsonPath(fields)} accessor error: ${goPrint(value)} is of the type ${goTypeName(value)}, expected int64`);
  }
  return { value, found: true };
}

/** unstructured.NestedString. */
function nestedString(obj: unknown, path: string): string {
  const fields = fieldsOf(path);
  const { value, found } = nestedField(obj, fields);
  if (!found) return '';
  if (typeof value !== 'string') throw new ScaleAccessError(`${jsonPath(fields)} accessor error: ${goPrint(value)} is of the type ${goTypeName(value)}, expected string`);
  return value;
}

/**
 * Upstream scaleFromCustomResource: the Scale of an object and whether its
 * spec replicas are set. Throws ScaleAccessError when a path holds the wrong type.
 */
export function scaleFromCustomResource(cr: ApiObject, paths: ScalePaths): { scale: ApiObject; replicasFound: boolean } {
  const spec = nestedInt64(cr, paths.specReplicasPath);
  const status = nestedInt64(cr, paths.statusReplicasPath);
  const selector = paths.labelSelectorPath
    ? nestedString(cr, paths.labelSelectorPath)
    : paths.selectorObjectPath
      ? selectorString(nestedField(cr, fieldsOf(paths.selectorObjectPath)).value)
      : paths.selectorMapPath
        ? selectorString({ matchLabels: nestedField(cr, fieldsOf(paths.selectorMapPath)).value ?? {} })
        : '';
  const meta = cr.metadata ?? {};
  const metadata: Record<string, unknown> = { name: meta.name };
  if (meta.namespace) metadata.namespace = meta.namespace;
  metadata.uid = meta.uid;
  metadata.resourceVersion = meta.resourceVersion;
  metadata.creationTimestamp = meta.creationTimestamp;
  const scaleStatus: Record<string, unknown> = { replicas: int32(status.value) };
  if (selector) scaleStatus.selector = selector;
  return {
    scale: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec: { replicas: int32(spec.value) }, status: scaleStatus },
    replicasFound: spec.found,
  };
}

/** metav1.LabelSelectorAsSelector(...).String(); a selector that does not convert is the server's failure, as upstream's. */
function selectorString(selector: unknown): string {
  const requirements = labelSelectorToRequirements(selector);
  return requirements ? requirementsString(requirements) : '';
}

/** Go's int32(int64): the low 32 bits, signed. */
function int32(value: number): number {
  return Number(BigInt.asIntN(32, BigInt(value)));
}

/**
 * unstructured.SetNestedField: the value at the path, making the maps on the
 * way; a non-map on the way is an error. Keys are defined, never assigned.
 */
export function setNestedField(obj: ApiObject, path: string, value: unknown): void {
  const fields = fieldsOf(path);
  let current: Record<string, unknown> = obj;
  for (let i = 0; i < fields.length - 1; i++) {
    const field = fields[i];
    if (!Object.hasOwn(current, field) || current[field] === null || current[field] === undefined) define(current, field, {});
    const next = current[field];
    if (!isMap(next)) throw new ScaleAccessError(`value cannot be set because ${jsonPath(fields.slice(0, i + 1))} is not a map[string]interface{}`);
    current = next;
  }
  define(current, fields[fields.length - 1], value);
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** A replicas count at `path`: an int64 between 0 and MaxInt32 (upstream's field path keeps the leading period). */
function validateReplicas(obj: ApiObject, path: string): FieldError[] {
  try {
    const { value } = nestedInt64(obj, path);
    if (value < 0) return [invalid(path, value, 'should be a non-negative integer')];
    if (value > MAX_INT32) return [invalid(path, value, `should be less than or equal to ${MAX_INT32}`)];
    return [];
  } catch (err) {
    if (err instanceof ScaleAccessError) return [invalid(path, 0, err.message)];
    throw err;
  }
}

/** Upstream ValidateScaleSpec: what every create and update of the object must hold at specReplicasPath. */
export function validateScaleSpec(obj: ApiObject, paths: ScalePaths | undefined): FieldError[] {
  return paths ? validateReplicas(obj, paths.specReplicasPath) : [];
}

/** Upstream ValidateScaleStatus: statusReplicasPath, and labelSelectorPath a string when set. */
export function validateScaleStatus(obj: ApiObject, paths: ScalePaths | undefined): FieldError[] {
  if (!paths) return [];
  const errs = validateReplicas(obj, paths.statusReplicasPath);
  if (paths.labelSelectorPath) {
    try {
      nestedString(obj, paths.labelSelectorPath);
    } catch (err) {
      if (!(err instanceof ScaleAccessError)) throw err;
      errs.push(invalid(paths.labelSelectorPath, '', err.message));
    }
  }
  return errs;
}
