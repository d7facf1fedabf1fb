/**
 * Emits one decoder function per schema: it type-checks a parsed JSON value as
 * Go's decoder would, drops unknown fields (reporting their paths for SPEC 4.9
 * field validation), applies `default` / `x-orch-default` values, and rebuilds
 * each object in the upstream field order (protobuf field numbers).
 */
import { refName, type Schema } from './contract.ts';

export interface DecoderSource {
  /** Function declarations, in emission order. */
  functions: string[];
  /** Schema name -> function name. */
  names: Map<string, string>;
}

/** Generates decoders for every named schema of a (bundled) components.schemas map. */
export function emitDecoders(schemas: Record<string, Schema>): DecoderSource {
  const names = new Map<string, string>();
  const functions: string[] = [];
  let anonymous = 0;
  const functionName = (schemaName: string) => `decode_${schemaName.replace(/[^A-Za-z0-9]/g, '_')}`;
  for (const schemaName of Object.keys(schemas)) names.set(schemaName, functionName(schemaName));

  /** Returns an expression `(value, path, structName) => decoded` for a schema node, emitting helpers as needed. */
  function decoderFor(node: Schema, owner: string): string {
    const ref = refName(node);
    if (ref) {
      const fn = names.get(ref);
      if (!fn) throw new Error(`unknown schema ${ref}`);
      return fn;
    }
    if (node.type === 'array' && node.items) {
      const item = decoderFor(node.items, owner);
      const fn = `decode_anon${anonymous++}`;
      functions.push(
        `function ${fn}(v, p, c, st) {\n  if (v === null) return [];\n  if (!Array.isArray(v)) return c.fail(p, v, st, ${JSON.stringify(goType(node))});\n` +
          `  const out = new Array(v.length);\n  for (let i = 0; i < v.length; i++) out[i] = ${item}(v[i], p + '[' + i + ']', c, st);\n  return out;\n}`,
      );
      return fn;
    }
    if (node.type === 'object' && node.additionalProperties && !node.properties) {
      const value = decoderFor(node.additionalProperties, owner);
      const fn = `decode_anon${anonymous++}`;
      functions.push(
        `function ${fn}(v, p, c, st) {\n  if (v === null) return {};\n  if (typeof v !== 'object' || Array.isArray(v)) return c.fail(p, v, st, ${JSON.stringify(goType(node))});\n` +
          `  const out = {};\n  for (const k in v) if (hasOwn.call(v, k)) setOwn(out, k, ${value}(v[k], p + '[' + k + ']', c, st));\n  return out;\n}`,
      );
      return fn;
    }
    if (node.type === 'object' && node.properties) {
      const fn = `decode_anon${anonymous++}`;
      functions.push(structDecoder(fn, node, owner));
      return fn;
    }
    return primitive(node);
  }

  function structDecoder(fn: string, schema: Schema, structName: string, typeName = structName): string {
    const props = Object.entries(schema.properties as Record<string, Schema>);
    // Upstream serializes fields in Go struct order, which the protobuf numbers follow; TypeMeta comes first.
    const typeMeta = ['apiVersion', 'kind'];
    const order = props
      .map(([name, prop], index) => ({ name, prop, rank: typeMeta.includes(name) ? -2 + typeMeta.indexOf(name) : prop['x-orch-protobuf-field'] ?? 1000 + index }))
      .sort((a, b) => a.rank - b.rank);
    const locals = new Map(order.map(({ name }, i) => [name, `f${i}`]));
    const lines: string[] = [];
    lines.push(`function ${fn}(v, p, c, st) {`);
    lines.push(`  if (v === null) v = {};`);
    // Go names the field's enclosing struct and the field's own type (`NetworkPolicySpec.spec.podSelector of type v1.LabelSelector`).
    lines.push(`  else if (typeof v !== 'object' || Array.isArray(v)) return c.fail(p, v, st ?? ${JSON.stringify(structName)}, ${JSON.stringify(typeName)});`);
    lines.push(`  let ${[...locals.values()].join(', ')};`);
    // for-in and hasOwn: the prelude says why.
    lines.push(`  for (const k in v) {`);
    lines.push(`    if (!hasOwn.call(v, k)) continue;`);
    lines.push(`    const x = v[k];`);
    lines.push(`    switch (k) {`);
    for (const { name, prop } of order) {
      const decode = decoderFor(prop, structName);
      lines.push(`      case ${JSON.stringify(name)}: if (x !== null) ${locals.get(name)} = ${decode}(x, p ? p + ${JSON.stringify('.' + name)} : ${JSON.stringify(name)}, c, ${JSON.stringify(structName)}); break;`);
    }
    lines.push(`      default: c.unknown(p ? p + '.' + k : k);`);
    lines.push(`    }`);
    lines.push(`  }`);
    for (const { name, prop } of order) {
      const dflt = prop['x-orch-default'] ?? prop.default;
      if (dflt === undefined) continue;
      const decode = decoderFor(prop, structName);
      lines.push(`  if (${locals.get(name)} === undefined && c.defaults !== false) ${locals.get(name)} = ${decode}(${JSON.stringify(dflt)}, p ? p + ${JSON.stringify('.' + name)} : ${JSON.stringify(name)}, c, ${JSON.stringify(structName)});`);
    }
    lines.push(`  const out = {};`);
    for (const { name } of order) lines.push(`  if (${locals.get(name)} !== undefined) out${propertyAccess(name)} = ${locals.get(name)};`);
    lines.push(`  return out;`);
    lines.push(`}`);
    return lines.join('\n');
  }

  for (const [schemaName, schema] of Object.entries(schemas)) {
    const fn = names.get(schemaName)!;
    const shortName = schemaName.split('.').pop()!;
    if (schema.type === 'object' && schema.properties) {
      functions.push(structDecoder(fn, schema, shortName, schemaName.split('.').slice(-2).join('.')));
    } else {
      functions.push(`function ${fn}(v, p, c, st) {\n  return ${decoderFor(schema, shortName)}(v, p, c, st);\n}`);
    }
  }
  return { functions, names };
}

/** `.name`, or `["x-kubernetes-list-type"]` for a name that is not an identifier. */
function propertyAccess(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

/** The runtime primitive checkers emitted into the generated file's prelude. */
function primitive(node: Schema): string {
  if (node.format === 'int-or-string' || node['x-kubernetes-int-or-string']) return 'intOrString';
  switch (node.type) {
    case 'string':
      if (node.format === 'byte') return 'bytes';
      if (node.format === 'date-time') return 'dateTime';
      return 'string';
    case 'integer':
      return node.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      // Free-form objects (FieldsV1, RawExtension) and untyped values pass through as parsed.
      return 'any';
  }
}

function goType(node: Schema): string {
  const ref = refName(node);
  // Go names a struct by its package: every API package here is a `v1`-style version (`v1.NetworkPolicyPort`).
  if (ref) return `${ref.split('.').slice(-2).join('.')}`;
  if (node.type === 'array') return `[]${goType(node.items ?? {})}`;
  if (node.type === 'object' && node.additionalProperties) return `map[string]${goType(node.additionalProperties)}`;
  if (node.type === 'integer') return node.format === 'int32' ? 'int32' : 'int64';
  if (node.type === 'number') return 'float64';
  if (node.type === 'boolean') return 'bool';
  if (node.type === 'string') return 'string';
  return 'interface {}';
}
