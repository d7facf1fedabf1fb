/**
 * Label selectors: the query-string grammar, the LabelSelector object, and
 * matching (SPEC 4.3 `labelSelector`; FACTS 5 format). Translated from upstream
 * apimachinery pkg/labels/selector.go and pkg/apis/meta/v1/helpers.go at 1.31.
 */
import {
  type FieldError,
  aggregateText,
  formatValue,
  goRepr,
  goStringSlice,
  invalid,
  notSupported,
} from '../validation/field-errors.ts';
import { isQualifiedName, isValidLabelValue } from '../../api/names.ts';

/** Upstream selection operators: `=`, `==`, `!=`, `in`, `notin`, `exists`, `!` (does not exist), `gt`, `lt`. */
export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

/** A selector string or LabelSelector object that cannot be turned into requirements; message as upstream. */
export class SelectorParseError extends Error {
  override name = 'SelectorParseError';
}

const BINARY_OPS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const VALID_OPS = [...BINARY_OPS, 'exists', '!'];

/** Upstream labels.NewRequirement checks; returns the aggregated error text or null. */
export function requirementError(key: string, op: string, values: string[], path = ''): string | null {
  const errs: FieldError[] = [];
  const p = (name: string) => (path ? `${path}.${name}` : name);
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(invalid(p('key'), key, keyErrs.join('; ')));
  const vp = p('values');
  // Go prints the slice with %#v; LabelSelectorAsSelector passes a nil slice when empty. Printed
  // only for an error: every label selector of a request or a watcher passes through here.
  const list = () => (values.length ? goStringSlice(values) : goRepr('[]string(nil)'));
  switch (op) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(invalid(vp, list(), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(invalid(vp, list(), 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(invalid(vp, list(), 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(invalid(vp, list(), "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v) || !fitsInt64(v)) {
          errs.push(invalid(`${vp}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default:
      errs.push(notSupported(p('operator'), op, VALID_OPS));
  }
  values.forEach((v, i) => {
    const ve = isValidLabelValue(v);
    if (ve.length) errs.push(invalid(`${vp}[${i}][${key}]`, v, ve.join('; ')));
  });
  return errs.length ? aggregateText(errs) : null;
}

function fitsInt64(v: string): boolean {
  const n = BigInt(v);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

function makeRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const err = requirementError(key, operator, values);
  if (err) throw new SelectorParseError(err);
  return { key, operator, values };
}

// ---------------------------------------------------------------- lexer

type Tok = 'err' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';
const TOKENS: Record<string, Tok> = { ')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', in: 'in', '<': '<', '!=': '!=', notin: 'notin', '(': '(' };
const isWs = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) => '=!(),><'.includes(c);

function lex(s: string): Array<[Tok, string]> {
  const out: Array<[Tok, string]> = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWs(s[pos])) pos++;
    if (pos >= s.length) {
      out.push(['eos', '']);
      return out;
    }
    if (isSpecial(s[pos])) {
      let buf = '';
      let last: [Tok, string] | null = null;
      while (pos < s.length && isSpecial(s[pos])) {
        buf += s[pos];
        if (Object.hasOwn(TOKENS, buf)) last = [TOKENS[buf], buf];
        else if (last) break;
        pos++;
      }
      out.push(last ?? ['err', `error expected: keyword found '${buf}'`]);
    } else {
      let buf = '';
      while (pos < s.length && !isSpecial(s[pos]) && !isWs(s[pos])) buf += s[pos++];
      out.push([Object.hasOwn(TOKENS, buf) ? TOKENS[buf] : 'id', buf]);
    }
  }
}

// ---------------------------------------------------------------- parser

/**
 * Parses a label selector string with upstream's grammar (`k=v`, `k==v`,
 * `k!=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`, `k>1`, `k<1`), returning
 * requirements sorted by key. Throws SelectorParseError with upstream's text,
 * e.g. `unable to parse requirement: ...`, `found ',', expected: ...`.
 */
export function parseLabelSelector(s: string): LabelRequirement[] {
  const items = lex(s);
  let p = 0;
  // In the Values context `in`/`notin` are plain identifiers.
  const look = (values = true): [Tok, string] => {
    const [t, l] = items[p];
    return values && (t === 'in' || t === 'notin') ? ['id', l] : [t, l];
  };
  const take = (values = true): [Tok, string] => {
    const r = look(values);
    p++;
    return r;
  };
  const fail = (m: string): never => {
    throw new SelectorParseError(m);
  };

  const parseRequirement = (): LabelRequirement => {
    let [t, lit] = take();
    let op: LabelOperator | '' = '';
    if (t === '!') {
      op = '!';
      [t, lit] = take();
    }
    if (t !== 'id') fail(`found '${lit}', expected: identifier`);
    const keyErrs = isQualifiedName(lit);
    if (keyErrs.length) fail(`<nil>: Invalid value: ${formatValue(lit)}: ${keyErrs.join('; ')}`);
    const key = lit;
    const [nt] = look();
    if (nt === 'eos' || nt === ',') return makeRequirement(key, op === '!' ? '!' : 'exists', []);
    if (op === '!') return makeRequirement(key, '!', []);
    const [ot, olit] = take(false);
    const opMap: Partial<Record<Tok, LabelOperator>> = { in: 'in', '=': '=', '==': '==', '>': 'gt', '<': 'lt', notin: 'notin', '!=': '!=' };
    const operator = opMap[ot] ?? fail(`found '${olit}', expected: ${BINARY_OPS.join(', ')}`);
    let values: Set<string>;
    if (operator === 'in' || operator === 'notin') {
      const [pt, plit] = take();
      if (pt !== '(') fail(`found '${plit}' expected: '('`);
      const [lt, llit] = look();
      if (lt === ')') {
        p++;
        values = new Set(['']);
      } else if (lt === 'id' || lt === ',') {
        values = parseIdentifiersList();
        if (take()[0] !== ')') fail(`found '${llit}', expected: ')'`);
      } else {
        return fail(`found '${llit}', expected: ',', ')' or identifier`);
      }
    } else {
      const [vt] = look();
      if (vt === 'eos' || vt === ',') values = new Set(['']);
      else {
        const [it, ilit] = take();
        if (it !== 'id') fail(`found '${ilit}', expected: identifier`);
        values = new Set([ilit]);
      }
    }
    return makeRequirement(key, operator, [...values].sort(byteCompare));
  };

  const parseIdentifiersList = (): Set<string> => {
    const set = new Set<string>();
    for (;;) {
      const [t, lit] = take();
      if (t === 'id') {
        set.add(lit);
        const [t2, l2] = look();
        if (t2 === ',') continue;
        if (t2 === ')') return set;
        fail(`found '${l2}', expected: ',' or ')'`);
      } else if (t === ',') {
        if (set.size === 0) set.add('');
        const [t2] = look();
        if (t2 === ')') {
          set.add('');
          return set;
        }
        if (t2 === ',') {
          p++;
          set.add('');
        }
      } else {
        fail(`found '${lit}', expected: ',', or identifier`);
      }
    }
  };

  const reqs: LabelRequirement[] = [];
  for (;;) {
    const [t, lit] = look();
    if (t === 'id' || t === '!') {
      try {
        reqs.push(parseRequirement());
      } catch (e) {
        throw new SelectorParseError(`unable to parse requirement: ${(e as Error).message}`);
      }
      const [t2, l2] = take();
      if (t2 === 'eos') break;
      if (t2 === ',') {
        const [t3, l3] = look();
        if (t3 !== 'id' && t3 !== '!') fail(`found '${l3}', expected: identifier after ','`);
      } else fail(`found '${l2}', expected: ',' or 'end of string'`);
    } else if (t === 'eos') break;
    else fail(`found '${lit}', expected: !, identifier, or 'end of string'`);
  }
  return sortByKey(reqs);
}

/** Go string ordering (UTF-8 bytes = code points). */
export function byteCompare(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

function sortByKey(reqs: LabelRequirement[]): LabelRequirement[] {
  return [...reqs].sort((a, b) => byteCompare(a.key, b.key));
}

// ---------------------------------------------------------------- LabelSelector object

/**
 * Converts a LabelSelector object to requirements (upstream
 * LabelSelectorAsSelector): null/undefined → null (matches nothing); empty →
 * [] (matches everything); matchLabels → `=`; In/NotIn/Exists/DoesNotExist.
 * Throws SelectorParseError on an invalid selector.
 */
export function labelSelectorToRequirements(sel: any): LabelRequirement[] | null {
  if (sel === null || sel === undefined) return null;
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries((sel.matchLabels ?? {}) as Record<string, unknown>)) {
    reqs.push(makeRequirement(k, '=', [String(v ?? '')]));
  }
  const ops: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };
  for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    const op = ops[e?.operator];
    if (!op) throw new SelectorParseError(`${formatValue(String(e?.operator ?? ''))} is not a valid label selector operator`);
    reqs.push(makeRequirement(String(e.key ?? ''), op, (Array.isArray(e.values) ? e.values : []).map(String)));
  }
  return sortByKey(reqs);
}

/** One requirement against a label map (upstream Requirement.Matches). */
export function requirementMatches(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  const has = !!labels && Object.hasOwn(labels, r.key);
  const val = has ? labels![r.key] : '';
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(val);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(val);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1 || !/^[+-]?\d+$/.test(val) || !fitsInt64(val)) return false;
      if (!/^[+-]?\d+$/.test(r.values[0]) || !fitsInt64(r.values[0])) return false;
      const lv = BigInt(val);
      const rv = BigInt(r.values[0]);
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
    default:
      return false;
  }
}

/** All requirements match; `null` (a nil selector) matches nothing, `[]` everything. */
export function matchesLabels(reqs: LabelRequirement[] | null, labels: Record<string, string> | undefined): boolean {
  if (reqs === null) return false;
  return reqs.every((r) => requirementMatches(r, labels));
}

/** Upstream Requirement.String(): `!k`, `k`, `k=v`, `k in (a,b)` (values sorted). */
export function requirementString(r: LabelRequirement): string {
  const sym: Record<LabelOperator, string> = { '=': '=', '==': '==', '!=': '!=', in: ' in ', notin: ' notin ', gt: '>', lt: '<', exists: '', '!': '' };
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const vals = r.values.length === 1 ? r.values[0] : [...r.values].sort(byteCompare).join(',');
  const set = r.operator === 'in' || r.operator === 'notin';
  return `${r.key}${sym[r.operator]}${set ? `(${vals})` : vals}`;
}

/** Comma-joined requirement strings (upstream internalSelector.String()). */
export function requirementsString(reqs: LabelRequirement[] | null): string {
  return (reqs ?? []).map(requirementString).join(',');
}

/** Upstream FormatLabelSelector (FACTS 5): `<none>` when empty or nil, `<error>` when invalid. */
export function formatLabelSelector(sel: any): string {
  try {
    return requirementsString(labelSelectorToRequirements(sel)) || '<none>';
  } catch {
    return '<error>';
  }
}
