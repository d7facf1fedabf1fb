/**
 * core/v1 Namespace (SPEC 3; upstream pkg/registry/core/namespace/strategy.go,
 * 1.31): namespaces start Active with the `orch` finalizer; spec.finalizers
 * change only through /finalize, and a deleted namespace turns Terminating
 * until the namespace controller has emptied it.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy, type Strategy } from '../../../registry/strategy.ts';
import { validateNamespace } from './validate.ts';

type Namespace = components['schemas']['io.orch.api.core.v1.Namespace'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

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

const strategy: Strategy<Namespace> = {
  prepareForCreate: (obj) => defaultNamespace(obj),
  prepareForUpdate: (obj, old) => defaultNamespace(obj, old),
  ...validatedBy(validateNamespace),
  // The namespace controller empties the namespace, then removes `orch` through /finalize.
  holdsDeletion: (obj) => (obj.spec?.finalizers?.length ?? 0) > 0,
  beginDeletion(obj) {
    obj.status = { ...(obj.status ?? {}), phase: 'Terminating' };
  },
};

export default defineKind({ strategy });
