/**
 * The corpus of hostile request bodies (issue 7): nesting past upstream's
 * depth limits, prototype-polluting keys where upstream refuses them, bytes
 * that are no document, numbers no Go field holds, media types nothing decodes,
 * patches that cannot apply, DeleteOptions of the wrong types. Every case is a
 * refusal against existing objects (ConfigMap `cm1` in the corpus namespace),
 * so none may change anything. Same shape as hostile-requests.ts.
 */
import type { CorpusTargets, HostileCase } from './hostile-requests.ts';
import { rawRequest } from './raw-http.ts';

const nested = (depth: number, inner = '1') => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);
const nestedArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

export function bodyCases({ token, namespace }: CorpusTargets): HostileCase[] {
  const cm = `/api/v1/namespaces/${namespace}/configmaps`;
  const np = `/apis/networking.orch.io/v1/namespaces/${namespace}/networkpolicies`;
  const cases: HostileCase[] = [];
  const add = (name: string, method: string, path: string, contentType: string | undefined, body: string | Buffer, expect: number, reason: string, message?: RegExp) =>
    cases.push({
      name,
      bytes: rawRequest(method, path, { token, headers: contentType === undefined ? {} : { 'Content-Type': contentType }, body }),
      expect: [expect],
      reason,
      message,
    });
  const json = 'application/json';
  const CANNOT_CM = /^ConfigMap in version "v1" cannot be handled as a ConfigMap: /;
  const CANNOT_NP = /^NetworkPolicy in version "v1" cannot be handled as a NetworkPolicy: /;
  const policy = (port: string) => `{"metadata":{"name":"hostile-np"},"spec":{"podSelector":{},"ingress":[{"ports":[{"port":80,"endPort":${port}}]}]}}`;

  // Nesting beyond Go's and goyaml's 10,000 levels, in every kind of body.
  add('JSON nested 20,000 deep in a create', 'POST', cm, json, `{"metadata":{"name":"deep"},"data":${nestedArray(20_000)}}`, 400, 'BadRequest', /exceeded max depth/);
  add('JSON nested 20,000 deep in an update', 'PUT', `${cm}/cm1`, json, `{"metadata":{"name":"cm1"},"x":${nested(20_000)}}`, 400, 'BadRequest', /exceeded max depth/);
  add('YAML flow nested 20,000 deep', 'POST', cm, 'application/yaml', `metadata: {name: deep}\ndata: ${nestedArray(20_000)}\n`, 400, 'BadRequest', /exceeded max depth of 10000/);
  add('a merge patch nested 20,000 deep', 'PATCH', `${cm}/cm1`, 'application/merge-patch+json', nested(20_000), 400, 'BadRequest', /exceeded max depth/);
  add('a strategic merge patch nested 20,000 deep', 'PATCH', `${cm}/cm1`, 'application/strategic-merge-patch+json', `{"data":${nested(20_000)}}`, 400, 'BadRequest', /exceeded max depth/);
  add('a JSON patch value nested 20,000 deep', 'PATCH', `${cm}/cm1`, 'application/json-patch+json', `[{"op":"add","path":"/x","value":${nested(20_000)}}]`, 400, 'BadRequest', /exceeded max depth/);
  add('an apply intent nested 20,000 deep', 'PATCH', `${cm}/cm1?fieldManager=hostile`, 'application/apply-patch+yaml', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1"},"x":${nested(20_000)}}`, 400, 'BadRequest', /exceeded max depth/);
  add('DeleteOptions nested 20,000 deep', 'DELETE', `${cm}/cm1`, json, `{"preconditions":${nested(20_000)}}`, 400, 'BadRequest', /exceeded max depth/);

  // Prototype keys where upstream's types refuse them.
  add('labels with an object under __proto__', 'POST', cm, json, '{"metadata":{"name":"proto","labels":{"__proto__":{"polluted":"yes"}}}}', 400, 'BadRequest', CANNOT_CM);
  add('a label key __proto__', 'POST', cm, json, '{"metadata":{"name":"proto","labels":{"__proto__":"x"}}}', 422, 'Invalid', /metadata\.labels/);
  add('an annotation key constructor.prototype', 'POST', cm, json, '{"metadata":{"name":"proto","annotations":{"__proto__":"x"}}}', 422, 'Invalid', /metadata\.annotations/);
  add('a JSON patch into /__proto__', 'PATCH', `${cm}/cm1`, 'application/json-patch+json', '[{"op":"add","path":"/__proto__/polluted","value":"yes"}]', 422, 'Invalid');
  add('a merge patch putting an object into data.__proto__', 'PATCH', `${cm}/cm1`, 'application/merge-patch+json', '{"data":{"__proto__":{"polluted":"yes"}}}', 400, 'BadRequest', CANNOT_CM);

  // Bytes that are no document.
  add('an empty body', 'POST', cm, json, '', 400, 'BadRequest', CANNOT_CM);
  add('null', 'POST', cm, json, 'null', 400, 'BadRequest', /cannot unmarshal null/);
  add('an array', 'POST', cm, json, '[]', 400, 'BadRequest', /cannot unmarshal array/);
  add('a bare string', 'POST', cm, json, '"configmap"', 400, 'BadRequest', /cannot unmarshal string/);
  add('truncated JSON', 'POST', cm, json, '{"metadata":{"name":"trunc"', 400, 'BadRequest', CANNOT_CM);
  add('a raw NUL in a string', 'POST', cm, json, '{"metadata":{"name":"n\u0000"}}', 400, 'BadRequest', CANNOT_CM);
  add('a byte-order mark before JSON', 'POST', cm, json, '\ufeff{"metadata":{"name":"bom"}}', 400, 'BadRequest', CANNOT_CM);
  add('a YAML alias bomb', 'POST', cm, 'application/yaml', `a: &a [x,x,x,x,x,x,x,x,x]\n${'bcdefg'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`).join('\n')}\nmetadata: {name: bomb}\n`, 400, 'BadRequest', /alias/i);
  add('YAML with a control character', 'POST', cm, 'application/yaml', 'metadata: {name: "c\u0001"}\n', 400, 'BadRequest', /control characters/);
  add('YAML of invalid UTF-8', 'POST', cm, 'application/yaml', Buffer.from([0x6d, 0x3a, 0x20, 0xff, 0xfe, 0x0a]), 400, 'BadRequest', /UTF-8/);

  // Numbers no Go field holds.
  add('a port of 1e400', 'POST', np, json, policy('1e400'), 400, 'BadRequest', CANNOT_NP);
  add('an endPort of 2^64', 'POST', np, json, policy('18446744073709551616'), 400, 'BadRequest', /cannot unmarshal number 18446744073709551616/);
  add('an endPort of 81.5', 'POST', np, json, policy('81.5'), 400, 'BadRequest', /cannot unmarshal number 81\.5/);
  add('an endPort that is a string', 'POST', np, json, policy('"90"'), 400, 'BadRequest', /cannot unmarshal string/);

  // Media types nothing decodes.
  for (const type of ['application/json;;', '}}}', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded']) {
    add(`Content-Type ${type}`, 'POST', cm, type, '{"metadata":{"name":"media"}}', 415, 'UnsupportedMediaType');
  }
  // Protobuf is decoded (SPEC 4.7): JSON sent as protobuf lacks the envelope's prefix.
  add('JSON as Content-Type application/vnd.orch.protobuf', 'POST', cm, 'application/vnd.orch.protobuf', '{"metadata":{"name":"media"}}', 400, 'BadRequest', /does not appear to be a protobuf message/);
  add('a PATCH as application/json', 'PATCH', `${cm}/cm1`, json, '{"data":{"a":"b"}}', 415, 'UnsupportedMediaType');
  add('a PATCH without Content-Type', 'PATCH', `${cm}/cm1`, undefined, '{"data":{"a":"b"}}', 415, 'UnsupportedMediaType');

  // Patches that cannot apply.
  const jsonPatch = (ops: unknown) => JSON.stringify(ops);
  add('a JSON patch at index 99999999999', 'PATCH', `${cm}/cm1`, 'application/json-patch+json', jsonPatch([{ op: 'add', path: '/metadata/finalizers/99999999999', value: 'x' }]), 422, 'Invalid');
  add('a JSON patch moving an object into itself', 'PATCH', `${cm}/cm1`, 'application/json-patch+json', jsonPatch([{ op: 'move', from: '/metadata', path: '/metadata/x' }]), 422, 'Invalid');
  add('a JSON patch moving from nowhere', 'PATCH', `${cm}/cm1`, 'application/json-patch+json', jsonPatch([{ op: 'move', from: '/nowhere', path: '/data/x' }]), 422, 'Invalid');
  add('a JSON patch whose test fails', 'PATCH', `${cm}/cm1`, 'application/json-patch+json', jsonPatch([{ op: 'test', path: '/kind', value: 'Secret' }, { op: 'remove', path: '/data' }]), 422, 'Invalid');
  add('a JSON patch copy bomb', 'PATCH', `${cm}/cm1`, 'application/json-patch+json', jsonPatch([{ op: 'add', path: '/data/big', value: 'x'.repeat(100_000) }, ...Array.from({ length: 100 }, (_, i) => ({ op: 'copy', from: '/data/big', path: `/data/c${i}` }))]), 422, 'Invalid');
  add('a JSON patch of an unknown op', 'PATCH', `${cm}/cm1`, 'application/json-patch+json', jsonPatch([{ op: 'explode', path: '/data' }]), 422, 'Invalid');
  add('a JSON patch that is an object', 'PATCH', `${cm}/cm1`, 'application/json-patch+json', '{"op":"add"}', 400, 'BadRequest');
  add('a JSON patch over 3 MiB of operations', 'PATCH', `${cm}/cm1`, 'application/json-patch+json', jsonPatch(Array.from({ length: 70_000 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }))), 413, 'RequestEntityTooLarge');
  add('a merge patch that is a number', 'PATCH', `${cm}/cm1`, 'application/merge-patch+json', '42', 400, 'BadRequest');
  add('a merge patch that is null', 'PATCH', `${cm}/cm1`, 'application/merge-patch+json', 'null', 400, 'BadRequest');
  add('a strategic merge patch with an unknown $patch', 'PATCH', `${cm}/cm1`, 'application/strategic-merge-patch+json', '{"metadata":{"$patch":"explode"}}', 400, 'BadRequest', /unknown patch type/);
  add('a patch renaming the object', 'PATCH', `${cm}/cm1`, 'application/merge-patch+json', '{"metadata":{"name":"renamed"}}', 400, 'BadRequest');
  add('an apply intent with managedFields', 'PATCH', `${cm}/cm1?fieldManager=hostile`, 'application/apply-patch+yaml', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","managedFields":[{}]}}', 400, 'BadRequest', /managedFields must be nil/);
  add('an apply intent of another version', 'PATCH', `${cm}/cm1?fieldManager=hostile`, 'application/apply-patch+yaml', '{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"cm1"}}', 400, 'BadRequest', /Incorrect version/);
  add('an apply intent that is a list', 'PATCH', `${cm}/cm1?fieldManager=hostile`, 'application/apply-patch+yaml', '- a\n- b\n', 400, 'BadRequest');
  add('an apply intent of bad YAML', 'PATCH', `${cm}/cm1?fieldManager=hostile`, 'application/apply-patch+yaml', 'metadata: [\n', 400, 'BadRequest', /error decoding YAML/);

  // DeleteOptions of the wrong types.
  add('orphanDependents "yes"', 'DELETE', `${cm}/cm1`, json, '{"orphanDependents":"yes"}', 400, 'BadRequest', /cannot unmarshal string into Go struct field DeleteOptions\.orphanDependents of type bool/);
  add('gracePeriodSeconds "5"', 'DELETE', `${cm}/cm1`, json, '{"gracePeriodSeconds":"5"}', 400, 'BadRequest', /DeleteOptions\.gracePeriodSeconds of type int64/);
  add('preconditions 5', 'DELETE', `${cm}/cm1`, json, '{"preconditions":5}', 400, 'BadRequest', /DeleteOptions\.preconditions/);
  add('DeleteOptions as an array', 'DELETE', `${cm}/cm1`, json, '[]', 400, 'BadRequest');
  add('a precondition on another uid', 'DELETE', `${cm}/cm1`, json, '{"preconditions":{"uid":"not-the-uid"}}', 409, 'Conflict');
  return cases;
}

/** A ConfigMap as YAML whose unknown field nests 2,000 block sequences: past the inline decoder's depth, so it is decoded in the worker thread. */
export const deepYaml = (name: string): string =>
  `metadata:\n  name: ${name}\nunknown:\n` + Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n') + 'x\n';
