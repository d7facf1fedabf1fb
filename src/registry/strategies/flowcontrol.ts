/**
 * flowcontrol.orch.io FlowSchema and PriorityLevelConfiguration (SPEC 9.7):
 * defaults per served version (K pkg/apis/flowcontrol/v1/defaults.go and
 * v1beta3/defaults.go), generation, and validation of the internal form
 * (K pkg/registry/flowcontrol/*\/strategy.go).
 */
import { emptyStatusAndSpecGeneration, type ApiObject, type Strategy } from '../strategy.ts';
import { PRESERVE_ZERO_SHARES_ANNOTATION, flowcontrolConversions } from '../conversions/flowcontrol.ts';
import { internalForm } from '../kind-conversion.ts';
import { validateConditions, validateFlowSchema, validatePriorityLevel } from '../validation/flowcontrol.ts';

/** PriorityLevelConfigurationDefaultNominalConcurrencyShares. */
const DEFAULT_SHARES = 30;

const versionOf = (obj: ApiObject): string => String(obj.apiVersion ?? '').slice(String(obj.apiVersion ?? '').indexOf('/') + 1);

/** The object as upstream validates it: converted to the internal form from the version it was written at. */
const internal = (obj: ApiObject): ApiObject => internalForm(flowcontrolConversions[`flowcontrol.orch.io/${obj.kind}`], obj);

/** SetDefaults_FlowSchemaSpec (the same at v1 and v1beta3). */
function defaultFlowSchema(obj: ApiObject): void {
  if (obj.spec && !obj.spec.matchingPrecedence) obj.spec.matchingPrecedence = 1000;
}

/**
 * SetDefaults_PriorityLevelConfiguration and its parts. v1's share count is a
 * pointer: 30 only when unset. v1beta3's is an int32: 0 becomes 30 unless the
 * round-trip annotation says the 0 is meant (SPEC 9.7).
 */
function defaultPriorityLevel(obj: ApiObject): void {
  const spec = obj.spec;
  if (!spec) return;
  if (spec.exempt) {
    spec.exempt.nominalConcurrencyShares ??= 0;
    spec.exempt.lendablePercent ??= 0;
  }
  const limited = spec.limited;
  if (!limited) return;
  if (versionOf(obj) === 'v1beta3') {
    const preserveZero = obj.metadata?.annotations !== undefined && PRESERVE_ZERO_SHARES_ANNOTATION in obj.metadata.annotations;
    if (!limited.nominalConcurrencyShares && !preserveZero) limited.nominalConcurrencyShares = DEFAULT_SHARES;
    // The answer is the stored object read back at v1beta3: the annotation as that conversion makes it.
    const roundTripped = flowcontrolConversions['flowcontrol.orch.io/PriorityLevelConfiguration'];
    obj.metadata = roundTripped.fromInternal[obj.apiVersion](roundTripped.toInternal[obj.apiVersion](obj)).metadata;
  } else {
    limited.nominalConcurrencyShares ??= DEFAULT_SHARES;
  }
  limited.lendablePercent ??= 0;
  const queuing = limited.limitResponse?.queuing;
  if (queuing) {
    if (!queuing.handSize) queuing.handSize = 8;
    if (!queuing.queues) queuing.queues = 64;
    if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50;
  }
}

const statusOnly = (obj: ApiObject) => validateConditions(obj.status?.conditions);

/** Status `{}` on create as upstream's PrepareForCreate; the status subresource validates only status. */
function flowcontrolStrategy(applyDefaults: (obj: ApiObject) => void, validate: (obj: ApiObject) => ReturnType<typeof statusOnly>): Strategy {
  return {
    applyDefaults,
    ...emptyStatusAndSpecGeneration,
    validate,
    validateUpdate: (obj) => validate(obj),
    validateStatusUpdate: statusOnly,
  };
}

export const flowcontrolStrategies: Record<string, Strategy> = {
  'flowcontrol.orch.io/FlowSchema': flowcontrolStrategy(defaultFlowSchema, (obj) => validateFlowSchema(internal(obj))),
  'flowcontrol.orch.io/PriorityLevelConfiguration': flowcontrolStrategy(defaultPriorityLevel, (obj) => validatePriorityLevel(internal(obj), versionOf(obj))),
};
