/**
 * The Table cells of PersistentVolumeClaim (SPEC 2.5, 4.7; upstream
 * pkg/printers/internalversion/printers.go printPersistentVolumeClaim, 1.31):
 * capacity and access modes only once the claim names a volume; phase and
 * class as a volume's.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';
import { quantityText } from '../../../api/quantity.ts';
import { accessModes, cells as volumeCells } from '../persistent-volume/cells.ts';

type PersistentVolumeClaim = components['schemas']['io.orch.api.core.v1.PersistentVolumeClaim'];

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

export const cells = {
  volumePhase: volumeCells.volumePhase,
  storageClass: volumeCells.storageClass,
  boundCapacity: (capacity, obj) => (obj.spec?.volumeName ? quantityText(isObj(capacity) ? capacity.storage : undefined) : ''),
  boundAccessModes: (modes, obj) => (obj.spec?.volumeName ? accessModes(modes) : ''),
} satisfies Record<string, Cell<PersistentVolumeClaim>>;
