/**
 * Typed reads of a parsed YAML mapping for the overlay loader: each read
 * names the file and key in its error, and `mapping` rejects keys the format
 * does not have, so a misspelt key (`shortname:`) fails instead of being
 * silently ignored.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { isObject, type JsonObject } from './canonical-json.ts';

/** A parsed YAML file; duplicate keys are an error (the yaml package's default). */
export function readYaml(file: string, where: string): unknown {
  try {
    return parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
}

export class Fields {
  constructor(
    readonly value: JsonObject,
    readonly where: string,
  ) {}

  /** The mapping at `where`, with only the `allowed` keys. */
  static of(value: unknown, where: string, allowed: readonly string[]): Fields {
    if (!isObject(value)) throw new Error(`${where}: expected a mapping`);
    const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
    if (unknown.length) throw new Error(`${where}: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`);
    return new Fields(value, where);
  }

  has(key: string): boolean {
    return this.value[key] !== undefined;
  }

  private fail(key: string, what: string): never {
    throw new Error(`${this.where}: ${key} must be ${what}`);
  }

  string(key: string, fallback?: string): string {
    const v = this.value[key] ?? fallback;
    if (typeof v !== 'string') this.fail(key, fallback === undefined ? 'a string (required)' : 'a string');
    return v;
  }

  optionalString(key: string): string | undefined {
    return this.has(key) ? this.string(key) : undefined;
  }

  boolean(key: string, fallback?: boolean): boolean {
    const v = this.value[key] ?? fallback;
    if (typeof v !== 'boolean') this.fail(key, fallback === undefined ? 'true or false (required)' : 'true or false');
    return v;
  }

  strings(key: string, fallback?: string[]): string[] {
    const v = this.value[key] ?? fallback;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) this.fail(key, 'a list of strings');
    return [...(v as string[])];
  }

  number(key: string, fallback?: number): number {
    const v = this.value[key] ?? fallback;
    if (typeof v !== 'number') this.fail(key, 'a number');
    return v;
  }

  list(key: string): unknown[] {
    const v = this.value[key] ?? [];
    if (!Array.isArray(v)) this.fail(key, 'a list');
    return v;
  }

  mapping(key: string): JsonObject {
    const v = this.value[key] ?? {};
    if (!isObject(v)) this.fail(key, 'a mapping');
    return v;
  }

  oneOf<T extends string>(key: string, values: readonly T[], fallback?: T): T {
    const v = this.value[key] ?? fallback;
    if (!values.includes(v as T)) this.fail(key, `one of ${values.join(', ')}`);
    return v as T;
  }
}
