/**
 * A small parser for upstream's go-to-protobuf `generated.proto` files
 * (../shared/reference/proto/k8s.io/**): `package`, (nested) `message` blocks
 * and their `optional|repeated|required|map<K,V>` fields. It is enough for the
 * Kubernetes files, which declare no enums, services or extensions in use.
 * Field types that name a message are resolved to the message's full name as
 * protoc resolves them (from the enclosing message's scope outwards), so the
 * vendored data needs no scope rules.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { UpstreamProtoField, UpstreamProtoIndex } from '../codegen/protobuf-fields.ts';

function fail(msg: string): never {
  throw new Error(`proto: ${msg}`);
}

/** Adds the messages of one .proto source to `index`, field types as written. */
function parseProto(source: string, index: UpstreamProtoIndex): void {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
  const tokens = text.match(/map\s*<[^>]*>|"(?:[^"\\]|\\.)*"|[A-Za-z_.][A-Za-z0-9_.]*|\d+|[{};=[\]<>,()]/g) ?? [];
  let pkg = '';
  const scopes: string[] = []; // message name stack
  const blockKinds: ('message' | 'other')[] = [];
  let i = 0;
  const skipStatement = (): void => {
    while (i < tokens.length && tokens[i] !== ';') i++;
    i++;
  };
  while (i < tokens.length) {
    const t = tokens[i];
    if (t === 'package') {
      pkg = tokens[i + 1] ?? '';
      skipStatement();
    } else if (t === 'syntax' || t === 'import' || t === 'option') {
      skipStatement();
    } else if (t === 'message') {
      const name = tokens[i + 1];
      if (tokens[i + 2] !== '{') fail(`expected { after message ${name}`);
      scopes.push(name);
      blockKinds.push('message');
      index.set([pkg, ...scopes].join('.'), new Map());
      i += 3;
    } else if (t === 'oneof') {
      // oneof members are ordinary fields of the enclosing message
      blockKinds.push('other');
      i += 3;
    } else if (t === 'enum' || t === 'service' || t === 'extend') {
      let depth = 0;
      while (i < tokens.length) {
        if (tokens[i] === '{') depth++;
        else if (tokens[i] === '}' && --depth === 0) break;
        i++;
      }
      i++;
    } else if (t === '}') {
      if (blockKinds.pop() === 'message') scopes.pop();
      i++;
    } else if (t === ';') {
      i++;
    } else if (scopes.length > 0) {
      // field: [label] type name = N [options] ;
      let label: UpstreamProtoField['label'] = 'optional';
      let type: string;
      if (t.startsWith('map')) {
        label = 'map';
        type = t.replace(/\s+/g, '');
        i++;
      } else {
        if (t === 'optional' || t === 'repeated' || t === 'required') {
          label = t;
          i++;
        }
        type = tokens[i++];
      }
      const name = tokens[i++];
      if (tokens[i++] !== '=') fail(`cannot parse field ${name} in ${scopes.join('.')}`);
      const number = Number(tokens[i++]);
      if (!Number.isInteger(number)) fail(`bad field number for ${name}`);
      skipStatement();
      index.get([pkg, ...scopes].join('.'))!.set(name, { number, label, type });
    } else {
      fail(`unexpected token ${t}`);
    }
  }
}

/** A message type named in a field, resolved from the enclosing message's package as protoc does. */
function resolveType(index: UpstreamProtoIndex, fromMessage: string, type: string): string | undefined {
  if (index.has(type)) return type;
  const scopes = fromMessage.split('.');
  for (let i = scopes.length - 1; i > 0; i--) {
    const candidate = [...scopes.slice(0, i), type].join('.');
    if (index.has(candidate)) return candidate;
  }
  return undefined;
}

/** Every message of every `*.proto` file below `dir`, message types resolved to full names. */
export function loadProtoDir(dir: string): UpstreamProtoIndex {
  const index: UpstreamProtoIndex = new Map();
  const walk = (d: string): string[] =>
    readdirSync(d)
      .sort()
      .flatMap((e) => {
        const p = path.join(d, e);
        return statSync(p).isDirectory() ? walk(p) : e.endsWith('.proto') ? [p] : [];
      });
  for (const file of walk(dir)) parseProto(readFileSync(file, 'utf8'), index);
  for (const [message, fields] of index) {
    for (const field of fields.values()) field.type = resolveType(index, message, field.type) ?? field.type;
  }
  return index;
}
