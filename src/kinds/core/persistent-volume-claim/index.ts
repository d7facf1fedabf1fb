/**
 * core/v1 PersistentVolumeClaim (SPEC 9.7; K
 * pkg/registry/core/persistentvolumeclaim/strategy.go, 1.31): ResourceLists in
 * canonical form, a phase as a volume's (persistent-volume/strategy.ts), and
 * its printer's cells.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy, type ApiObject, type Strategy } from '../../../registry/strategy.ts';
import { canonicalResourceList, canonicalStatusLists } from '../../../registry/validation/resource-list.ts';
import { defaultPhase } from '../persistent-volume/strategy.ts';
import { cells } from './cells.ts';
import { validatePersistentVolumeClaim } from './validate.ts';

type PersistentVolumeClaim = components['schemas']['io.orch.api.core.v1.PersistentVolumeClaim'];

/** A claim's status: canonical capacity and allocated resources, Pending without a phase. */
function claimStatusDefaults(obj: ApiObject): void {
  canonicalStatusLists(obj, 'PersistentVolumeClaim', ['capacity', 'allocatedResources']);
  defaultPhase(obj);
}

const strategy: Strategy<PersistentVolumeClaim> = {
  ...validatedBy(validatePersistentVolumeClaim),
  applyDefaults(obj) {
    canonicalResourceList(obj.spec?.resources?.limits, 'PersistentVolumeClaim');
    canonicalResourceList(obj.spec?.resources?.requests, 'PersistentVolumeClaim');
    claimStatusDefaults(obj);
  },
  prepareForCreate(obj) {
    obj.status = { phase: 'Pending' };
  },
  prepareForStatusUpdate: claimStatusDefaults,
};

export default defineKind({ strategy, cells });
