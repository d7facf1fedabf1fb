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
import { JsonPathError, type JsonPath, type Node, type Param } from './jsonpath-parser.ts';
import { goTypeName } from './go-print.ts';

export { JsonPathError, parseJsonPath, type JsonPath } from './jsonpath-parser.ts';

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

/** Upstream evalRecursive: every non-empty list or map under the input, before its children. */
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
