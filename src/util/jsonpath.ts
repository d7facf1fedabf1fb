/**
 * kubectl's JSONPath templates (SPEC 4.7; upstream k8s.io/client-go/util/jsonpath
 * parser.go and jsonpath.go), as custom resources' printer columns evaluate
 * them: fields (`.a.b`, `['a']`), `*`, indexes and slices, unions, filters
 * (`[?(@.type=="Ready")]`, comparisons and existence), recursive descent
 * (`..`), quoted text and number literals. Missing keys give no result, as
 * tableconvertor asks (AllowMissingKeys). The `range`/`end` identifiers are
 * not supported: a template using them fails to evaluate.
 *
 * Every walk over the data is iterative: a client's value may nest 10,000 deep.
 */

export class JsonPathError extends Error {}

/** `derived`: the end of `[n]`, n+1, which for n = -1 means the end of the list. */
type Param = { known: boolean; value: number; derived?: boolean };
type Node =
  | { t: 'list'; nodes: Node[] }
  | { t: 'text'; text: string }
  | { t: 'field'; name: string }
  | { t: 'wildcard' }
  | { t: 'recursive' }
  | { t: 'array'; params: [Param, Param, Param] }
  | { t: 'union'; lists: Node[][] }
  | { t: 'filter'; left: Node[]; right: Node[]; op: string }
  | { t: 'int'; value: number }
  | { t: 'float'; value: number }
  | { t: 'bool'; value: boolean }
  | { t: 'identifier'; name: string };

/** A parsed template: literal text and `{...}` actions, in order. */
export interface JsonPath {
  readonly nodes: readonly Node[];
}

const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;

const isSpace = (c: string) => c === ' ' || c === '\t';
const isEndOfLine = (c: string) => c === '\r' || c === '\n';
const isDigit = (c: string) => /^\p{Nd}$/u.test(c);
const isAlphaNumeric = (c: string) => c === '_' || /^[\p{L}\p{Nd}]$/u.test(c);
/** Upstream isTerminator: what ends a field name or identifier ('' is the end of input). */
const isTerminator = (c: string) => c === '' || isSpace(c) || isEndOfLine(c) || '.,[]$@{}'.includes(c);

/** Upstream Parser: a hand-written scanner over the template, one action at a time. */
class Parser {
  private pos = 0;
  private start = 0;
  readonly root: Node[] = [];

  constructor(private readonly input: string) {}

  private next(): string {
    if (this.pos >= this.input.length) return '';
    const c = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.pos += c.length;
    return c;
  }

  private backup(c: string): void {
    this.pos -= c.length;
  }

  private peek(): string {
    const c = this.next();
    this.backup(c);
    return c;
  }

  private consume(): string {
    const text = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return text;
  }

  parse(): Node[] {
    // Text and actions alternate at the top level; each action is scanned to its closing brace.
    for (;;) {
      while (!this.input.startsWith('{', this.pos)) {
        if (this.next() === '') {
          if (this.pos > this.start) this.root.push({ t: 'text', text: this.consume() });
          return this.root;
        }
      }
      if (this.pos > this.start) this.root.push({ t: 'text', text: this.consume() });
      this.pos += 1;
      this.consume();
      const action: Node[] = [];
      this.root.push({ t: 'list', nodes: action });
      this.parseAction(action);
    }
  }

  /** Upstream parseInsideAction, as a loop: returns once the action's `}` is consumed. */
  private parseAction(cur: Node[]): void {
    for (;;) {
      const rest = this.input.slice(this.pos);
      if (rest.startsWith('}')) {
        this.pos += 1;
        this.consume();
        return;
      }
      if (rest.startsWith('[?(')) {
        this.parseFilter(cur);
        continue;
      }
      if (rest.startsWith('..')) {
        if (cur[cur.length - 1]?.t === 'recursive') throw new JsonPathError('invalid multiple recursive descent');
        this.pos += 2;
        this.consume();
        cur.push({ t: 'recursive' });
        if (isAlphaNumeric(this.peek())) this.parseField(cur);
        continue;
      }
      const c = this.next();
      if (c === '' || isEndOfLine(c)) throw new JsonPathError('unclosed action');
      if (c === ' ' || c === '@' || c === '$') this.consume();
      else if (c === '[') this.parseArray(cur);
      else if (c === '"' || c === "'") this.parseQuote(cur, c);
      else if (c === '.') this.parseField(cur);
      else if (c === '+' || c === '-' || isDigit(c)) {
        this.backup(c);
        this.parseNumber(cur);
      } else if (isAlphaNumeric(c)) {
        this.backup(c);
        this.parseIdentifier(cur);
      } else throw new JsonPathError(`unrecognized character in action: U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${c}'`);
    }
  }

