/**
 * The in-process conversions of built-in kinds served at several versions
 * (SPEC 9.4.2), keyed by `group/Kind`; one module per group.
 */
import { apiVersionOf, storageGroupOf, type KindDefinition } from '../kind.ts';
import { flowcontrolConversions } from './flowcontrol.ts';
import { autoscalingConversions } from './autoscaling.ts';
import { eventConversions } from './events.ts';
import { inProcessConverter, type KindConversion } from './kind-conversion.ts';

const CONVERSIONS: Record<string, KindConversion> = {
  ...flowcontrolConversions,
  ...autoscalingConversions,
  ...eventConversions,
};

/**
 * The kind with its conversion when the contract stores it at another version
 * (`storageVersion`): reads and writes of it convert, while the storage
 * version's own kind never does (a NetworkPolicy's GET converts nothing).
 */
export function withBuiltinConversion(kind: KindDefinition, kinds: readonly KindDefinition[]): KindDefinition {
  if (kind.storageVersion === undefined || kind.convert) return kind;
  const conversion = CONVERSIONS[`${kind.group}/${kind.kind}`];
  const storedAt = apiVersionOf({ group: storageGroupOf(kind), version: kind.storageVersion });
  const served = apiVersionOf(kind);
  // Both ways: writes store at the storage version, reads serve at this one.
  if (!conversion?.toInternal[served] || !conversion.fromInternal[storedAt] || !conversion.toInternal[storedAt] || !conversion.fromInternal[served]) {
    throw new Error(`${served} ${kind.kind} is stored at ${storedAt} but has no conversion between them`);
  }
  // Each version's decoder puts a converted object in that version's canonical form.
  // The storage version may be another group's kind (events.orch.io/v1 Events are stored as core Events).
  const decoders = new Map(kinds.filter((k) => (k.group === kind.group || k.group === storageGroupOf(kind)) && k.kind === kind.kind).map((k) => [apiVersionOf(k), k.decode]));
  return { ...kind, convert: inProcessConverter(conversion, decoders), printsStoredForm: true };
}
