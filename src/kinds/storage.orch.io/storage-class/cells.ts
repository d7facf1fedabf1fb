/** The Table cells of StorageClass (SPEC 2.5, 4.7; upstream pkg/printers/internalversion/printers.go printStorageClass, 1.31). */
import type { components } from '../../../generated/types/apis__storage.orch.io__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type StorageClass = components['schemas']['io.orch.api.storage.v1.StorageClass'];

/** The annotations that make a StorageClass the default (K pkg/apis/storage/util IsDefaultAnnotation), renamed by FACTS §0. */
const DEFAULT_STORAGE_CLASS_ANNOTATIONS = ['storageclass.orch.io/is-default-class', 'storageclass.beta.orch.io/is-default-class'];

export const cells = {
  storageClassName: (value, obj) => (DEFAULT_STORAGE_CLASS_ANNOTATIONS.some((a) => obj.metadata?.annotations?.[a] === 'true') ? `${value} (default)` : value),
} satisfies Record<string, Cell<StorageClass>>;