  private parseIdentifier(cur: Node[]): void {
    for (let c = this.next(); ; c = this.next()) {
      if (isTerminator(c)) {
        this.backup(c);
        break;
      }
    }
    const value = this.consume();
    cur.push(value === 'true' || value === 'false' ? { t: 'bool', value: value === 'true' } : { t: 'identifier', name: value });
  }

  private parseNumber(cur: Node[]): void {
    const sign = this.peek();
    if (sign === '+' || sign === '-') this.next();
    for (let c = this.next(); ; c = this.next()) {
      if (c !== '.' && !isDigit(c)) {
        this.backup(c);
        break;
      }
    }
    const text = this.consume();
    if (/^[+-]?\d+$/.test(text)) cur.push({ t: 'int', value: Number(text) });
    else if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) cur.push({ t: 'float', value: Number(text) });
    else throw new JsonPathError(`cannot parse number ${text}`);
  }

  private parseArray(cur: Node[]): void {
    for (;;) {
      const c = this.next();
      if (c === '' || c === '\n') throw new JsonPathError('unterminated array');
      if (c === ']') break;
    }
    let text = this.consume().slice(1, -1);
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      cur.push({ t: 'union', lists: parts.map((part) => parseActionBody(`[${part.trim()}]`)) });
      return;
    }
    const key = DICT_KEY.exec(text);
    if (key) {
      cur.push(...parseActionBody(`.${key[1]}`));
      return;
    }
    const slice = SLICE.exec(text);
    if (!slice) throw new JsonPathError(`invalid array index ${text}`);
    const params: [Param, Param, Param] = [
      { known: false, value: 0 },
      { known: false, value: 0 },
      { known: false, value: 0 },
    ];
    for (let i = 0; i < 3; i++) {
      let part = slice[i + 1] ?? '';
      if (part !== '') {
        if (i > 0) part = part.slice(1);
        if (i > 0 && part === '') continue;
        if (!/^-?\d+$/.test(part)) throw new JsonPathError(`array index ${part} is not a number`);
        params[i] = { known: true, value: Number(part) };
      } else if (i === 1) {
        // `[n]` is the slice `[n:n+1]`.
        params[1] = { known: true, value: params[0].value + 1, derived: true };
      }
    }
    cur.push({ t: 'array', params });
  }

  private parseFilter(cur: Node[]): void {
    this.pos += 3;
    this.consume();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const c = this.next();
      if (c === '' || c === '\n') throw new JsonPathError('unterminated filter');
      if (c === '"' || c === "'") {
        if (!begin) {
          begin = true;
          pair = c;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && c === pair) end = true;
      } else if (c === ')' && begin === end) break;
    }
    if (this.next() !== ']') throw new JsonPathError('unclosed array expect ]');
    const text = this.consume().slice(0, -2);
    const comparison = FILTER.exec(text);
    if (!comparison) cur.push({ t: 'filter', left: parseActionBody(text), right: [], op: 'exists' });
    else cur.push({ t: 'filter', left: parseActionBody(comparison[1]), right: parseActionBody(comparison[3]), op: comparison[2] });
  }

  private parseQuote(cur: Node[], quote: string): void {
    for (;;) {
      const c = this.next();
      if (c === '' || c === '\n') throw new JsonPathError('unterminated quoted string');
      if (c === quote && this.input[this.pos - 2] !== '\\') break;
    }
    const text = this.consume();
    cur.push({ t: 'text', text: unquote(text) });
  }

  private parseField(cur: Node[]): void {
    this.consume();
    for (;;) {
      const c = this.next();
      if (c === '\\') this.next();
      else if (isTerminator(c)) {
        this.backup(c);
        break;
      }
    }
    const value = this.consume();
    cur.push(value === '*' ? { t: 'wildcard' } : { t: 'field', name: value.replaceAll('\\', '') });
  }
}

