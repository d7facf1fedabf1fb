/**
 * The PersistentVolume strategy (SPEC 9.7; K
 * pkg/registry/core/persistentvolume/strategy.go, 1.31): capacity in canonical
 * form, and a phase as upstream's read-time defaulting shows it. Upstream
 * defaults again on every read from storage, so a status emptied on create
 * still reads phase Pending: the phase is set on create as well as on every
 * write.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import type { ApiObject, Strategy } from '../../../registry/strategy.ts';
import { canonicalResourceList } from '../../../registry/validation/resource-list.ts';
import { validatedBy } from '../../../registry/strategy.ts';
import { validatePersistentVolume } from './validate.ts';

type PersistentVolume = components['schemas']['io.orch.api.core.v1.PersistentVolume'];

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** metav1.Now() as it serializes: RFC 3339 in whole seconds. */
const nowSeconds = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** SetDefaults_PersistentVolume and _PersistentVolumeClaim: a status without a phase is Pending (a Go struct's status is never absent). */
export function defaultPhase(obj: ApiObject): void {
  if (!isObj(obj.status)) obj.status = {};
  obj.status.phase ||= 'Pending';
}

/**
 * PersistentVolume status strategy: a phase change stamps lastPhaseTransitionTime
 * unless the client set a new one (PersistentVolumeLastPhaseTransitionTime, GA in 1.31).
 */
function stampPhaseTransition(obj: ApiObject, old: ApiObject): void {
  const status = isObj(obj.status) ? obj.status : (obj.status = {});
  const oldStatus = isObj(old.status) ? old.status : {};
  if (oldStatus.phase === status.phase) status.lastPhaseTransitionTime ??= oldStatus.lastPhaseTransitionTime;
  else if (status.lastPhaseTransitionTime === undefined || status.lastPhaseTransitionTime === oldStatus.lastPhaseTransitionTime) status.lastPhaseTransitionTime = nowSeconds();
  if (status.lastPhaseTransitionTime === undefined) delete status.lastPhaseTransitionTime;
}

export const strategy: Strategy<PersistentVolume> = {
  ...validatedBy(validatePersistentVolume),
  applyDefaults(obj) {
    canonicalResourceList(obj.spec?.capacity, 'PersistentVolume');
    defaultPhase(obj);
  },
  prepareForCreate(obj) {
    obj.status = { phase: 'Pending', lastPhaseTransitionTime: nowSeconds() };
  },
  prepareForStatusUpdate(obj, old) {
    defaultPhase(obj);
    stampPhaseTransition(obj, old);
  },
};
