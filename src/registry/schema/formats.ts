/**
 * String formats a custom resource schema may check (SPEC 9.7; upstream
 * apiextensions-apiserver pkg/apiserver/validation/formats.go and the
 * kube-openapi strfmt default registry). Formats outside the list are not
 * checked (upstream strips them); `isSupportedFormat` tells which are.
 */
import { parseCIDR, parseIPv4Sloppy, parseIPv6Sloppy } from '../validation/cidr.ts';
import { parseGoDuration } from '../../util/go-duration.ts';

const normalize = (name: string): string => name.replace(/-/g, '');

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;
const MAC = /^([0-9a-fA-F]{2}([:-])(?:[0-9a-fA-F]{2}\2){4}[0-9a-fA-F]{2}|([0-9a-fA-F]{2}[:-]){19}[0-9a-fA-F]{2}|([0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}|([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}|([0-9a-fA-F]{4}\.){3}[0-9a-fA-F]{4}|([0-9a-fA-F]{4}\.){9}[0-9a-fA-F]{4})$/;
const CREDIT_CARD = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_COLOR = /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(:(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const SCALA_DURATION = /^[1-9]\d*\s?(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$/i;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[m - 1];
}

function isbn10(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (10 - i) * (d[i] === 'X' ? 10 : Number(d[i]));
  return sum % 11 === 0;
}

function isbn13(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return sum % 10 === 0;
}

function uri(s: string): boolean {
  // Go net/url.ParseRequestURI: an absolute URI or an absolute path, no fragment handling.
  if (s.startsWith('/')) return !/\s/.test(s);
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(s);
  return !!m && !/[\s]/.test(s);
}

const FORMATS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri,
  email: (s) => EMAIL.test(s.trim().replace(/^.*<(.*)>$/, '$1')),
  hostname: (s) => s.length <= 255 && HOSTNAME.test(s),
  ipv4: (s) => s.includes('.') && !s.includes(':') && parseIPv4Sloppy(s) !== null,
  ipv6: (s) => s.includes(':') && parseIPv6Sloppy(s) !== null,
  cidr: (s) => parseCIDR(s) !== null,
  mac: (s) => MAC.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: (s) => CREDIT_CARD.test(s.replace(/[^0-9]/g, '')),
  ssn: (s) => SSN.test(s),
  hexcolor: (s) => HEX_COLOR.test(s),
  rgbcolor: (s) => RGB_COLOR.test(s),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s),
  password: () => true,
  date: (s) => {
    const m = DATE.exec(s);
    return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  },
  duration: (s) => {
    if (SCALA_DURATION.test(s)) return true;
    try {
      parseGoDuration(s);
      return true;
    } catch {
      return false;
    }
  },
  datetime: (s) => {
    const m = DATE_TIME.exec(s);
    return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3])) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[7] ?? 0) < 60;
  },
};

/** Whether the format is one upstream checks (after its dash-removing normalization). */
export function isSupportedFormat(format: string): boolean {
  return Object.hasOwn(FORMATS, normalize(format));
}

/** Whether a string is valid for a supported format; unsupported formats accept anything. */
export function matchesFormat(format: string, value: string): boolean {
  const check = FORMATS[normalize(format)];
  return check ? check(value) : true;
}
