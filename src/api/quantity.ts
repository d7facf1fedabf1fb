/**
 * Kubernetes resource quantities (`resource.Quantity`; translated from upstream
 * apimachinery pkg/api/resource quantity.go, suffix.go, amount.go, math.go at
 * v0.31): the parser's grammar and error texts, the canonical form a quantity is
 * serialized in, rounding and comparison. Values are exact decimals kept as
 * digit strings, so a hostile quantity of megabytes of digits costs linear time.
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  negative: boolean;
  /** value = ±digits × 10^exponent; digits has no leading zeros ('0' for zero). */
  digits: string;
  /** upstream's scale while the quantity fits its int64 fast path */
  exponent: number;
  format: QuantityFormat;
  /** The text upstream keeps verbatim when it was written in canonical form (Quantity.s). */
  cached?: string;
  /** Parsed on upstream's int64 fast path (an int64Amount, not an inf.Dec): what its AsInt64 can convert. */
  fast?: boolean;
}

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
/** Upstream ErrFormatWrong, ErrNumeric and ErrSuffix. */
export const ERR_FORMAT = `quantities must match the regular expression '${SPLIT_RE}'`;
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

export class QuantityError extends Error {}

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map(Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e, s]));
const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);
const NANO = -9;
const ZERO: Quantity = { negative: false, digits: '0', exponent: 0, format: 'DecimalSI' };
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const stripLeadingZeros = (d: string) => d.replace(/^0+/, '') || '0';

/** Upstream parseQuantityString: sign, numerator (leading zeros dropped), denominator, suffix. */
function scan(str: string): { positive: boolean; value: string; num: string; denom: string; suffix: string } {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === '-' || str[0] === '+') {
    positive = str[0] === '+';
    pos++;
  }
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (isDigit(str[i])) i++;
  const num = str.slice(pos, i) || '0';
  if (i >= end) return { positive, value: str, num, denom: '', suffix: '' };
  pos = i;
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(str[pos])) pos++;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < end) throw new QuantityError(ERR_FORMAT);
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** Upstream suffixer.interpret: base, exponent and format of a suffix. */
function interpret(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) return { base: 10, exponent: DECIMAL_SUFFIXES[suffix], format: 'DecimalSI' };
  if (Object.hasOwn(BINARY_SUFFIXES, suffix)) return { base: 2, exponent: BINARY_SUFFIXES[suffix], format: 'BinarySI' };
  const text = suffix.slice(1);
  if ((suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]{1,30}$/.test(text)) {
    const parsed = BigInt(text);
    // Go parses an int64 and keeps its low 32 bits (int32(parsed)).
    if (parsed >= MIN_INT64 && parsed <= MAX_INT64) return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  throw new QuantityError(ERR_SUFFIX);
}

/** digits + 1 on a decimal string. */
function increment(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === '9') i--;
  if (i < 0) return '1' + '0'.repeat(digits.length);
  return digits.slice(0, i) + String(Number(digits[i]) + 1) + '0'.repeat(digits.length - i - 1);
}

/** Rounds away from zero to a multiple of 10^exponent (inf.RoundUp, negativeScaleInt64). */
function roundAway(q: Quantity, exponent: number): Quantity {
  if (q.exponent >= exponent) return q;
  const gap = exponent - q.exponent;
  let digits: string;
  if (q.digits === '0') digits = '0';
  else if (gap >= q.digits.length) digits = '1';
  else {
    digits = q.digits.slice(0, q.digits.length - gap);
    if (/[1-9]/.test(q.digits.slice(q.digits.length - gap))) digits = increment(digits);
    digits = stripLeadingZeros(digits);
  }
  return { negative: q.negative && digits !== '0', digits, exponent, format: q.format };
}

/** Orders |a| and |b|: first by the position of their leading digit, then digit by digit. */
function compareMagnitude(a: Quantity, b: Quantity): number {
  if (a.digits === '0' || b.digits === '0') return a.digits === b.digits ? 0 : a.digits === '0' ? -1 : 1;
  const ta = a.digits.length + a.exponent;
  const tb = b.digits.length + b.exponent;
  if (ta !== tb) return ta < tb ? -1 : 1;
  const width = Math.max(a.digits.length, b.digits.length);
  const x = a.digits.padEnd(width, '0');
  const y = b.digits.padEnd(width, '0');
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Upstream Quantity.Cmp: -1, 0 or 1. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const sa = a.digits === '0' ? 0 : a.negative ? -1 : 1;
  const sb = b.digits === '0' ? 0 : b.negative ? -1 : 1;
  if (sa !== sb) return sa < sb ? -1 : 1;
  return sa < 0 ? -compareMagnitude(a, b) : compareMagnitude(a, b);
}

function fromBigInt(value: bigint, exponent: number, format: QuantityFormat): Quantity {
  const negative = value < 0n;
  return { negative, digits: String(negative ? -value : value), exponent, format };
}

