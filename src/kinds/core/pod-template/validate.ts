/**
 * Validation of core/v1 PodTemplate and of the pod template every controller
 * embeds (SPEC 9.7), translated from K pkg/apis/core/validation/validation.go
 * 1.31 ValidatePodTemplate, ValidatePodTemplateSpec and the apps and batch
 * validations' template rules (a selector that matches the template's labels,
 * pods that restart Always): the template is validated as a pod's
 * (core/pod/validate.ts).
 */
import { child, forbidden, goRepr, invalid, notSupported, required, type FieldError, type GoRepr } from '../../../registry/validation/field-errors.ts';
import { goQuote } from '../../../util/go-print.ts';
import { validateLabels, validateLabelSelector } from '../../../registry/validation/label-selector.ts';
import { labelSelectorToRequirements, matchesLabels } from '../../../registry/selectors/label-selector.ts';
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

/** How a controller's selector is checked (its validation's words). */
export interface SelectorRules {
  /** spec.selector: Required value when absent. */
  required: boolean;
  /** The kind word of `empty selector is invalid for <kind>`; no check without it. */
  emptyFor?: string;
  /** The detail of the error when the selector does not convert; no error without it. */
  unconvertible?: string;
}

/**
 * The selector and the template's labels: a nil selector selects nothing and an
 * empty one everything (LabelSelectorAsSelector), so the labels must match
 * unless the selector is empty.
 */
export function validateSelectorAndTemplate(spec: any, path: string, rules: SelectorRules): FieldError[] {
  const errs: FieldError[] = [];
  const selectorPath = child(path, 'selector');
  if (spec.selector === undefined || spec.selector === null) {
    if (rules.required) errs.push(required(selectorPath));
  } else {
    errs.push(...validateLabelSelector(spec.selector, selectorPath));
    if (rules.emptyFor && Object.keys(spec.selector.matchLabels ?? {}).length + (spec.selector.matchExpressions ?? []).length === 0) {
      errs.push(invalid(selectorPath, spec.selector, `empty selector is invalid for ${rules.emptyFor}`));
    }
  }
  let requirements;
  try {
    requirements = labelSelectorToRequirements(spec.selector);
  } catch {
    return rules.unconvertible === undefined ? errs : [...errs, invalid(selectorPath, spec.selector, rules.unconvertible)];
  }
  const labels = spec.template?.metadata?.labels;
  if (!(requirements && requirements.length === 0) && !matchesLabels(requirements, labels ?? {})) {
    errs.push(invalid(`${path}.template.metadata.labels`, goLabels(labels), '`selector` does not match template `labels`'));
  }
  return errs;
}
