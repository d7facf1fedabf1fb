/**
 * The Table cells of PersistentVolume, and those a claim prints alike (SPEC
 * 2.5, 4.7; upstream pkg/printers/internalversion/printers.go
 * printPersistentVolume, 1.31, and pkg/apis/core/helper
 * GetAccessModesAsString, GetPersistentVolumeClass).
 */
import type { components } from '../../../generated/types/api__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';
import { quantityText } from '../../../api/quantity.ts';
import { BETA_STORAGE_CLASS } from './validate.ts';

type PersistentVolume = components['schemas']['io.orch.api.core.v1.PersistentVolume'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** GetAccessModesAsString: each mode once, in the order RWO, ROX, RWX, RWOP, comma-joined. */
export function accessModes(modes: unknown): string {
  const present = new Set(arr(modes));
  return [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ]
    .filter(([mode]) => present.has(mode))
    .map(([, short]) => short)
    .join(',');
}

export const cells = {
  // printPersistentVolume's Capacity: the storage entry of spec.capacity
  storageQuantity: (capacity) => quantityText(isObj(capacity) ? capacity.storage : undefined),
  accessModes: (modes) => accessModes(modes),
  // a volume or claim being deleted prints Terminating
  volumePhase: (phase, obj) => (obj.metadata?.deletionTimestamp ? 'Terminating' : (phase ?? '')),
  claimRef: (ref) => (isObj(ref) ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : ''),
  // GetPersistentVolumeClass / GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName
  storageClass: (className, obj) => obj.metadata?.annotations?.[BETA_STORAGE_CLASS] ?? className ?? '',
} satisfies Record<string, Cell<PersistentVolume>>;
