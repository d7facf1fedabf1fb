/**
 * Go's time.ParseDuration, for the flags kube-apiserver declares as durations
 * and for the `timeout` query parameter (upstream filters/request_deadline.go).
 * Values are returned in milliseconds; errors carry Go's message text.
 */

const UNIT_NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n,
  'μs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Go's Duration is an int64 of nanoseconds. */
const MAX_NANOS = (1n << 63n) - 1n;

export class DurationError extends Error {}

/**
 * Parses `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` or `0` with Go's algorithm and error
 * texts (`time: invalid duration "…"`, `time: missing unit …`, `time: unknown
 * unit …`), including its int64-nanosecond overflow, and returns milliseconds.
 */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  const invalid = () => new DurationError(`time: invalid duration ${quoted}`);
  let rest = text;
  let negative = false;
  if (rest[0] === '-' || rest[0] === '+') {
    negative = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0n;
  while (rest) {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    const [consumed, whole, fraction] = number;
    if (!whole && !fraction) throw invalid();
    rest = rest.slice(consumed.length);
    const unitText = /^[^\d.]*/.exec(rest)![0];
    if (!unitText) throw new DurationError(`time: missing unit in duration ${quoted}`);
    const unit = UNIT_NANOS[unitText];
    if (unit === undefined) throw new DurationError(`time: unknown unit ${JSON.stringify(unitText)} in duration ${quoted}`);
    rest = rest.slice(unitText.length);
    total += BigInt(whole || '0') * unit;
    if (fraction) total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    if (total > MAX_NANOS + (negative ? 1n : 0n)) throw invalid();
  }
  const ms = Number(total) / 1e6;
  return negative ? -ms : ms;
}
