/**
 * Validation of core/v1 ReplicationController (SPEC 9.7), translated from K
 * pkg/apis/core/validation/validation.go 1.31
 * ValidateReplicationControllerSpec, ValidatePodTemplateSpecForRC and
 * ValidateNonEmptySelector: the template is validated as every controller's
 * (core/pod-template/validate.ts).
 */
import { invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { nonNegative } from '../../../registry/validation/field-values.ts';
import { alwaysRestarting, goLabels, validatePodTemplate } from '../pod-template/validate.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * ValidateReplicationControllerSpec: a non-empty selector (a plain label map)
 * that the template's labels match, non-negative counts, and a template whose
 * pods restart Always.
 */
export function validateReplicationController(rc: any): FieldError[] {
  const spec = isObj(rc.spec) ? rc.spec : {};
  const selector: Record<string, string> = isObj(spec.selector) ? spec.selector : {};
  const errs = [...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds')];
  const empty = Object.keys(selector).length === 0;
  if (empty) errs.push(required('spec.selector'));
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'));
  if (!isObj(spec.template)) return [...errs, required('spec.template')];
  const labels = isObj(spec.template.metadata?.labels) ? spec.template.metadata.labels : {};
  if (!empty && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(invalid('spec.template.metadata.labels', goLabels(spec.template.metadata?.labels), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplate(spec.template, 'spec.template'), ...alwaysRestarting(spec, 'ReplicationController', 'spec'));
  return errs;
}