/** Upstream UnquoteExtend: a Go string literal in double or single quotes. */
function unquote(text: string): string {
  const body = text.slice(1, -1);
  if (!body.includes('\\')) return body;
  const escapes: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/gs, (match, esc: string) => {
    if (esc.length === 1) {
      if (!(esc in escapes)) throw new JsonPathError(`unquote string ${text} error invalid syntax`);
      return escapes[esc];
    }
    const code = esc[0] === 'x' || esc[0] === 'u' || esc[0] === 'U' ? parseInt(esc.slice(1), 16) : parseInt(esc, 8);
    if (code > 0x10ffff) throw new JsonPathError(`unquote string ${text} error invalid syntax`);
    return String.fromCodePoint(code);
  });
}

/** Upstream parseAction: the nodes of one action, `text` being what is inside its braces. */
function parseActionBody(text: string): Node[] {
  const root = new Parser(`{${text}}`).parse();
  const first = root[0];
  return first?.t === 'list' ? first.nodes : [];
}

/** Parses a template such as `{.status.replicas}`; throws JsonPathError when it is malformed. */
export function parseJsonPath(template: string): JsonPath {
  return { nodes: new Parser(template).parse() };
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Upstream iterHelper: a list's items, a map's values by sorted key (fmtsort); undefined for anything else. */
function childrenOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (isMap(value)) return Object.keys(value).sort().map((key) => value[key]);
  return undefined;
}

function evalArray(input: unknown[], params: [Param, Param, Param]): unknown[] {
  const out: unknown[] = [];
  for (const value of input) {
    if (value === null || value === undefined) continue;
    if (!Array.isArray(value)) throw new JsonPathError(`${goTypeName(value)} is not array or slice`);
    const length = value.length;
    let from = params[0].known ? params[0].value : 0;
    if (from < 0) from += length;
    let to = params[1].known ? params[1].value : length;
    if (to < 0 || (to === 0 && params[1].derived)) to += length;
    if (to !== from) {
      if (from >= length || from < 0) throw new JsonPathError(`array index out of bounds: index ${from}, length ${length}`);
      if (to > length || to < 0) throw new JsonPathError(`array index out of bounds: index ${to - 1}, length ${length}`);
      if (from > to) throw new JsonPathError(`starting index ${from} is greater than ending index ${to}`);
    }
    let step = 1;
    if (params[2].known) {
      if (params[2].value <= 0) throw new JsonPathError('step must be > 0');
      step = params[2].value;
    }
    for (let i = from; i < to; i += step) out.push(value[i]);
  }
  return out;
}

