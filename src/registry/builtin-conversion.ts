/**
 * The in-process conversions of built-in kinds served at several versions
 * (SPEC 9.4.2): a kind the contract stores at another version gets a
 * `convert` hook from its definition's conversion (KindHooks.conversion),
 * through the internal form and the served version's decoder.
 */
import { internalError } from '../api/status-error.ts';
import { apiVersionOf, storageGroupOf, type DecodeContext, type Decoder, type KindDefinition } from './kind.ts';
import type { KindConversion } from './kind-conversion.ts';
import type { ApiObject } from './strategy.ts';

/** The object at `apiVersion`, with apiVersion, kind and metadata leading (stored JSON relies on it: withResourceVersion). */
function atVersion(obj: ApiObject, apiVersion: string): ApiObject {
  const { apiVersion: _previous, kind, metadata, ...rest } = obj;
  return { apiVersion, kind, metadata, ...rest };
}

/** A converted object is one the conversion built: decoding it cannot fail, the context only has to exist. */
const CANONICAL: DecodeContext = {
  unknown: () => {},
  fail: (path) => {
    throw internalError(`conversion made a value of the wrong type at ${path}`);
  },
  invalidValue: (path, message) => {
    throw internalError(`conversion made an invalid value at ${path}: ${message}`);
  },
};

/**
 * The `KindDefinition.convert` of a kind with in-process conversions: from
 * whatever served version the object is at, through the internal form, to
 * `apiVersion`, then through that version's decoder, so the result has the
 * canonical field order a write of it would have (an unchanged object read
 * at one version and written back is no change). Synchronous work; async
 * only to fit the hook webhooks share.
 */
export function inProcessConverter(conversion: KindConversion, decoders: ReadonlyMap<string, Decoder>): NonNullable<KindDefinition['convert']> {
  return async (obj, apiVersion) => {
    const toInternal = conversion.toInternal[String(obj.apiVersion)];
    const fromInternal = conversion.fromInternal[apiVersion];
    const decode = decoders.get(apiVersion);
    if (!toInternal || !fromInternal || !decode) throw internalError(`converting ${String(obj.apiVersion)} to ${apiVersion}: no conversion`);
    return atVersion(decode(fromInternal(toInternal(obj)), '', CANONICAL), apiVersion);
  };
}

/**
 * The kind with its conversion when the contract stores it at another version
 * (`storageVersion`): reads and writes of it convert, while the storage
 * version's own kind never does (a NetworkPolicy's GET converts nothing).
 */
export function withBuiltinConversion(kind: KindDefinition, kinds: readonly KindDefinition[]): KindDefinition {
  if (kind.storageVersion === undefined || kind.convert) return kind;
  const conversion = kind.hooks?.conversion;
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
