/**
 * The contract's rules on built-in kinds (issue 31 item 1): codegen refuses a
 * keyword the server neither enforces nor understands, and the one validator
 * enforces the rest with custom resources' error shapes, ratcheting and cost
 * budget, the kind's own hooks speaking last about a field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContractRuleError, emitValidation } from '../codegen/validation.ts';
import { ContractValidators, mergeFieldErrors } from '../src/registry/contract-validation.ts';
import { fieldErrorText, invalid, required } from '../src/registry/validation/field-errors.ts';
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers/server.ts';

const REF = (name: string) => ({ allOf: [{ $ref: `#/components/schemas/${name}` }] });

/** A kind written as a maintainer would: a spec with bounds, an enum, a pattern, lists and rules. */
function widgetSchemas(spec: Record<string, unknown> = {}): Record<string, any> {
  return {
    'io.example.v1.Widget': {
      type: 'object',
      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: REF('io.example.v1.WidgetSpec') },
      'x-kubernetes-group-version-kind': [{ group: 'example.orch.io', version: 'v1', kind: 'Widget' }],
    },
    'io.example.v1.WidgetSpec': {
      type: 'object',
      required: ['size', 'color'],
      properties: {
        size: { type: 'integer', format: 'int32', maximum: 10 },
        color: { type: 'string', enum: ['red', 'blue'], default: 'blue' },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
        parts: { type: 'array', items: REF('io.example.v1.Part'), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        notes: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', 'x-orch-list-duplicates': 'tolerated' },
        ...spec,
      },
      'x-kubernetes-validations': [
        { rule: 'self.size >= 2', messageExpression: "'size ' + (self.size == 1 ? 'one' : 'none') + ' is below 2'" },
        { rule: '!has(self.name) || self.name != "bad"', message: 'may not be bad', fieldPath: '.name', reason: 'FieldValueForbidden' },
        { rule: 'self.size >= oldSelf.size', message: 'may not shrink' },
      ],
    },
    'io.example.v1.Part': { type: 'object', required: ['name'], properties: { name: { type: 'string' }, weight: { type: 'integer', minimum: 1 } } },
  };
}

