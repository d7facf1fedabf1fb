/**
 * The parser of kubectl's JSONPath templates (SPEC 4.7; upstream
 * k8s.io/client-go/util/jsonpath parser.go): a hand-written scanner that
 * turns `{.a.b[0]}` and friends into nodes for jsonpath.ts to evaluate.
 */

export class JsonPathError extends Error {}

/** `derived`: the end of `[n]`, n+1, which for n = -1 means the end of the list. */
export type Param = { known: boolean; value: number; derived?: boolean };
export type Node =
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
