/**
 * Name, key and value format checks (FACTS 7; translated from upstream
 * apimachinery util/validation/validation.go, api/validation/generic.go and
 * api/validation/path/name.go), below every layer that checks a name: the
 * registry's and the kinds' validation, selectors, and the expression
 * language (an authorizer's serviceAccount). Each check returns the list of
 * upstream messages; an empty list means valid.
 */

const QNAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QNAME_ERR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QNAME_MAX = 63;
const QNAME_RE = new RegExp(`^${QNAME_FMT}$`);

const LABEL_VALUE_FMT = `(${QNAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_MAP_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const CONFIG_MAP_KEY_RE = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

/** UTF-8 byte length (Go `len(string)`), what upstream's length limits count. */
export function byteLength(s: string): number {
  // A lone surrogate counts 3, as Go counts the U+FFFD its JSON decoder puts there.
  return Buffer.byteLength(s, 'utf8');
}

/** Upstream `MaxLenError`. */
export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** Upstream `RegexError`: `msg (e.g. 'a' or 'b', regex used for validation is 'fmt')`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** Upstream `EmptyError`. */
export function emptyError(): string {
  return 'must be non-empty';
}

/** Upstream `InclusiveRangeError`. */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** DNS-1123 subdomain: ≤253, lower-case labels joined by dots (FACTS 7). */
export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(v)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** DNS-1123 label: ≤63; a valid subdomain with dots gets `must not contain dots` (FACTS 7). */
export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL_RE.test(v)) {
    if (DNS1123_SUBDOMAIN_RE.test(v)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

const WILDCARD_DNS1123_SUBDOMAIN_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`;
const WILDCARD_DNS1123_SUBDOMAIN_ERR =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const WILDCARD_DNS1123_SUBDOMAIN_RE = new RegExp(`^${WILDCARD_DNS1123_SUBDOMAIN_FMT}$`);

/** Upstream `IsWildcardDNS1123Subdomain`: `*.` and a DNS-1123 subdomain (Ingress hosts). */
export function isWildcardDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 253) errs.push(maxLenError(253));
  if (!WILDCARD_DNS1123_SUBDOMAIN_RE.test(v)) errs.push(regexError(WILDCARD_DNS1123_SUBDOMAIN_ERR, WILDCARD_DNS1123_SUBDOMAIN_FMT, '*.example.com'));
  return errs;
}

/** DNS-1035 label (service names, FACTS 7). */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL_RE.test(v)) errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/** Path-segment names: not `.`/`..`, no `/` or `%` (FACTS 7, AM api/validation/path). */
export function isValidPathSegmentName(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  return isValidPathSegmentPrefix(v);
}

/** Path-segment prefix (generateName): only the `/` and `%` checks. */
export function isValidPathSegmentPrefix(v: string): string[] {
  const errs: string[] = [];
  if (v.includes('/')) errs.push("may not contain '/'");
  if (v.includes('%')) errs.push("may not contain '%'");
  return errs;
}

/** Qualified name: `[prefix/]name`, prefix a DNS-1123 subdomain, name ≤63 (FACTS 7, label keys). */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  // indexOf, not split: every label key of every write comes through here.
  const slash = v.indexOf('/');
  let name: string;
  if (slash < 0) {
    name = v;
  } else if (v.indexOf('/', slash + 1) < 0) {
    const prefix = v.slice(0, slash);
    name = v.slice(slash + 1);
    if (prefix.length === 0) errs.push('prefix part ' + emptyError());
    else for (const m of isDNS1123Subdomain(prefix)) errs.push('prefix part ' + m);
  } else {
    errs.push(
      'a qualified name ' +
        regexError(QNAME_ERR, QNAME_FMT, 'MyName', 'my.name', '123-abc') +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    return errs;
  }
  if (name.length === 0) errs.push('name part ' + emptyError());
  else if (byteLength(name) > QNAME_MAX) errs.push('name part ' + maxLenError(QNAME_MAX));
  if (!QNAME_RE.test(name)) errs.push('name part ' + regexError(QNAME_ERR, QNAME_FMT, 'MyName', 'my.name', '123-abc'));
  return errs;
}

/** Label value: empty or ≤63 qualified-name characters (FACTS 7). */
export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(v)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** IANA service (port) name rules (FACTS 6.1, upstream `IsValidPortName`). */
export function isValidPortName(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(v)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(v)) errs.push('must contain at least one letter (a-z)');
  if (v.includes('--')) errs.push('must not contain consecutive hyphens');
  if (v.length > 0 && (v.startsWith('-') || v.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** Port number 1..65535 (upstream `IsValidPortNum`). */
export function isValidPortNum(n: number): string[] {
  return n >= 1 && n <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** Config-map / secret data key (upstream `IsConfigMapKey`). */
export function isConfigMapKey(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 253) errs.push(maxLenError(253));
  if (!CONFIG_MAP_KEY_RE.test(v)) errs.push(regexError(CONFIG_MAP_KEY_ERR, CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/**
 * Upstream `maskTrailingDash`: when a generateName prefix ends in '-', its
 * last two characters are replaced by 'a' (`abc-` is checked as `aba`) so a
 * trailing dash is accepted (FACTS 7; the FACTS example `abca` differs from
 * upstream's code, which we follow — validity is the same).
 */
export function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith('-')) return name.slice(0, -2) + 'a';
  return name;
}

export type NameValidation = 'DNSSubdomain' | 'DNSLabel' | 'DNS1035Label' | 'PathSegment';

/** A name rule: `prefix` = true for a generateName prefix (FACTS 7). */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** Name rules by kind category (FACTS 7; upstream NameIsDNSSubdomain etc.). */
export const nameValidators: Record<NameValidation, NameValidator> = {
  DNSSubdomain: (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name),
  DNSLabel: (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name),
  DNS1035Label: (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name),
  PathSegment: (name, prefix) => (prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name)),
};
