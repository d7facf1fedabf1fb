/**
 * storage.orch.io/v1 VolumeAttachment (SPEC 9.7; K
 * pkg/registry/storage/volumeattachment/strategy.go, 1.31): the spec is
 * read-only, so no generation; status.attached is a plain bool upstream,
 * present as false.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy } from '../../../registry/strategy.ts';
import { validateVolumeAttachment } from './validate.ts';

export default defineKind({
  strategy: {
    ...validatedBy(validateVolumeAttachment),
    validateStatusUpdate: (obj, old) => validateVolumeAttachment(obj, old),
    prepareForCreate(obj) {
      obj.status = { attached: false };
    },
  },
});