/** Upstream ParseQuantity: the exact value, its format and, when written canonically, its text. */
export function parseQuantity(text: string): Quantity {
  if (text.length === 0) throw new QuantityError(ERR_FORMAT);
  if (text === '0') return { ...ZERO, cached: '0', fast: true };
  const { positive, value, num, denom, suffix } = scan(text);
  const { base, exponent, format } = interpret(suffix);
  const shifted = num + denom;
  // Upstream's int64 fast path keeps a canonically written text; past it the value goes through inf.Dec.
  if (base === 10) {
    const scale = exponent - denom.length;
    if (shifted.length <= 18 && scale >= NANO) {
      const digits = stripLeadingZeros(shifted);
      const cached = scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0' ? text : undefined;
      return { negative: !positive && digits !== '0', digits, exponent: scale, format, cached, fast: true };
    }
  } else if (denom.length === 0 && 15 - num.length - Math.trunc((exponent * 3) / 10) - 1 >= 0) {
    const magnitude = BigInt(num) << BigInt(exponent);
    if (magnitude <= MAX_INT64) {
      const cached = (BigInt(num) & 7n) !== 0n ? text : undefined;
      return { ...fromBigInt(positive ? magnitude : -magnitude, 0, format), cached, fast: true };
    }
  }
  if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(value)) throw new QuantityError(ERR_NUMERIC);
  const [whole, fraction = ''] = value.replace(/^[+-]/, '').split('.');
  let q: Quantity;
  if (base === 10) {
    const digits = stripLeadingZeros(whole + fraction);
    q = { negative: !positive && digits !== '0', digits, exponent: exponent - fraction.length, format };
  } else if (stripLeadingZeros(whole).length > 19) {
    q = fromBigInt(MAX_INT64, 0, format);
  } else {
    // Digits past the 60th decimal can only decide the rounding: keep a sticky one far below them.
    const kept = fraction.length > 60 ? fraction.slice(0, 60) + (/[1-9]/.test(fraction.slice(60)) ? '0'.repeat(20) + '1' : '') : fraction;
    q = fromBigInt(BigInt(whole + kept) << BigInt(exponent), -kept.length, format);
    q.negative = !positive && q.digits !== '0';
  }
  q = roundAway(q, NANO);
  if (format === 'BinarySI' && compareMagnitude(q, fromBigInt(MAX_INT64, 0, format)) > 0) {
    q = { ...fromBigInt(MAX_INT64, 0, format), negative: q.negative };
  }
  if (format === 'BinarySI' && q.digits !== '0' && compareMagnitude(q, fromBigInt(1n, 0, format)) < 0) q.format = 'DecimalSI';
  return q;
}

/** Upstream Quantity.RoundUp(scale): a text is kept only when no rounding was needed. */
export function roundUpQuantity(q: Quantity, exponent: number): Quantity {
  return roundAway(q, exponent);
}

/** Upstream `MilliValue() % 1000 != 0` (ValidateResourceQuantityValue's integer check): whole after rounding up to milli. */
export function isIntegerQuantity(q: Quantity): boolean {
  const milli = roundAway(q, -3);
  if (milli.exponent >= 0 || milli.digits === '0') return true;
  const fraction = -milli.exponent;
  return /^0+$/.test(milli.digits.padStart(fraction + 1, '0').slice(-fraction));
}

/** Upstream Quantity.String / CanonicalizeBytes: the largest suffix that loses no precision. */
export function formatQuantity(q: Quantity): string {
  if (q.cached !== undefined) return q.cached;
  if (q.digits === '0') return '0';
  const sign = q.negative ? '-' : '';
  const integral = q.exponent >= 0 || /^0*$/.test(q.digits.slice(q.exponent));
  if (q.format === 'BinarySI' && integral && compareMagnitude(q, fromBigInt(1024n, 0, 'BinarySI')) >= 0) {
    let value = BigInt(q.exponent >= 0 ? q.digits + '0'.repeat(q.exponent) : q.digits.slice(0, q.exponent));
    let times = 0;
    while (value % 1024n === 0n) {
      value /= 1024n;
      times++;
    }
    return `${sign}${value}${BINARY_BY_EXPONENT.get(times * 10) ?? ''}`;
  }
  let digits = q.digits.replace(/0+$/, '');
  let exponent = q.exponent + (q.digits.length - digits.length);
  while (((exponent % 3) + 3) % 3 !== 0) {
    digits += '0';
    exponent--;
  }
  if (q.format === 'DecimalExponent') return exponent === 0 ? `${sign}${digits}` : `${sign}${digits}e${exponent}`;
  return `${sign}${digits}${DECIMAL_BY_EXPONENT.get(exponent) ?? ''}`;
}

/**
 * A JSON value as upstream's Quantity.UnmarshalJSON reads it: null is the zero
 * quantity, a string is parsed without its surrounding white space, and any
 * other value is parsed from its JSON text (a number's digits).
 */
export function quantityFromJson(value: unknown): Quantity {
  if (value === null || value === undefined) return { ...ZERO };
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return parseQuantity(text.trim());
}

/**
 * resource.Quantity String() of a stored value, as the printers show it: the
 * canonical form; an absent entry is the zero Quantity, "0"; a value that does
 * not parse is shown as it is.
 */
export function quantityText(value: unknown): string {
  if (value === undefined || value === null) return '0';
  try {
    return formatQuantity(quantityFromJson(value));
  } catch {
    return String(value);
  }
}

/** The zero quantity, for comparisons. */
export function zeroQuantity(): Quantity {
  return { ...ZERO };
}

/**
 * The sum of two non-negative quantities (upstream Quantity.Add, used for QoS
 * totals), added digit by digit.
 */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  if (a.digits === '0') return b;
  if (b.digits === '0') return a;
  const exponent = Math.min(a.exponent, b.exponent);
  const x = a.digits + '0'.repeat(a.exponent - exponent);
  const y = b.digits + '0'.repeat(b.exponent - exponent);
  const width = Math.max(x.length, y.length);
  const out: number[] = [];
  let carry = 0;
  for (let i = 1; i <= width; i++) {
    const d = Number(x[x.length - i] ?? 0) + Number(y[y.length - i] ?? 0) + carry;
    out.push(d % 10);
    carry = d >= 10 ? 1 : 0;
  }
  if (carry) out.push(1);
  return { negative: false, digits: stripLeadingZeros(out.reverse().join('')), exponent, format: a.format };
}
