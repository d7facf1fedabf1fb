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

/** Go's Duration.String for a whole number of nanoseconds. */
function formatNanos(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  const n = nanos < 0n ? -nanos : nanos;
  const fraction = (value: bigint, unit: bigint, digits: number): string => {
    const whole = value / unit;
    const rest = (value % unit).toString().padStart(digits, '0').replace(/0+$/, '');
    return rest ? `${whole}.${rest}` : `${whole}`;
  };
  if (n < 1_000n) return `${sign}${n}ns`;
  if (n < 1_000_000n) return `${sign}${fraction(n, 1_000n, 3)}µs`;
  if (n < 1_000_000_000n) return `${sign}${fraction(n, 1_000_000n, 6)}ms`;
  const hours = n / 3_600_000_000_000n;
  const minutes = (n / 60_000_000_000n) % 60n;
  const seconds = fraction(n % 60_000_000_000n, 1_000_000_000n, 9);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** Go's time.Duration.String (`1m30s`, `500ms`, `0s`) of a duration given in milliseconds. */
export function formatGoDuration(ms: number): string {
  return formatNanos(BigInt(Math.round(ms * 1e6)));
}