const validatorOf = (schemas: Record<string, any>) => new ContractValidators(emitValidation(schemas)).forSchema('io.example.v1.Widget')!;
const texts = (errs: Array<{ field: string; message: string }>) => errs.map((e) => fieldErrorText(e as any));
const widget = (spec: Record<string, unknown>) => ({ apiVersion: 'example.orch.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec });

test('codegen refuses a keyword the server neither enforces nor understands', () => {
  for (const [extra, message] of [
    [{ 'x-kubernetes-foo': true }, /"x-kubernetes-foo", which the server neither enforces nor understands/],
    [{ patternProperties: {} }, /"patternProperties"/],
    [{ format: 'color-wheel' }, /format "color-wheel" is not one the server checks/],
    [{ 'x-kubernetes-list-type': 'bag' }, /x-kubernetes-list-type "bag"/],
    [{ type: 'array', 'x-kubernetes-list-type': 'map' }, /needs x-kubernetes-list-map-keys/],
    [{ 'x-orch-list-duplicates': 'yes' }, /x-orch-list-duplicates/],
  ] as const) {
    const schemas = widgetSchemas({ odd: { type: 'string', ...extra } });
    assert.throws(() => emitValidation(schemas), (err: Error) => err instanceof ContractRuleError && message.test(err.message) && /WidgetSpec\.odd/.test(err.message));
  }
  // A rule beside a reference would be lost to the referenced schema's own: it belongs on that schema.
  assert.throws(() => emitValidation(widgetSchemas({ part: { ...REF('io.example.v1.Part'), maxProperties: 1 } })), /maxProperties beside a reference to io\.example\.v1\.Part/);
  // A rule that does not compile fails generation with the definition's words.
  const broken = widgetSchemas();
  broken['io.example.v1.Part']['x-kubernetes-validations'] = [{ rule: 'self.weight >' }];
  assert.throws(() => emitValidation(broken), /io\.example\.v1\.Part: x-kubernetes-validations: .*compilation failed/);
});

test('npm run codegen:check fails on a contract that holds a keyword the server does not know', () => {
  const work = mkdtempSync(join(tmpdir(), 'orch-contract-'));
  try {
    cpSync(join(ROOT, 'openapi'), join(work, 'openapi'), { recursive: true });
    appendFileSync(join(work, 'openapi/kinds/core/ConfigMap.yaml'), '\npatches:\n  io.k8s.api.core.v1.ConfigMap:\n    properties:\n      data: {x-kubernetes-sparkle: true}\n');
    assert.throws(
      () => execFileSync(join(ROOT, 'node_modules/.bin/tsx'), ['codegen/generate.ts', '--check', '--contract', join(work, 'openapi')], { cwd: ROOT, stdio: 'pipe' }),
      (err: any) => /io\.orch\.api\.core\.v1\.ConfigMap\.data: the contract holds "x-kubernetes-sparkle", which the server neither enforces nor understands/.test(String(err.stderr)),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('the table holds only what the decoders leave to validation, and what leads to it', () => {
  const schemas = widgetSchemas();
  schemas['io.example.v1.Plain'] = { type: 'object', required: ['a'], properties: { a: { type: 'string', default: '' }, b: { type: 'integer', format: 'int64' } } };
  const table = emitValidation(schemas);
  // A required field with a default is never absent once decoded; int64 is the decoder's.
  assert.equal(table.schemas['io.example.v1.Plain'], undefined);
  assert.deepEqual(table.schemas['io.example.v1.WidgetSpec'].required, ['size'], 'color has a default');
  assert.equal(table.schemas['io.example.v1.Widget'].properties?.spec, 'io.example.v1.WidgetSpec');
});

test('value validations: custom resources\' shapes and words', () => {
  const v = validatorOf(widgetSchemas());
  assert.deepEqual(texts(v.validate(widget({ size: 11, color: 'green', name: 'ABC' }) as any)), [
    'spec.color: Unsupported value: "green": supported values: "red", "blue"',
    'spec.name: Invalid value: "ABC": spec.name in body should match \'^[a-z]+$\'',
    'spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10',
  ]);
  // A built-in kind's values always have their types (its decoder saw to it), so no error keeps the rules from running.
  assert.deepEqual(texts(v.validate(widget({ size: 1, color: 'green' }) as any)), [
    'spec.color: Unsupported value: "green": supported values: "red", "blue"',
    'spec: Invalid value: "object": size one is below 2',
  ]);
  assert.deepEqual(texts(v.validate(widget({ color: 'red' }) as any)), ['spec.size: Required value', 'spec: Invalid value: "object": no such key: size evaluating rule: self.size >= 2']);
});

test('set and map lists hold each item or key once; a tolerated list holds duplicates', () => {
  const v = validatorOf(widgetSchemas());
  const errs = v.validate(widget({ size: 3, color: 'red', parts: [{ name: 'a' }, { name: 'b' }, { name: 'a', weight: 2 }], tags: ['x', 'x', 'y'], notes: ['n', 'n'] }) as any);
  assert.deepEqual(texts(errs), ['spec.parts[2]: Duplicate value: map[string]interface {}{"name":"a"}', 'spec.tags[1]: Duplicate value: "x"']);
});

test('x-kubernetes-validations: messageExpression, reason and fieldPath, transition rules', () => {
  const v = validatorOf(widgetSchemas());
  assert.deepEqual(texts(v.validate(widget({ size: 1, color: 'red', name: 'bad' }) as any)), [
    'spec: Invalid value: "object": size one is below 2',
    'spec.name: Forbidden: may not be bad',
  ]);
  const old = widget({ size: 5, color: 'red' }) as any;
  assert.deepEqual(texts(v.validateUpdate(widget({ size: 4, color: 'red' }) as any, old)), ['spec: Invalid value: "object": may not shrink']);
  assert.deepEqual(v.validateUpdate(widget({ size: 6, color: 'red' }) as any, old), []);
});

test('ratcheting: an update keeps what it did not change, and reports what it did', () => {
  const v = validatorOf(widgetSchemas());
  // Stored before the rules existed: every rule broken.
  const old = widget({ size: 1, color: 'red', name: 'ABC', parts: [{ name: 'a', weight: 0 }, { name: 'a' }], tags: ['x', 'x'] }) as any;
  const warnings: string[] = [];
  const unchanged = structuredClone(old);
  unchanged.metadata.labels = { touched: 'yes' };
  assert.deepEqual(texts(v.validateUpdate(unchanged, old, (w) => warnings.push(w))), []);
  assert.deepEqual(warnings, ['spec: Invalid value: "object": size one is below 2'], 'a ratcheted rule failure is a warning');
  // A changed value is checked again; an old duplicate keeps lists unchecked (upstream's list ratcheting).
  const changed = structuredClone(old);
  changed.spec.name = 'ABCD';
  changed.spec.parts[0].weight = -1;
  changed.spec.tags.push('y');
  assert.deepEqual(texts(v.validateUpdate(changed, old)), [
    'spec.name: Invalid value: "ABCD": spec.name in body should match \'^[a-z]+$\'',
    'spec.parts[0].weight: Invalid value: -1: spec.parts[0].weight in body should be greater than or equal to 1',
    // The spec changed, so its rule is checked again.
    'spec: Invalid value: "object": size one is below 2',
  ]);
  // A list without duplicates before may not gain one.
  const clean = widget({ size: 3, color: 'red', tags: ['x'] }) as any;
  assert.deepEqual(texts(v.validateUpdate(widget({ size: 3, color: 'red', tags: ['x', 'x'] }) as any, clean)), ['spec.tags[1]: Duplicate value: "x"']);
});

test('rules run on the expression environment custom resources use, within its cost limits', () => {
  const schemas = widgetSchemas();
  schemas['io.example.v1.WidgetSpec']['x-kubernetes-validations'] = [{ rule: "self.tags.all(t, t.matches('^(a|b)+$'))" }];
  schemas['io.example.v1.WidgetSpec'].properties.tags.maxItems = 10;
  schemas['io.example.v1.WidgetSpec'].properties.tags.items.maxLength = 10;
  // A schema may stand anywhere in an object, so its rules are costed as often as a request could hold it.
  assert.throws(() => emitValidation(schemas), /estimated rule cost exceeds budget by factor of/);
  schemas['io.example.v1.WidgetSpec'].properties.tags.maxItems = 2;
  schemas['io.example.v1.WidgetSpec'].properties.tags.items.maxLength = 4;
  const v = validatorOf(schemas);
  assert.deepEqual(v.validate(widget({ size: 3, color: 'red', tags: ['ab', 'ba'] }) as any), []);
  assert.deepEqual(texts(v.validate(widget({ size: 3, color: 'red', tags: ['ab', 'c'] }) as any)), ['spec: Invalid value: "object": failed rule: self.tags.all(t, t.matches(\'^(a|b)+$\'))']);
});

test('the kind\'s hooks speak last about a field they report on', () => {
  const contract = [required('spec.containers'), invalid('spec.size', 11, 'x'), { type: 'FieldValueDuplicate' as const, field: 'spec.volumes[1]', message: 'Duplicate value: map[string]interface {}{"name":"v"}' }];
  const hooks = [required('spec.containers'), { type: 'FieldValueDuplicate' as const, field: 'spec.volumes[1].name', message: 'Duplicate value: "v"' }];
  assert.deepEqual(texts(mergeFieldErrors(contract, hooks)), ['spec.size: Invalid value: 11: x', 'spec.containers: Required value', 'spec.volumes[1].name: Duplicate value: "v"']);
});

test('merged errors stand in the object\'s field order, where upstream\'s validation in Go reports them', () => {
  // A NetworkPolicy's fields in upstream's order (its decoder's): the hooks report ports before peers, as upstream does.
  const obj = { spec: { podSelector: {}, ingress: [{ ports: [{ protocol: 'X', port: 0 }, { protocol: 'Y' }], from: [{}] }], policyTypes: ['Ingress'] } };
  const contract = [
    invalid('spec.ingress[0].from[0]', 'object', 'peer'),
    invalid('spec.ingress[0].ports[1].protocol', 'Y', 'protocol'),
    invalid('spec.ingress[0].ports[0].protocol', 'X', 'protocol'),
  ];
  const hooks = [invalid('spec.podSelector', '', 'selector'), invalid('spec.ingress[0].ports[0].port', 0, 'port'), invalid('spec.policyTypes[0]', '', 'types')];
  assert.deepEqual(mergeFieldErrors(contract, hooks, obj).map((e) => e.field), [
    'spec.podSelector',
    'spec.ingress[0].ports[0].protocol',
    'spec.ingress[0].ports[0].port',
    'spec.ingress[0].ports[1].protocol',
    'spec.ingress[0].from[0]',
    'spec.policyTypes[0]',
  ]);
  // An object's own rule comes after its fields' errors; an absent field's after the present ones.
  assert.deepEqual(mergeFieldErrors([invalid('spec.ingress[0]', 'object', 'rule'), required('spec.zzz')], [invalid('spec.ingress[0].from[0]', '', 'peer'), invalid('spec.policyTypes[0]', '', 'x')], obj).map((e) => e.field), [
    'spec.ingress[0].from[0]',
    'spec.ingress[0]',
    'spec.policyTypes[0]',
    'spec.zzz',
  ]);
});
