/**
 * core/v1 PodTemplate (SPEC 9.7; K pkg/registry/core/podtemplate/strategy.go,
 * 1.31): the template gets a pod's defaults and validation, and generation
 * follows the template.
 */
import type { components } from '../../../generated/types/api__v1.ts';
import { deepEqual } from '../../../registry/json-value.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy, type Strategy } from '../../../registry/strategy.ts';
import { defaultPodTemplate } from '../pod/defaults.ts';
import { validatePodTemplateObject } from './validate.ts';

type PodTemplate = components['schemas']['io.orch.api.core.v1.PodTemplate'];

/** Go's DeepEqual of the decoded values: key order is irrelevant, nil and absent are alike. */
const same = (a: unknown, b: unknown) => deepEqual(a ?? null, b ?? null);

const strategy: Strategy<PodTemplate> = {
  ...validatedBy(validatePodTemplateObject),
  applyDefaults: (obj) => defaultPodTemplate(obj.template, 'PodTemplate'),
  prepareForCreate(obj) {
    obj.metadata.generation = 1;
  },
  prepareForUpdate(obj, old) {
    const generation = old.metadata.generation ?? 0;
    obj.metadata.generation = same(obj.template, old.template) ? generation : generation + 1;
  },
};

export default defineKind({ strategy });
