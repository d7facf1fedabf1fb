/**
 * core/v1 ResourceQuota (SPEC 9.7; K pkg/registry/core/resourcequota/strategy.go,
 * 1.31): ResourceLists in canonical form, status emptied on create and
 * validated alone through /status, and its printer's cells.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy, type Strategy } from '../../../registry/strategy.ts';
import { canonicalResourceList, canonicalStatusLists } from '../../../registry/validation/resource-list.ts';
import { cells } from './cells.ts';
import { validateResourceQuota, validateResourceQuotaStatus } from './validate.ts';

type ResourceQuota = components['schemas']['io.orch.api.core.v1.ResourceQuota'];

const strategy: Strategy<ResourceQuota> = {
  ...validatedBy(validateResourceQuota),
  applyDefaults(obj) {
    canonicalResourceList(obj.spec?.hard, 'ResourceQuota');
    canonicalStatusLists(obj, 'ResourceQuota', ['hard', 'used']);
  },
  prepareForCreate(obj) {
    obj.status = {};
  },
  prepareForStatusUpdate: (obj) => canonicalStatusLists(obj, 'ResourceQuota', ['hard', 'used']),
  validateStatusUpdate: (obj) => validateResourceQuotaStatus(obj),
};

export default defineKind({ strategy, cells });
