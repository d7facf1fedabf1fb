/**
 * A new value beside the old value it corresponds to on an update (upstream
 * apiserver pkg/cel/common/equality.go `CorrelatedObject`), for ratcheting
 * (CRDValidationRatcheting, on by default since 1.30): a value that did not
 * change keeps passing the rules it already broke. Object properties and map
 * entries correlate by name, items of a list-type=map list by their keys;
 * items of other lists have no old value.
 */

/** What correlation needs of a schema node: its list type and keys. */
export interface CorrelationSchema {
  listType?: string;
  listMapKeys?: readonly string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep equality of decoded JSON; iterative, as values may be deep. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null || Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ys = y as unknown[];
      if (x.length !== ys.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], ys[i]]);
      continue;
    }
    const kx = Object.keys(x);
    if (kx.length !== Object.keys(y).length) return false;
    for (const k of kx) {
      if (!Object.hasOwn(y, k)) return false;
      stack.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
    }
  }
  return true;
}

/** The identity of a list-type=map item: its key fields' values (upstream MakeMapList). */
export function mapListKey(item: unknown, keys: readonly string[]): string | undefined {
  if (!isObject(item)) return undefined;
  return JSON.stringify(keys.map((k) => (Object.hasOwn(item, k) ? item[k] : null)));
}

export class Correlation {
  private equal?: boolean;
  private oldByKey?: Map<string, unknown>;

  constructor(
    readonly value: unknown,
    readonly old: unknown,
  ) {}

  /**
   * Whether the value equals its old value (upstream CachedDeepEqual, computed
   * once). Lists compare item by item in order: a reordered list-type=map list
   * counts as changed here, where upstream would match its items by key, so
   * ratcheting is at most stricter, never looser.
   */
  unchanged(): boolean {
    return (this.equal ??= jsonEqual(this.value, this.old));
  }

  /** The correlation of a property or map entry present in both values (upstream Key). */
  key(field: string): Correlation | undefined {
    if (!isObject(this.value) || !isObject(this.old) || !Object.hasOwn(this.value, field) || !Object.hasOwn(this.old, field)) return undefined;
    return new Correlation(this.value[field], this.old[field]);
  }

  /** The correlation of item `i` of a list-type=map list with the old item of the same keys (upstream Index). */
  index(i: number, schema: CorrelationSchema): Correlation | undefined {
    if (schema.listType !== 'map' || !Array.isArray(this.value) || !Array.isArray(this.old) || i >= this.value.length) return undefined;
    const keys = schema.listMapKeys ?? [];
    if (!this.oldByKey) {
      this.oldByKey = new Map();
      for (const item of this.old) {
        const key = mapListKey(item, keys);
        if (key !== undefined && !this.oldByKey.has(key)) this.oldByKey.set(key, item);
      }
    }
    const key = mapListKey(this.value[i], keys);
    if (key === undefined || !this.oldByKey.has(key)) return undefined;
    return new Correlation(this.value[i], this.oldByKey.get(key));
  }
}
