/**
 * apps/v1 DaemonSet (SPEC 9.7; K pkg/registry/apps/daemonset/strategy.go and
 * pkg/apis/apps/v1/defaults.go, 1.31): the update strategy's defaults, the
 * template a pod's defaults, status `{}` on create, the template generation
 * apps/v1 keeps in an annotation, its status rules.
 */
import { objectAt } from '../../../registry/json-value.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specAndStatusStrategy, type ApiObject } from '../../../registry/strategy.ts';
import { validateReplicaStatus, type ReplicaStatusRules } from '../../../registry/validation/replica-status.ts';
import { defaultPodTemplate } from '../../core/pod/defaults.ts';
import { validateDaemonSet } from './validate.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** ValidateDaemonSetStatusUpdate's counters: no status.replicas to bound them. */
const STATUS: ReplicaStatusRules = {
  counters: ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount'],
  collisionCount: true,
};

/** SetDefaults_DaemonSet: RollingUpdate with 1 unavailable and no surge. */
function defaultDaemonSet(obj: ApiObject): void {
  const spec = objectAt(obj, 'spec');
  const strategy = objectAt(spec, 'updateStrategy');
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    if (!isObj(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    strategy.rollingUpdate.maxUnavailable ??= 1;
    strategy.rollingUpdate.maxSurge ??= 0;
  }
  defaultPodTemplate(spec.template, 'DaemonSet');
}

/** apps/v1 keeps the internal spec.templateGeneration in this annotation (K pkg/apis/apps/v1/conversion.go). */
const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

function templateGenerationOf(obj: ApiObject): number {
  const value = Number(obj.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION]);
  return Number.isInteger(value) ? value : 0;
}

function setTemplateGeneration(obj: ApiObject, value: number): void {
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [TEMPLATE_GENERATION_ANNOTATION]: String(value) };
}

/**
 * DaemonSet PrepareForCreate/PrepareForUpdate: template generation at least 1
 * on create; a template change bumps it and generation, another spec change
 * generation only.
 */
const daemonSetGenerations = {
  prepareForCreate(obj: ApiObject) {
    obj.status = {};
    obj.metadata.generation = 1;
    setTemplateGeneration(obj, Math.max(templateGenerationOf(obj), 1));
  },
  prepareForUpdate(obj: ApiObject, old: ApiObject) {
    const generation = old.metadata.generation ?? 0;
    setTemplateGeneration(obj, templateGenerationOf(old));
    if (JSON.stringify(obj.spec?.template) !== JSON.stringify(old.spec?.template)) {
      setTemplateGeneration(obj, templateGenerationOf(old) + 1);
      obj.metadata.generation = generation + 1;
    } else {
      obj.metadata.generation = JSON.stringify(obj.spec) === JSON.stringify(old.spec) ? generation : generation + 1;
    }
  },
};

const strategy = {
  ...specAndStatusStrategy({ applyDefaults: defaultDaemonSet, validate: validateDaemonSet, validateStatus: (obj, old) => validateReplicaStatus(STATUS, obj, old) }),
  ...daemonSetGenerations,
};

export default defineKind({ strategy });
