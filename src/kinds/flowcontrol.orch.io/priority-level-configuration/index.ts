/**
 * flowcontrol.orch.io PriorityLevelConfiguration at v1 and v1beta3 (SPEC 9.7;
 * K pkg/apis/flowcontrol/v1/defaults.go and v1beta3/defaults.go; K
 * pkg/registry/flowcontrol/prioritylevelconfiguration/strategy.go): defaults
 * per served version, status `{}` on create, generation following the spec,
 * validation of the internal form, the status subresource's conditions; its
 * conversion and cells.
 */
import { internalForm } from '../../../registry/kind-conversion.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specAndStatusStrategy, type ApiObject } from '../../../registry/strategy.ts';
import { validateStatus } from '../flow-schema/validate.ts';
import { cells } from './cells.ts';
import { conversion, PRESERVE_ZERO_SHARES_ANNOTATION } from './conversion.ts';
import { validatePriorityLevel } from './validate.ts';

/** PriorityLevelConfigurationDefaultNominalConcurrencyShares. */
const DEFAULT_SHARES = 30;

const versionOf = (obj: ApiObject): string => String(obj.apiVersion ?? '').slice(String(obj.apiVersion ?? '').indexOf('/') + 1);

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
    obj.metadata = conversion.fromInternal[obj.apiVersion](conversion.toInternal[obj.apiVersion](obj)).metadata;
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

export default defineKind({
  // validated as upstream validates it: converted to the internal form from the version it was written at
  strategy: specAndStatusStrategy({ applyDefaults: defaultPriorityLevel, validate: (obj) => validatePriorityLevel(internalForm(conversion, obj), versionOf(obj)), validateStatus }),
  cells,
  conversion,
});