/** Upstream evalRecursive: every container (and non-empty string) under the input, before its children. */
function evalRecursive(input: unknown[]): unknown[] {
  const out: unknown[] = [];
  const stack: unknown[] = [...input].reverse();
  while (stack.length) {
    const value = stack.pop();
    if (value === null || value === undefined) continue;
    const children = childrenOf(value);
    if (!children?.length) continue;
    out.push(value);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

/** A value's comparison kind, as Go's text/template basicKind tells them; undefined where it cannot compare. */
type Comparable = { kind: 'bool' | 'int' | 'float' | 'string'; value: boolean | number | string };

/**
 * Decoded JSON holds int64 and float64 numbers; a number literal of the
 * template is an int that upstream's evalOperator turns into a float64, so it
 * compares with fractional values only (text/template never compares an int
 * with a float).
 */
function comparable(value: unknown, literal: boolean): Comparable | undefined {
  if (typeof value === 'boolean') return { kind: 'bool', value };
  if (typeof value === 'string') return { kind: 'string', value };
  if (typeof value === 'number') return { kind: literal || !Number.isInteger(value) ? 'float' : 'int', value };
  return undefined;
}

/** Upstream evalOperator: a comparison of incompatible or uncomparable values is false, not an error. */
function compare(op: string, left: Comparable | undefined, right: Comparable | undefined): boolean {
  if (!['==', '!=', '<', '>', '<=', '>='].includes(op)) throw new JsonPathError(`unrecognized filter operator ${op}`);
  if (!left || !right || left.kind !== right.kind) return false;
  if (op === '==') return left.value === right.value;
  if (op === '!=') return left.value !== right.value;
  if (left.kind === 'bool') return false;
  if (op === '<') return left.value < right.value;
  if (op === '>') return left.value > right.value;
  if (op === '<=') return left.value <= right.value;
  return left.value >= right.value;
}

/** Whether a side of a comparison ends in a number literal (the values it gives are the literal's). */
const endsInLiteral = (nodes: Node[]) => nodes[nodes.length - 1]?.t === 'int' || nodes[nodes.length - 1]?.t === 'float';

/** Upstream evalFilter (missing keys allowed): over a list's items, a map's values, or the value itself. */
function evalFilter(input: unknown[], node: Extract<Node, { t: 'filter' }>): unknown[] {
  const out: unknown[] = [];
  for (const value of input) {
    for (const element of childrenOf(value) ?? [value]) {
      let lefts: unknown[] = [];
      try {
        lefts = evalList([element], node.left);
      } catch (err) {
        if (!(err instanceof JsonPathError)) throw err;
      }
      const rights = evalList([element], node.right);
      if (lefts.length === 0) continue;
      if (lefts.length > 1) throw new JsonPathError('can only compare one element at a time');
      if (node.op === 'exists') {
        out.push(element);
        continue;
      }
      if (rights.length === 0) continue;
      if (rights.length > 1) throw new JsonPathError('can only compare one element at a time');
      if (compare(node.op, comparable(lefts[0], endsInLiteral(node.left)), comparable(rights[0], endsInLiteral(node.right)))) out.push(element);
    }
  }
  return out;
}

function walk(input: unknown[], node: Node): unknown[] {
  switch (node.t) {
    case 'list':
      return evalList(input, node.nodes);
    case 'text':
      return [node.text];
    case 'field': {
      const out: unknown[] = [];
      for (const value of input) if (isMap(value) && Object.hasOwn(value, node.name)) out.push(value[node.name]);
      return out;
    }
    case 'wildcard':
      return input.flatMap((value) => childrenOf(value) ?? []);
    case 'recursive':
      return evalRecursive(input);
    case 'array':
      return evalArray(input, node.params);
    case 'union':
      return node.lists.flatMap((list) => evalList(input, list));
    case 'filter':
      return evalFilter(input, node);
    case 'int':
    case 'float':
      return input.map(() => node.value);
    case 'bool':
      throw new JsonPathError('unexpected Node bool');
    case 'identifier':
      throw new JsonPathError(node.name === 'range' || node.name === 'end' ? `${node.name} is not supported here` : `unrecognized identifier ${node.name}`);
  }
}

function evalList(input: unknown[], nodes: readonly Node[]): unknown[] {
  let current = input;
  for (const node of nodes) current = walk(current, node);
  return current;
}

/**
 * Upstream FindResults: the values each top-level node of the template finds
 * in `data` (literal text finds itself). Throws JsonPathError where upstream
 * returns an error (an index out of range, a filter over a map, ...).
 */
export function findResults(path: JsonPath, data: unknown): unknown[][] {
  return path.nodes.map((node) => walk([data], node));
}

/** Go's %T of a decoded JSON value (unstructured content: int64 or float64 numbers). */
export function goTypeName(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (isMap(value)) return 'map[string]interface {}';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return '<nil>';
}

/** Go's %v of a float64 (strconv 'g', shortest): the exponent form when the exponent is below -4 or 6 and above. */
function goFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  const [mantissa, exponentText] = x.toExponential().split('e');
  const exponent = Number(exponentText);
  if (x !== 0 && (exponent < -4 || exponent >= 6)) return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  return Object.is(x, -0) ? '-0' : String(x);
}

/**
 * Go's fmt.Fprint of a decoded JSON value, as jsonpath's PrintResults writes
 * a string column's cell: numbers as int64 or float64, maps as
 * `map[k:v ...]` with sorted keys, lists as `[a b]`, null as `<nil>`.
 */
export function goPrint(value: unknown): string {
  const out: string[] = [];
  // Items are values to print or literal text (wrapped), handled in order.
  const stack: Array<{ text: string } | { value: unknown }> = [{ value }];
  while (stack.length) {
    const item = stack.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const v = item.value;
    if (v === null || v === undefined) out.push('<nil>');
    else if (typeof v === 'string') out.push(v);
    else if (typeof v === 'boolean') out.push(String(v));
    else if (typeof v === 'number') out.push(Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : goFloat(v));
    else {
      const entries: Array<{ text: string } | { value: unknown }> = [];
      if (Array.isArray(v)) {
        v.forEach((element, i) => entries.push(...(i ? [{ text: ' ' }] : []), { value: element }));
        stack.push({ text: ']' }, ...entries.reverse(), { text: '[' });
      } else {
        const record = v as Record<string, unknown>;
        Object.keys(record)
          .sort()
          .forEach((key, i) => entries.push(...(i ? [{ text: ' ' }] : []), { text: `${key}:` }, { value: record[key] }));
        stack.push({ text: ']' }, ...entries.reverse(), { text: 'map[' });
      }
    }
  }
  return out.join('');
}
