/**
 * Validation of flowcontrol.orch.io PriorityLevelConfiguration (SPEC 9.7), on
 * the internal form whatever version was written, as upstream K
 * pkg/apis/flowcontrol/validation 1.31 (ValidatePriorityLevelConfiguration
 * and its status update): the rules a user meets, with upstream's paths and
 * words.
 */
import { child, forbidden, invalid, notSupported, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { validateConditions } from '../flow-schema/validate.ts';
import { PRESERVE_ZERO_SHARES_ANNOTATION } from './conversion.ts';

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** priorityLevelConfigurationQueuingMaxQueues: 10^7. */
const MAX_QUEUES = 10_000_000;
/** apiserver util/shufflesharding MaxHashBits. */
const MAX_HASH_BITS = 60;
/**
 * ValidatePriorityLevelConfiguration: the v1beta3 round-trip annotation never
 * reaches the internal form (conversion drops it), so written through another
 * version it is forbidden.
 */
export function validatePriorityLevel(pl: any, requestVersion: string): FieldError[] {
  const errs: FieldError[] = [];
  if (pl.metadata?.annotations && PRESERVE_ZERO_SHARES_ANNOTATION in pl.metadata.annotations) {
    errs.push(forbidden('metadata.annotations', `annotation '${PRESERVE_ZERO_SHARES_ANNOTATION}' is forbidden`));
  }
  const spec = pl.spec ?? {};
  const type = str(spec.type);
  if ((pl.metadata?.name === 'exempt') !== (type === 'Exempt')) errs.push(invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  if (type === 'Exempt') {
    if (spec.limited) errs.push(forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (spec.exempt) errs.push(...validateShares(spec.exempt, 'spec.exempt.nominalConcurrencyShares'), ...validateLendable(spec.exempt, 'spec.exempt.lendablePercent'));
  } else if (type === 'Limited') {
    if (spec.exempt) errs.push(forbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (!spec.limited) errs.push(required('spec.limited', 'must not be empty when type is Limited'));
    else errs.push(...validateLimited(spec.limited, requestVersion));
  } else errs.push(notSupported('spec.type', type, ['Exempt', 'Limited']));
  errs.push(...validateConditions(pl.status?.conditions));
  return errs;
}

/** The share count both kinds of level have: never negative. */
function validateShares(config: any, path: string): FieldError[] {
  const shares = config.nominalConcurrencyShares;
  return num(shares) < 0 ? [invalid(path, shares, 'must be a non-negative integer')] : [];
}

/** The lendable percent both kinds of level have: 0 to 100. */
function validateLendable(config: any, path: string): FieldError[] {
  const lendable = config.lendablePercent;
  return typeof lendable === 'number' && !(lendable >= 0 && lendable <= 100) ? [invalid(path, lendable, 'must be between 0 and 100, inclusive')] : [];
}

/** ValidateLimitedPriorityLevelConfiguration (1.31: a zero share count is allowed). */
function validateLimited(limited: any, requestVersion: string): FieldError[] {
  // getVersionedFieldNameForConcurrencyShares: v1beta1 and v1beta2 called it assuredConcurrencyShares; neither is served.
  const sharesField = requestVersion === 'v1beta1' || requestVersion === 'v1beta2' ? 'assuredConcurrencyShares' : 'nominalConcurrencyShares';
  const errs = [...validateShares(limited, `spec.limited.${sharesField}`), ...validateLimitResponse(limited.limitResponse ?? {}), ...validateLendable(limited, 'spec.limited.lendablePercent')];
  const borrowing = limited.borrowingLimitPercent;
  if (typeof borrowing === 'number' && borrowing < 0) errs.push(invalid('spec.limited.borrowingLimitPercent', borrowing, 'if specified, must be a non-negative integer'));
  return errs;
}

/** ValidateLimitResponse and ValidatePriorityLevelQueuingConfiguration. */
function validateLimitResponse(response: any): FieldError[] {
  const path = 'spec.limited.limitResponse';
  const type = str(response.type);
  if (type === 'Reject') return response.queuing ? [forbidden(child(path, 'queuing'), 'must be nil if limited.limitResponse.type is not Limited')] : [];
  if (type !== 'Queue') return [notSupported(child(path, 'type'), type, ['Queue', 'Reject'])];
  const queuing = response.queuing;
  if (!queuing) return [required(child(path, 'queuing'), 'must not be empty if limited.limitResponse.type is Limited')];
  const qPath = child(path, 'queuing');
  const errs: FieldError[] = [];
  const { queueLengthLimit = 0, queues = 0, handSize = 0 } = queuing;
  if (queueLengthLimit <= 0) errs.push(invalid(child(qPath, 'queueLengthLimit'), queueLengthLimit, 'must be positive'));
  if (queues <= 0) errs.push(invalid(child(qPath, 'queues'), queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(invalid(child(qPath, 'queues'), queues, `must not be greater than ${MAX_QUEUES}`));
  if (handSize <= 0) errs.push(invalid(child(qPath, 'handSize'), handSize, 'must be positive'));
  else if (handSize > queues) errs.push(invalid(child(qPath, 'handSize'), handSize, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * handSize) > MAX_HASH_BITS) {
    errs.push(invalid(child(qPath, 'handSize'), handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}
