/**
 * A custom kind's schema as the documents publish it (SPEC 4.1; upstream
 * buildKubeNative with Structural.Unfold, ToKubeOpenAPI and
 * ToStructuralOpenAPIV2), case by case, and the operation ids of
 * GetOperationIDAndTags.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { publishedKindSchema } from '../src/server/custom-openapi-schema.ts';
import { customDefinitionName, toValidOperationId } from '../src/server/custom-openapi.ts';

const v3 = (schema: unknown): any => publishedKindSchema(schema, (n) => `#/components/schemas/meta.${n}`, false, false);
const v2 = (schema: unknown, preserve = false): any => publishedKindSchema(schema, (n) => `#/definitions/meta.${n}`, true, preserve);
const spec = (field: Record<string, unknown>) => ({ type: 'object', properties: { spec: { type: 'object', properties: { f: field } } } });
const fieldOf = (published: any) => published.properties.spec.properties.f;

test('empty and unknown schema fields are not published (omitempty and the structural model)', () => {
  assert.deepEqual(fieldOf(v3(spec({ type: 'string', nullable: false, description: '', format: '', 'x-kubernetes-preserve-unknown-fields': false, required: [], id: 'x', $schema: 'y' }))), { type: 'string' });
  assert.deepEqual(fieldOf(v3(spec({ type: 'integer', default: 0, example: false }))), { type: 'integer', default: 0, example: false });
  assert.deepEqual(fieldOf(v3(spec({ type: 'object', additionalProperties: false }))), { type: 'object', additionalProperties: false });
});

test('int-or-string is unfolded into anyOf, or an allOf ahead of the anyOf already there; the pattern itself is left alone', () => {
  assert.deepEqual(fieldOf(v3(spec({ 'x-kubernetes-int-or-string': true }))), { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
  assert.deepEqual(fieldOf(v3(spec({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }))), {
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
  });
  assert.deepEqual(fieldOf(v3(spec({ 'x-kubernetes-int-or-string': true, anyOf: [{ maxLength: 3 }, { minimum: 1 }] }))), {
    'x-kubernetes-int-or-string': true,
    anyOf: [{ maxLength: 3 }, { minimum: 1 }],
    allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }],
  });
  // Nested under items and additionalProperties too.
  const nested = v3(spec({ type: 'array', items: { type: 'object', additionalProperties: { 'x-kubernetes-int-or-string': true } } }));
  assert.deepEqual(fieldOf(nested).items.additionalProperties.anyOf, [{ type: 'integer' }, { type: 'string' }]);
});

test('v2: junctors dropped, nullable fields untyped and not required, unknown-field keepers and item-less arrays untyped', () => {
  assert.deepEqual(fieldOf(v2(spec({ type: 'string', allOf: [{ minLength: 1 }], oneOf: [{ maxLength: 2 }], not: { pattern: 'a' } }))), { type: 'string' });
  assert.deepEqual(fieldOf(v2(spec({ 'x-kubernetes-int-or-string': true }))), { 'x-kubernetes-int-or-string': true });
  assert.deepEqual(fieldOf(v2(spec({ type: 'object', nullable: true, properties: { a: { type: 'string' } }, description: 'd' }))), { description: 'd' });
  assert.deepEqual(fieldOf(v2(spec({ type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } }))), { 'x-kubernetes-preserve-unknown-fields': true });
  const required = v2({ type: 'object', properties: { spec: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string', nullable: true }, b: { type: 'string' } } } } });
  assert.deepEqual(required.properties.spec.required, ['b']);
  const allNullable = v2({ type: 'object', properties: { spec: { type: 'object', required: ['a'], properties: { a: { type: 'string', nullable: true } } } } });
  assert.equal(allNullable.properties.spec.required, undefined);
  const nullableValues = v2(spec({ type: 'object', required: ['k'], additionalProperties: { type: 'string', nullable: true } }));
  assert.equal(fieldOf(nullableValues).required, undefined);
  // v3 keeps all of it.
  assert.deepEqual(fieldOf(v3(spec({ type: 'string', nullable: true, oneOf: [{ maxLength: 2 }] }))), { type: 'string', nullable: true, oneOf: [{ maxLength: 2 }] });
});

test('the root gets apiVersion, kind and a metadata reference; in v2 a root that keeps unknown fields is only an object', () => {
  const root = v3({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string' } } }, apiVersion: { type: 'integer' } } });
  assert.deepEqual(Object.keys(root.properties as object), ['apiVersion', 'kind', 'metadata']);
  assert.equal((root.properties as any).apiVersion.type, 'string');
  assert.equal((root.properties as any).metadata.$ref, '#/components/schemas/meta.ObjectMeta');
  assert.deepEqual(v2({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }), { type: 'object' });
  assert.deepEqual(v2({ type: 'object', properties: {} }, true), { type: 'object' }, 'spec.preserveUnknownFields');
  assert.deepEqual(v3(undefined), { type: 'object' });
  assert.equal((v3({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) as any)['x-kubernetes-preserve-unknown-fields'], true);
});

test('embedded resources get apiVersion, kind and metadata, and require kind and apiVersion; not in v2 when they keep unknown fields', () => {
  const embedded = { type: 'object', 'x-kubernetes-embedded-resource': true, required: ['kind'], properties: { spec: { type: 'object' } } };
  const published = fieldOf(v3(spec(embedded)));
  assert.deepEqual(Object.keys(published.properties), ['spec', 'apiVersion', 'kind', 'metadata']);
  assert.deepEqual(published.required, ['kind', 'apiVersion']);
  assert.match(published.properties.apiVersion.description, /^apiVersion defines the versioned schema/);
  assert.equal(fieldOf(v2(spec(embedded))).properties.metadata.$ref, '#/definitions/meta.ObjectMeta');
  const open = fieldOf(v2(spec({ ...embedded, 'x-kubernetes-preserve-unknown-fields': true })));
  assert.deepEqual(open, { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, required: ['kind'] });
});

test('the client\'s schema is not changed by publishing it', () => {
  const schema = {
    type: 'object',
    required: ['spec'],
    properties: {
      spec: { type: 'object', properties: { f: { 'x-kubernetes-int-or-string': true, nullable: true }, e: { type: 'object', 'x-kubernetes-embedded-resource': true, required: ['kind'] } } },
    },
  };
  const before = JSON.stringify(schema);
  v3(schema);
  v2(schema);
  assert.equal(JSON.stringify(schema), before);
});

test('names: reversed group for schemas; operation-id words as upstream ToValidOperationID', () => {
  assert.equal(customDefinitionName('stable.example.com', 'v1beta1', 'CronTab'), 'com.example.stable.v1beta1.CronTab');
  assert.equal(toValidOperationId('stable.example.com', true), 'StableExampleCom');
  assert.equal(toValidOperationId('stable.example.com', false), 'stableExampleCom');
  assert.equal(toValidOperationId('my-group.io', true), 'MyGroupIo');
  assert.equal(toValidOperationId('v1beta1', true), 'V1beta1');
  assert.equal(toValidOperationId('1st.example.com', true), 'StExampleCom', 'a leading digit is dropped');
  assert.equal(toValidOperationId('a2b.x_y', false), 'a2bX_y');
});
