/**
 * The structural schema model (SPEC 9.7): conversion, structural rules,
 * pruning, value validation and field paths, as upstream apiextensions-apiserver.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newStructural, StructuralSchemaError } from '../src/registry/schema/structural.ts';
import { validateStructural } from '../src/registry/schema/structural-validation.ts';
import { prune } from '../src/registry/schema/prune.ts';
import { validateValue } from '../src/registry/schema/value-validation.ts';
import { validFieldPath } from '../src/registry/schema/field-path.ts';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'string', enum: ['S', 'M'] },
        count: { type: 'integer', minimum: 1, maximum: 5, default: 1 },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 3 } },
        raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2, 'x-kubernetes-list-type': 'set' },
      },
    },
  },
};

describe('structural schema model', () => {
  test('converts JSONSchemaProps into the model', () => {
    const s = newStructural(schema);
    const spec = s.properties!.spec;
    assert.equal(spec.type, 'object');
    assert.deepEqual(spec.valueValidation!.required, ['size']);
    assert.equal(spec.properties!.count.default, 1);
    assert.equal(spec.properties!.count.valueValidation!.maximum, 5);
    assert.equal(spec.properties!.port.extensions.xIntOrString, true);
    assert.equal(spec.properties!.port.valueValidation!.anyOf!.length, 2);
    assert.equal(spec.properties!.labels.additionalProperties!.structural!.type, 'string');
    assert.equal(spec.properties!.raw.extensions.xPreserveUnknownFields, true);
    assert.equal(spec.properties!.tags.extensions.xListType, 'set');
    assert.deepEqual(validateStructural('s', s), []);
    assert.throws(() => newStructural({ type: 'object', $ref: '#/a' }), new StructuralSchemaError("OpenAPIV3Schema '$ref' is not supported"));
  });

  test('structural rules, sorted as upstream (completeness is checked for root junctors only)', () => {
    const s = newStructural({ properties: { a: { type: 'array' }, b: { anyOf: [{ type: 'string', properties: { x: { type: 'string' } } }] } }, additionalProperties: false });
    assert.deepEqual(validateStructural('root', s).map((e) => `${e.field}: ${e.message}`), [
      'root.additionalProperties: Forbidden: must not be used at the root',
      'root.properties[a].items: Required value: must be specified',
      'root.properties[b].anyOf[0].properties[x].type: Forbidden: must be empty to be structural',
      'root.properties[b].anyOf[0].type: Forbidden: must be empty to be structural',
      'root.properties[b].type: Required value: must not be empty for specified object fields',
      'root.type: Required value: must not be empty at the root',
    ]);
  });

  test('prunes unknown fields outside preserved subtrees', () => {
    const obj = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { size: 'S', extra: 1, raw: { anything: true }, labels: { a: 'b' } }, other: 2 };
    assert.deepEqual(prune(obj, newStructural(schema), true), ['other', 'spec.extra']);
    assert.deepEqual(obj, { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { size: 'S', raw: { anything: true }, labels: { a: 'b' } } });
  });

  test('validates values with kube-openapi messages', () => {
    const errs = validateValue('obj', { spec: { size: 'L', count: 9, port: true, labels: { a: 'long' }, tags: ['a', 'b', 'c'] } }, newStructural(schema));
    assert.deepEqual(errs.map((e) => [e.type, e.field, e.message]), [
      ['FieldValueInvalid', 'obj.spec.count', 'Invalid value: 9: spec.count in body should be less than or equal to 5'],
      ['FieldValueTooLong', 'obj.spec.labels.a', 'Too long: must have at most 3 bytes'],
      // An int-or-string node is of type integer,string itself (upstream ConvertJSONSchemaPropsWithPostProcess), then its anyOf runs.
      ['FieldValueTypeInvalid', 'obj.spec.port', 'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
      ['FieldValueInvalid', 'obj', 'Invalid value: "": "spec.port" must validate at least one schema (anyOf)'],
      ['FieldValueTypeInvalid', 'obj.spec.port', 'Invalid value: "boolean": spec.port in body must be of type integer: "boolean"'],
      ['FieldValueNotSupported', 'obj.spec.size', 'Unsupported value: "L": supported values: "S", "M"'],
      ['FieldValueTooMany', 'obj.spec.tags', 'Too many: 3: must have at most 2 items'],
    ]);
    assert.deepEqual(validateValue('obj', { spec: {} }, newStructural(schema)).map((e) => `${e.field}: ${e.message}`), ['obj.spec.size: Required value']);
  });

  test('resolves field paths', () => {
    const s = newStructural(schema);
    assert.equal(validFieldPath('.spec.size', s).schema!.type, 'string');
    assert.deepEqual({ ...validFieldPath(".spec.labels['a.b']", s), schema: undefined }, { path: 'spec.labels[a.b]', root: 'spec', schema: undefined });
    assert.throws(() => validFieldPath('.spec.nope', s), /does not refer to a valid field/);
    assert.throws(() => validFieldPath("['spec']", s, false), /array notation is not allowed/);
  });
});
