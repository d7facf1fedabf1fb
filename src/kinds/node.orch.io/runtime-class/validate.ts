/**
 * RuntimeClass validation (SPEC 9.7; translated from upstream kubernetes
 * pkg/apis/node/validation ValidateRuntimeClass and ValidateRuntimeClassUpdate,
 * 1.31): the handler a DNS label, immutable; the overhead valid resources;
 * the scheduling node selector's labels and tolerations valid.
 */
import { invalid, type FieldError } from '../../../registry/validation/field-errors.ts';
import { validateLabels } from '../../../registry/validation/label-selector.ts';
import { isDNS1123Label } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { validateTolerations } from '../../core/pod/validate.ts';
import { validateResources } from '../../core/pod/validate-containers.ts';

/** ValidateRuntimeClass, and on update ValidateRuntimeClassUpdate's immutable handler. */
export function validateRuntimeClass(rc: any, old?: any): FieldError[] {
  const handler = typeof rc.handler === 'string' ? rc.handler : '';
  const errs = isDNS1123Label(handler).map((m) => invalid('handler', handler, m));
  // validateOverhead: the pod-fixed overhead as a container's limits (so the paths say `limits`).
  if (rc.overhead) errs.push(...validateResources({ limits: rc.overhead.podFixed }, 'overhead'));
  if (rc.scheduling) {
    errs.push(...validateLabels(rc.scheduling.nodeSelector, 'scheduling.nodeSelector'), ...validateTolerations(rc.scheduling.tolerations, 'scheduling.tolerations'));
  }
  if (old && handler !== old.handler) errs.push(invalid('handler', handler, FIELD_IMMUTABLE));
  return errs;
}
