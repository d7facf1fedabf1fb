/**
 * storage.orch.io/v1 CSIDriver (SPEC 9.7; K
 * pkg/registry/storage/csidriver/strategy.go, 1.31): the lifecycle modes'
 * default, no generation on create and a spec change counted from there;
 * its printer's cell.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specGeneration, validatedBy, type ApiObject } from '../../../registry/strategy.ts';
import { cells } from './cells.ts';
import { validateCSIDriver } from './validate.ts';

/** SetDefaults_CSIDriver: an empty volumeLifecycleModes gets Persistent (the contract defaults only an absent one). */
function defaultCSIDriver(obj: ApiObject): void {
  if (obj.spec && typeof obj.spec === 'object' && (!Array.isArray(obj.spec.volumeLifecycleModes) || obj.spec.volumeLifecycleModes.length === 0)) {
    obj.spec.volumeLifecycleModes = ['Persistent'];
  }
}

export default defineKind({
  strategy: { ...validatedBy(validateCSIDriver), applyDefaults: defaultCSIDriver, prepareForUpdate: specGeneration.prepareForUpdate },
  cells,
});
