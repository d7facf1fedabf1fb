/**
 * The mandatory API Priority and Fairness objects (upstream apiserver
 * pkg/apis/flowcontrol/bootstrap/default.go Mandatory*, kept by
 * kube-apiserver's pkg/registry/flowcontrol/ensurer at every start): the
 * `exempt` and `catch-all` PriorityLevelConfigurations and FlowSchemas exist,
 * carry `apf.orch.io/autoupdate-spec: "true"`, and have their fixed spec back
 * when someone changed it; the exempt level's nominalConcurrencyShares and
 * lendablePercent are the administrator's to change. The suggested objects
 * upstream also creates are not made here.
 */
import type { GenericStore } from './store.ts';
import type { ApiObject } from './strategy.ts';
import { ensureBootstrapObject } from './bootstrap-object.ts';

/** flowcontrol v1 AutoUpdateAnnotationKey, renamed (FACTS §0). */
export const AUTO_UPDATE_ANNOTATION = 'apf.orch.io/autoupdate-spec';

const API_VERSION = 'flowcontrol.orch.io/v1';

const EVERYTHING = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};
const groups = (...names: string[]) => names.map((name) => ({ kind: 'Group', group: { name } }));

const bootstrapObject = (kind: string, name: string, spec: unknown): ApiObject => ({
  apiVersion: API_VERSION,
  kind,
  metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
  spec,
});

/** The mandatory levels, with the defaults the v1 strategy gives them (what a stored copy holds). */
export const MANDATORY_PRIORITY_LEVELS: readonly ApiObject[] = [
  bootstrapObject('PriorityLevelConfiguration', 'catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 } }),
  bootstrapObject('PriorityLevelConfiguration', 'exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
];

export const MANDATORY_FLOW_SCHEMAS: readonly ApiObject[] = [
  bootstrapObject('FlowSchema', 'exempt', { priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1, rules: [{ subjects: groups('system:masters'), ...EVERYTHING }] }),
  bootstrapObject('FlowSchema', 'catch-all', {
    priorityLevelConfiguration: { name: 'catch-all' },
    matchingPrecedence: 10000,
    distinguisherMethod: { type: 'ByUser' },
    rules: [{ subjects: groups('system:unauthenticated', 'system:authenticated'), ...EVERYTHING }],
  }),
];

/**
 * The ensurer's ReviseIfNeeded for a mandatory object: the annotation set to
 * "true" and the fixed spec, unless the spec is already equal-ish (plcOps /
 * fsOps SpecEqualish: for `exempt`, whatever shares and lendable percent it has).
 */
export function revisedMandatory(existing: ApiObject, expected: ApiObject): ApiObject {
  const revised = structuredClone(existing);
  revised.metadata.annotations = { ...(revised.metadata.annotations ?? {}), [AUTO_UPDATE_ANNOTATION]: 'true' };
  const wanted = structuredClone(expected.spec);
  if (expected.kind === 'PriorityLevelConfiguration' && expected.metadata.name === 'exempt' && existing.spec?.exempt) {
    wanted.exempt.nominalConcurrencyShares = existing.spec.exempt.nominalConcurrencyShares;
    wanted.exempt.lendablePercent = existing.spec.exempt.lendablePercent;
  }
  revised.spec = wanted;
  return revised;
}

/** Creates or restores every mandatory object; levels first, so the schemas never name a missing level for long. */
export async function ensureMandatoryFlowControl(stores: { priorityLevels: GenericStore; flowSchemas: GenericStore }): Promise<void> {
  await Promise.all(MANDATORY_PRIORITY_LEVELS.map((level) => ensureBootstrapObject(stores.priorityLevels, level, revisedMandatory)));
  await Promise.all(MANDATORY_FLOW_SCHEMAS.map((schema) => ensureBootstrapObject(stores.flowSchemas, schema, revisedMandatory)));
}
