/** storage.orch.io/v1 StorageClass (SPEC 9.7; K pkg/registry/storage/storageclass/strategy.go, 1.31): validated on create and update; its printer's cell. */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy } from '../../../registry/strategy.ts';
import { cells } from './cells.ts';
import { validateStorageClass } from './validate.ts';

export default defineKind({ strategy: validatedBy(validateStorageClass), cells });
