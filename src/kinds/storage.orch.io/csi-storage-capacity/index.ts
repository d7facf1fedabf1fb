/** storage.orch.io/v1 CSIStorageCapacity (SPEC 9.7; K pkg/registry/storage/csistoragecapacity/strategy.go, 1.31): validated on create and update. */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy } from '../../../registry/strategy.ts';
import { validateCSIStorageCapacity } from './validate.ts';

export default defineKind({ strategy: validatedBy(validateCSIStorageCapacity) });
