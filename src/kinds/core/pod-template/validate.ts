/**
 * Validation of core/v1 PodTemplate and of the pod template every controller
 * embeds (SPEC 9.7), translated from K pkg/apis/core/validation/validation.go
 * 1.31 ValidatePodTemplate, ValidatePodTemplateSpec and the apps and batch
 * validations' template rules: the template is validated as a pod's
 * (core/pod/validate.ts).
 */
import { child, forbidden, goQuote, goRepr, notSupported, type FieldError, type GoRepr } from '../../../registry/validation/field-errors.ts';
import { validateLabels } from '../../../registry/validation/label-selector.ts';
import { validateAnnotations } from '../../../registry/validation/object-meta.ts';
import { validatePodSpec } from '../pod/validate.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** ValidatePodTemplateSpec: template labels and annotations, the pod spec, no ephemeral containers. */
export function validatePodTemplate(template: any, path: string): FieldError[] {
  const t = isObj(template) ? template : {};
  const errs = [...validateLabels(t.metadata?.labels, child(child(path, 'metadata'), 'labels')), ...validateAnnotations(t.metadata?.annotations, child(child(path, 'metadata'), 'annotations'))];
  errs.push(...validatePodSpec(t.spec, '', child(path, 'spec')));
  if (Array.isArray(t.spec?.ephemeralContainers) && t.spec.ephemeralContainers.length > 0) {
    errs.push(forbidden(child(child(path, 'spec'), 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}

/** Go `%#v` of a label map, as upstream prints the template labels it refuses. */
export function goLabels(labels: unknown): GoRepr {
  if (!isObj(labels)) return goRepr('map[string]string(nil)');
  const keys = Object.keys(labels).sort();
  return goRepr(`map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(labels[k]))}`).join(', ')}}`);
}

/** The template of a controller whose pods run forever: restartPolicy Always, no activeDeadlineSeconds. */
export function alwaysRestarting(spec: any, kind: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const restartPolicy = spec.template?.spec?.restartPolicy;
  if (restartPolicy !== 'Always') errs.push(notSupported(`${path}.template.spec.restartPolicy`, restartPolicy ?? '', ['Always']));
  if (spec.template?.spec?.activeDeadlineSeconds !== undefined) errs.push(forbidden(`${path}.template.spec.activeDeadlineSeconds`, `activeDeadlineSeconds in ${kind} is not Supported`));
  return errs;
}

/** ValidatePodTemplate / ValidatePodTemplateUpdate: the template as a pod's, any restart policy. */
export function validatePodTemplateObject(podTemplate: any): FieldError[] {
  return validatePodTemplate(podTemplate.template, 'template');
}
