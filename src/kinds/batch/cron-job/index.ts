/**
 * batch/v1 CronJob (SPEC 9.7; K pkg/registry/batch/cronjob/strategy.go, 1.31):
 * the job template's pod template a pod's defaults, status `{}` on create,
 * generation following the spec, and the name warning a Job gets.
 */
import { objectAt } from '../../../registry/json-value.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specAndStatusStrategy } from '../../../registry/strategy.ts';
import { defaultPodTemplate } from '../../core/pod/defaults.ts';
import { nameWarnings } from '../job/strategy.ts';
import { validateCronJob } from './validate.ts';

export default defineKind({
  strategy: {
    ...specAndStatusStrategy({ applyDefaults: (obj) => defaultPodTemplate(objectAt(obj, 'spec').jobTemplate?.spec?.template, 'CronJob'), validate: validateCronJob }),
    warningsOnCreate: nameWarnings,
  },
});
