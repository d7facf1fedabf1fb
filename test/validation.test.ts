import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  aggregateText,
  duplicate,
  fieldErrorText,
  forbidden,
  invalid,
  notFound,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
  type FieldError,
} from '../src/registry/validation/field-errors.ts';
import { goQuote } from '../src/util/go-print.ts';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  isValidPortName,
  maskTrailingDash,
  nameValidators,
} from '../src/api/names.ts';
import { validateLabelSelector } from '../src/registry/validation/label-selector.ts';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from '../src/registry/validation/object-meta.ts';
import { isStrictSubset, parseCIDR } from '../src/registry/validation/cidr.ts';
import { goJSONObjectError } from '../src/registry/validation/go-json.ts';
import { defaultNamespace } from '../src/kinds/core/namespace/index.ts';
import { validateNamespace } from '../src/kinds/core/namespace/validate.ts';
import { defaultNetworkPolicy } from '../src/kinds/networking.orch.io/network-policy/index.ts';
import { validateNetworkPolicy } from '../src/kinds/networking.orch.io/network-policy/validate.ts';
import { kinds, validation } from '../src/generated/index.ts';
import { strategyOf } from '../src/registry/kind.ts';
import { ContractValidators, withContractValidation } from '../src/registry/contract-validation.ts';
import { mergeSecretStringData } from '../src/kinds/core/secret/index.ts';
import { validateSecret } from '../src/kinds/core/secret/validate.ts';
import { validateConfigMap } from '../src/kinds/core/config-map/validate.ts';
import { validateServiceAccount } from '../src/kinds/core/service-account/index.ts';
import { validateEvent } from '../src/kinds/core/event/validate.ts';

const texts = (errs: FieldError[]) => errs.map(fieldErrorText);

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QNAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const CM_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

test('field error bodies (FACTS 1.1)', () => {
  const cases: Array<[FieldError, string, string]> = [
    [required('metadata.name', 'name or generateName is required'), 'FieldValueRequired', 'Required value: name or generateName is required'],
    [required('spec.x'), 'FieldValueRequired', 'Required value'],
    [invalid('spec.p', 'x', 'bad'), 'FieldValueInvalid', 'Invalid value: "x": bad'],
    [invalid('spec.p', 70, 'bad'), 'FieldValueInvalid', 'Invalid value: 70: bad'],
    [invalid('spec.p', true, 'bad'), 'FieldValueInvalid', 'Invalid value: true: bad'],
    [invalid('spec.p', null, 'bad'), 'FieldValueInvalid', 'Invalid value: null: bad'],
    [invalid('spec.p', { a: [1] }, 'bad'), 'FieldValueInvalid', 'Invalid value: {"a":[1]}: bad'],
    [notSupported('p', 'FOO', ['TCP', 'UDP']), 'FieldValueNotSupported', 'Unsupported value: "FOO": supported values: "TCP", "UDP"'],
    [forbidden('p', 'nope'), 'FieldValueForbidden', 'Forbidden: nope'],
    [tooLong('metadata.annotations', 'x', 262144), 'FieldValueTooLong', 'Too long: must have at most 262144 bytes'],
    [tooMany('p', 5, 2), 'FieldValueTooMany', 'Too many: 5: must have at most 2 items'],
    [duplicate('p', 'a'), 'FieldValueDuplicate', 'Duplicate value: "a"'],
    [notFound('p', 'a'), 'FieldValueNotFound', 'Not found: "a"'],
    [typeInvalid('p', 'a', 'must be int'), 'FieldValueTypeInvalid', 'Invalid value: "a": must be int'],
  ];
  for (const [e, type, message] of cases) {
    assert.equal(e.type, type);
    assert.equal(e.message, message);
  }
  assert.equal(fieldErrorText(forbidden('a.b', 'x')), 'a.b: Forbidden: x');
  assert.equal(aggregateText([forbidden('a', 'x')]), 'a: Forbidden: x');
  assert.equal(aggregateText([forbidden('a', 'x'), forbidden('a', 'x'), required('b')]), '[a: Forbidden: x, b: Required value]');
});

test('goQuote follows Go %q', () => {
  const cases: Array<[string, string]> = [
    ['abc', '"abc"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\n\t\x00\x7f', '"\\n\\t\\x00\\x7f"'],
    ['héllo ☃', '"héllo ☃"'],
    ['\u00ad', '"\\u00ad"'],
  ];
  for (const [input, want] of cases) assert.equal(goQuote(input), want, input);
});

test('name checks (FACTS 7)', () => {
  const cases: Array<[(v: string) => string[], string, string[]]> = [
    [isDNS1123Subdomain, 'example.com', []],
    [isDNS1123Subdomain, 'Example', [SUBDOMAIN_MSG]],
    [isDNS1123Subdomain, 'a'.repeat(254), ['must be no more than 253 characters']],
    [isDNS1123Subdomain, '-a', [SUBDOMAIN_MSG]],
    [isDNS1123Label, 'my-ns', []],
    [isDNS1123Label, 'a.b', ['must not contain dots']],
    [isDNS1123Label, 'A_b', [LABEL_MSG]],
    [isDNS1123Label, 'a'.repeat(64), ['must be no more than 63 characters']],
    [isDNS1035Label, '1abc', [DNS1035_MSG]],
    [isDNS1035Label, 'abc-1', []],
    [isValidPathSegmentName, '..', ["may not be '..'"]],
    [isValidPathSegmentName, '.', ["may not be '.'"]],
    [isValidPathSegmentName, 'a/b%c', ["may not contain '/'", "may not contain '%'"]],
    [isValidPathSegmentName, 'system:admin', []],
    [isQualifiedName, 'example.com/My_Name.1', []],
    [isQualifiedName, 'a b', [QNAME_MSG]],
    [isQualifiedName, '/a', ['prefix part must be non-empty']],
    [isQualifiedName, 'a/', ['name part must be non-empty', QNAME_MSG]],
    [isQualifiedName, 'x'.repeat(64), ['name part must be no more than 63 characters']],
    [isQualifiedName, 'Bad_/a', ['prefix part ' + SUBDOMAIN_MSG]],
    [isValidLabelValue, '', []],
    [isValidLabelValue, 'a-b_c.d', []],
    [isValidLabelValue, '-a', [LABEL_VALUE_MSG]],
    [isValidLabelValue, 'v'.repeat(64), ['must be no more than 63 characters']],
    [isValidPortName, 'http', []],
    [isValidPortName, 'a'.repeat(16), ['must be no more than 15 characters']],
    [isValidPortName, 'HTTP', ['must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)', 'must contain at least one letter (a-z)']],
    [isValidPortName, '123', ['must contain at least one letter (a-z)']],
    [isValidPortName, 'a--b', ['must not contain consecutive hyphens']],
    [isValidPortName, '-ab', ['must not begin or end with a hyphen']],
    [isConfigMapKey, 'key.name', []],
    [isConfigMapKey, 'a b', [CM_KEY_MSG]],
    [isConfigMapKey, '..', ["must not be '..'"]],
    [isConfigMapKey, '..a', ["must not start with '..'"]],
    [isConfigMapKey, '.', ["must not be '.'"]],
  ];
  for (const [fn, input, want] of cases) assert.deepEqual(fn(input), want, `${fn.name}(${input})`);
  const q = isQualifiedName('a/b/c');
  assert.equal(q.length, 1);
  assert.match(q[0], /^a qualified name must consist .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
});

test('generateName prefix masking (FACTS 7)', () => {
  assert.equal(maskTrailingDash('abc-'), 'aba');
  assert.equal(maskTrailingDash('a-'), 'a');
  assert.equal(maskTrailingDash('-'), '-');
  assert.deepEqual(nameValidators.DNSSubdomain('abc-', true), []);
  assert.deepEqual(nameValidators.DNSSubdomain('abc-', false), [SUBDOMAIN_MSG]);
  assert.deepEqual(nameValidators.DNSLabel('ns-', true), []);
  assert.deepEqual(nameValidators.DNSLabel('Ns-', true), [LABEL_MSG]);
});

test('LabelSelector object validation (FACTS 6.1 rows 1-5)', () => {
  const cases: Array<[unknown, string[]]> = [
    [undefined, []],
    [{}, []],
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] }, []],
    [{ matchLabels: { 'a b': 'ok' } }, [`s.matchLabels: Invalid value: "a b": ${QNAME_MSG}`]],
    [{ matchLabels: { ok: 'x y' } }, [`s.matchLabels: Invalid value: "x y": ${LABEL_VALUE_MSG}`]],
    [{ matchExpressions: [{ key: 'k', operator: 'Gt', values: ['1'] }] }, ['s.matchExpressions[0].operator: Invalid value: "Gt": not a valid selector operator']],
    [{ matchExpressions: [{ key: 'k', operator: 'NotIn' }] }, ["s.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"]],
    [{ matchExpressions: [{ key: 'k', operator: 'Exists', values: ['a'] }] }, ["s.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"]],
    [{ matchExpressions: [{ key: 'k k', operator: 'DoesNotExist' }] }, [`s.matchExpressions[0].key: Invalid value: "k k": ${QNAME_MSG}`]],
    [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['ok', '-x'] }] }, [`s.matchExpressions[0].values[1]: Invalid value: "-x": ${LABEL_VALUE_MSG}`]],
  ];
  for (const [sel, want] of cases) assert.deepEqual(texts(validateLabelSelector(sel, 's')), want, JSON.stringify(sel));
  const bad = { matchExpressions: [{ key: 'k', operator: 'In', values: ['-x'] }] };
  assert.deepEqual(validateLabelSelector(bad, 's', { allowInvalidLabelValueInSelector: true }), []);
});

const NS = { namespaced: true, nameValidation: 'DNSSubdomain' } as const;
const CLUSTER = { namespaced: false, nameValidation: 'DNSLabel' } as const;

test('ObjectMeta create rules (FACTS 7)', () => {
  const cases: Array<[string, unknown, typeof NS | typeof CLUSTER | { namespaced: boolean; nameValidation: 'PathSegment' }, string[]]> = [
    ['valid', { name: 'np1', namespace: 'default' }, NS, []],
    ['name required', { namespace: 'default' }, NS, ['metadata.name: Required value: name or generateName is required']],
    ['generateName only', { generateName: 'web-', namespace: 'default' }, NS, ['metadata.name: Required value: name or generateName is required']],
    ['bad generateName', { generateName: 'Web-', name: 'webx', namespace: 'default' }, NS, [`metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN_MSG}`]],
    ['bad name', { name: 'My_NP', namespace: 'default' }, NS, [`metadata.name: Invalid value: "My_NP": ${SUBDOMAIN_MSG}`]],
    ['namespace required', { name: 'a' }, NS, ['metadata.namespace: Required value']],
    ['namespace label', { name: 'a', namespace: 'a.b' }, NS, ['metadata.namespace: Invalid value: "a.b": must not contain dots']],
    ['namespace forbidden', { name: 'a', namespace: 'x' }, CLUSTER, ['metadata.namespace: Forbidden: not allowed on this type']],
    ['namespace name with dots', { name: 'a.b' }, CLUSTER, ['metadata.name: Invalid value: "a.b": must not contain dots']],
    ['path segment name', { name: 'a/b' }, { namespaced: false, nameValidation: 'PathSegment' }, ['metadata.name: Invalid value: "a/b": may not contain \'/\'']],
    ['path segment ok', { name: 'system:admin' }, { namespaced: false, nameValidation: 'PathSegment' }, []],
    ['generation', { name: 'a', namespace: 'd', generation: -1 }, NS, ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']],
    ['label key', { name: 'a', namespace: 'd', labels: { 'a b': 'x' } }, NS, [`metadata.labels: Invalid value: "a b": ${QNAME_MSG}`]],
    ['label value', { name: 'a', namespace: 'd', labels: { a: 'x y' } }, NS, [`metadata.labels: Invalid value: "x y": ${LABEL_VALUE_MSG}`]],
    ['annotation key case-insensitive', { name: 'a', namespace: 'd', annotations: { 'Example.COM/Key': 'v' } }, NS, []],
    ['annotation key', { name: 'a', namespace: 'd', annotations: { 'a b': 'v' } }, NS, [`metadata.annotations: Invalid value: "a b": ${QNAME_MSG}`]],
    ['annotation size ok', { name: 'a', namespace: 'd', annotations: { k: 'v'.repeat(262143) } }, NS, []],
    ['annotation size', { name: 'a', namespace: 'd', annotations: { k: 'v'.repeat(262144) } }, NS, ['metadata.annotations: Too long: must have at most 262144 bytes']],
    ['standard finalizers', { name: 'a', namespace: 'd', finalizers: ['orch', 'orphan', 'example.com/f'] }, NS, []],
    ['non-standard finalizer', { name: 'a', namespace: 'd', finalizers: ['orch', 'kubernetes'] }, NS, ['metadata.finalizers[1]: Invalid value: "kubernetes": name is neither a standard finalizer name nor is it fully qualified']],
    ['finalizer qualified', { name: 'a', namespace: 'd', finalizers: ['a/b/c'] }, NS, [/^metadata\.finalizers: Invalid value: "a\/b\/c": a qualified name must/ as unknown as string]],
    ['orphan + foreground', { name: 'a', namespace: 'd', finalizers: ['orphan', 'foregroundDeletion'] }, NS, ['metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set']],
    ['ownerReferences fields', { name: 'a', namespace: 'd', ownerReferences: [{ apiVersion: 'apps/', kind: '', name: '', uid: '' }] }, NS, [
      'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]],
    ['two controllers', { name: 'a', namespace: 'd', ownerReferences: [
      { apiVersion: 'v1', kind: 'A', name: 'x', uid: '1', controller: true },
      { apiVersion: 'v1', kind: 'B', name: 'y', uid: '2', controller: true },
    ] }, NS, [/Only one reference can have Controller set to true\. Found "true" in references for A\/x and B\/y$/ as unknown as string]],
    ['managedFields', { name: 'a', namespace: 'd', managedFields: [{ manager: 'x\u0007', operation: 'Patch', fieldsType: 'FieldsV2' }] }, NS, [
      'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
      'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
      'metadata.managedFields[0].manager: Invalid value: "x\\a": invalid character U+0007 (at position 1)',
    ]],
    ['manager too long', { name: 'a', namespace: 'd', managedFields: [{ manager: 'm'.repeat(129), operation: 'Apply' }] }, NS, ['metadata.managedFields[0].manager: Too long: must have at most 128 bytes']],
  ];
  for (const [label, meta, opts, want] of cases) {
    const got = texts(validateObjectMetaCreate(meta, opts));
    assert.equal(got.length, want.length, `${label}: ${JSON.stringify(got)}`);
    want.forEach((w, i) => (typeof w === 'string' ? assert.equal(got[i], w, label) : assert.match(got[i], w as RegExp, label)));
  }
});

test('ObjectMeta update rules (FACTS 7)', () => {
  const old = { name: 'a', namespace: 'd', uid: 'u1', resourceVersion: '5', generation: 2, creationTimestamp: '2024-01-01T00:00:00Z', finalizers: ['orch'] };
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string[]]> = [
    ['unchanged', {}, {}, []],
    ['rv required', { resourceVersion: '' }, {}, ['metadata.resourceVersion: Invalid value: "": must be specified for an update']],
    ['generation decrement', { generation: 1 }, {}, ['metadata.generation: Invalid value: 1: must not be decremented']],
    ['name immutable', { name: 'b' }, {}, ['metadata.name: Invalid value: "b": field is immutable']],
    ['uid immutable', { uid: 'u2' }, {}, ['metadata.uid: Invalid value: "u2": field is immutable']],
    ['creationTimestamp immutable', { creationTimestamp: '2024-02-03T04:05:06Z' }, {}, ['metadata.creationTimestamp: Invalid value: 2024-02-03 04:05:06 +0000 UTC: field is immutable']],
    ['same instant', { creationTimestamp: '2024-01-01T01:00:00+01:00' }, {}, []],
    ['deletionTimestamp immutable', { deletionTimestamp: '2024-01-02T00:00:00Z' }, {}, ['metadata.deletionTimestamp: Invalid value: 2024-01-02 00:00:00 +0000 UTC: field is immutable']],
    ['grace immutable', { deletionGracePeriodSeconds: 30 }, {}, ['metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable']],
    ['new finalizer while deleting', { deletionTimestamp: 'X', finalizers: ['orch', 'b.io/y', 'a.io/x'] }, { deletionTimestamp: 'X' }, ['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/x", "b.io/y"}']],
    ['removing finalizer while deleting', { deletionTimestamp: 'X', finalizers: [] }, { deletionTimestamp: 'X' }, []],
    ['bad label on update', { labels: { a: '-' } }, {}, [`metadata.labels: Invalid value: "-": ${LABEL_VALUE_MSG}`]],
    ['bad finalizer on update', { finalizers: ['foo'] }, {}, ['metadata.finalizers[0]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified']],
  ];
  for (const [label, change, oldChange, want] of cases) {
    const o = { ...old, ...oldChange };
    const n = { ...old, ...oldChange, ...change };
    assert.deepEqual(texts(validateObjectMetaUpdate(n, o, NS)), want, label);
  }
  assert.deepEqual(validateObjectMetaUpdate({ ...old, resourceVersion: '' }, old, { ...NS, checkResourceVersion: false }), []);
});

test('CIDR parsing with ParseCIDRSloppy semantics (FACTS 6.1)', () => {
  const ok: Array<[string, 4 | 6, number, string]> = [
    ['10.0.0.0/8', 4, 8, '10.0.0.0'],
    ['10.1.2.3/8', 4, 8, '10.0.0.0'],
    ['010.001.0.1/16', 4, 16, '10.1.0.0'],
    ['0.0.0.0/0', 4, 0, '0.0.0.0'],
    ['192.168.1.1/32', 4, 32, '192.168.1.1'],
    ['::/0', 6, 0, '0:0:0:0:0:0:0:0'],
    ['2001:db8::/32', 6, 32, '2001:db8:0:0:0:0:0:0'],
    ['2001:db8::1/64', 6, 64, '2001:db8:0:0:0:0:0:0'],
    ['fe80::1:2:3:4/128', 6, 128, 'fe80:0:0:0:1:2:3:4'],
    ['::ffff:1.2.3.4/120', 6, 120, '0:0:0:0:0:ffff:102:300'],
    ['1:2:3:4:5:6:7:8/48', 6, 48, '1:2:3:0:0:0:0:0'],
    ['10.0.0.0/08', 4, 8, '10.0.0.0'],
  ];
  const fmt = (b: Uint8Array) =>
    b.length === 4 ? [...b].join('.') : Array.from({ length: 8 }, (_, i) => ((b[2 * i] << 8) | b[2 * i + 1]).toString(16)).join(':');
  for (const [s, family, prefix, net] of ok) {
    const c = parseCIDR(s);
    assert.ok(c, s);
    assert.equal(c.family, family, s);
    assert.equal(c.prefix, prefix, s);
    assert.equal(fmt(c.network), net, s);
  }
  for (const s of ['10.0.0.0', '10.0.0.0/33', '10.0.0/8', '256.0.0.0/8', '10.0.0.0/-1', '10.0.0.0/', '::/129', '1::2::3/64', '1:2:3:4:5:6:7:8:9/64', 'fe80::1%eth0/64', 'a/8', '', '10.0.0.0/8 ', ' 10.0.0.0/8', '1:2:3:4:5:6:7::8/64', '::1.2.3/96']) {
    assert.equal(parseCIDR(s), null, s);
  }
  const subset: Array<[string, string, boolean]> = [
    ['10.1.0.0/16', '10.0.0.0/8', true],
    ['10.0.0.0/8', '10.0.0.0/8', false],
    ['10.0.0.0/7', '10.0.0.0/8', false],
    ['11.0.0.0/16', '10.0.0.0/8', false],
    ['10.1.2.3/24', '10.0.0.0/8', true],
    ['2001:db8:1::/48', '2001:db8::/32', true],
    ['2001:db9::/48', '2001:db8::/32', false],
    ['10.1.0.0/16', '2001:db8::/32', false],
    ['2001:db8::/48', '10.0.0.0/8', false],
    ['::ffff:10.1.0.0/112', '10.0.0.0/8', true],
  ];
  for (const [inner, outer, want] of subset) assert.equal(isStrictSubset(inner, outer), want, `${inner} in ${outer}`);
});

/** NetworkPolicy's whole validation: its contract's rules (the protocol's values, the peers') and its hooks'. */
const networkPolicyKind = kinds.find((k) => k.group === 'networking.orch.io' && k.kind === 'NetworkPolicy')!;
const networkPolicyStrategy = withContractValidation(strategyOf(networkPolicyKind), new ContractValidators(validation).forSchema(networkPolicyKind.schemaName));

test('NetworkPolicy spec rules (FACTS 6.1)', () => {
  const sp = (spec: unknown) => texts(networkPolicyStrategy.validate!({ spec } as any));
  const ing = (rule: unknown) => sp({ podSelector: {}, ingress: [rule] });
  const cases: Array<[string, string[], string[]]> = [
    ['empty spec', sp(undefined), []],
    ['full valid', sp({
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ from: [{ podSelector: {} }, { namespaceSelector: {}, podSelector: { matchLabels: { a: 'b' } } }, { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ protocol: 'TCP', port: 80, endPort: 90 }, { port: 'http' }, { protocol: 'SCTP' }] }],
      egress: [{ to: [{ ipBlock: { cidr: '2001:db8::/32' } }] }],
      policyTypes: ['Ingress', 'Egress'],
    }), []],
    ['podSelector', sp({ podSelector: { matchExpressions: [{ key: 'k', operator: 'Foo' }] } }), ['spec.podSelector.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator']],
    ['protocol', ing({ ports: [{ protocol: 'ICMP' }] }), ['spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"']],
    ['port range', ing({ ports: [{ port: 0 }, { port: 65536 }] }), [
      'spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ingress[0].ports[1].port: Invalid value: 65536: must be between 1 and 65535, inclusive',
    ]],
    ['endPort < port', ing({ ports: [{ port: 80, endPort: 79 }] }), ['spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`']],
    ['endPort == port', ing({ ports: [{ port: 80, endPort: 80 }] }), []],
    ['endPort range', ing({ ports: [{ port: 80, endPort: 70000 }] }), ['spec.ingress[0].ports[0].endPort: Invalid value: 70000: must be between 1 and 65535, inclusive']],
    ['endPort both', ing({ ports: [{ port: 80, endPort: 0 }] }), [
      'spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`',
      'spec.ingress[0].ports[0].endPort: Invalid value: 0: must be between 1 and 65535, inclusive',
    ]],
    ['endPort named', ing({ ports: [{ port: 'http', endPort: 90 }] }), ['spec.ingress[0].ports[0].endPort: Invalid value: 90: may not be specified when `port` is non-numeric']],
    ['endPort no port', sp({ podSelector: {}, egress: [{ ports: [{ endPort: 90 }] }] }), ['spec.egress[0].ports[0].endPort: Invalid value: 90: may not be specified when `port` is not specified']],
    ['named port rules', ing({ ports: [{ port: 'a-very-long-port-name' }, { port: '80' }, { port: 'Http' }, { port: 'a--b' }, { port: 'web-' }] }), [
      'spec.ingress[0].ports[0].port: Invalid value: "a-very-long-port-name": must be no more than 15 characters',
      'spec.ingress[0].ports[1].port: Invalid value: "80": must contain at least one letter (a-z)',
      'spec.ingress[0].ports[2].port: Invalid value: "Http": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.ingress[0].ports[3].port: Invalid value: "a--b": must not contain consecutive hyphens',
      'spec.ingress[0].ports[4].port: Invalid value: "web-": must not begin or end with a hyphen',
    ]],
    ['no peer', ing({ from: [{}] }), ['spec.ingress[0].from[0]: Required value: must specify a peer']],
    ['ipBlock + podSelector', ing({ from: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] }), ['spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer']],
    ['ipBlock + namespaceSelector', sp({ podSelector: {}, egress: [{ to: [{ namespaceSelector: {}, ipBlock: { cidr: '10.0.0.0/8' } }] }] }), ['spec.egress[0].to[0]: Forbidden: may not specify both ipBlock and another peer']],
    ['peer selectors', ing({ from: [{ namespaceSelector: { matchLabels: { 'a b': 'c' } } }] }), [`spec.ingress[0].from[0].namespaceSelector.matchLabels: Invalid value: "a b": ${QNAME_MSG}`]],
    ['cidr required', ing({ from: [{ ipBlock: { cidr: '' } }] }), ['spec.ingress[0].from[0].ipBlock.cidr: Required value']],
    ['cidr invalid', ing({ from: [{ ipBlock: { cidr: '10.0.0.0', except: ['x'] } }] }), ['spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0": not a valid CIDR']],
    ['cidr leading zeros', ing({ from: [{ ipBlock: { cidr: '010.0.0.0/8', except: ['10.01.0.0/16'] } }] }), []],
    ['except stops at first bad', ing({ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16', 'bad', '12.0.0.0/16'] } }] }), [
      'spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "11.0.0.0/16": must be a strict subset of `cidr`',
      'spec.ingress[0].from[0].ipBlock.except[1]: Invalid value: "bad": not a valid CIDR',
    ]],
    ['except equal', ing({ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.0.0.0/8'] } }] }), ['spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`']],
    ['except mixed family', ing({ from: [{ ipBlock: { cidr: '2001:db8::/32', except: ['10.0.0.0/16'] } }] }), ['spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.0.0.0/16": must be a strict subset of `cidr`']],
    ['policyTypes too many', sp({ podSelector: {}, policyTypes: ['Ingress', 'Egress', 'Bogus'] }), ['spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Bogus"}: may not specify more than two policyTypes']],
    ['policyTypes unsupported', sp({ podSelector: {}, policyTypes: ['Ingress', 'ingress'] }), ['spec.policyTypes[1]: Unsupported value: "ingress": supported values: "Ingress", "Egress"']],
    ['policyTypes duplicate ok', sp({ podSelector: {}, policyTypes: ['Egress', 'Egress'] }), []],
  ];
  for (const [label, got, want] of cases) assert.deepEqual(got, want, label);
});

test('NetworkPolicy update keeps invalid stored selector values', () => {
  const bad = { podSelector: { matchExpressions: [{ key: 'k', operator: 'In', values: ['-x'] }] } };
  assert.equal(validateNetworkPolicy({ spec: bad }).length, 1);
  assert.deepEqual(validateNetworkPolicy({ spec: bad }, { spec: bad }), []);
  assert.equal(validateNetworkPolicy({ spec: bad }, { spec: { podSelector: {} } }).length, 1);
});

test('NetworkPolicy defaulting (FACTS 6.2)', () => {
  const cases: Array<[Record<string, unknown>, unknown]> = [
    [{}, { podSelector: {}, policyTypes: ['Ingress'] }],
    [{ spec: { podSelector: {}, egress: [] } }, { podSelector: {}, egress: [], policyTypes: ['Ingress'] }],
    [{ spec: { podSelector: {}, egress: [{}] } }, { podSelector: {}, egress: [{}], policyTypes: ['Ingress', 'Egress'] }],
    [{ spec: { podSelector: {}, egress: [{}], policyTypes: ['Egress'] } }, { podSelector: {}, egress: [{}], policyTypes: ['Egress'] }],
    [{ spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }], policyTypes: [] } }, { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }], policyTypes: ['Ingress'] }],
  ];
  for (const [obj, want] of cases) {
    defaultNetworkPolicy(obj);
    assert.deepEqual(obj.spec, want);
  }
});

test('Namespace validation and defaulting', () => {
  assert.deepEqual(validateNamespace({ spec: { finalizers: ['orch', 'example.com/x'] } }), []);
  assert.deepEqual(texts(validateNamespace({ spec: { finalizers: ['foo'] } })), [
    'spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
  ]);
  const ns: any = { metadata: { name: 'team-a', labels: { x: 'y' } }, spec: { finalizers: ['example.com/f'] }, status: { phase: 'Terminating' } };
  defaultNamespace(ns);
  assert.deepEqual(ns.spec.finalizers, ['example.com/f', 'orch']);
  assert.deepEqual(ns.status, { phase: 'Active' });
  assert.deepEqual(ns.metadata.labels, { x: 'y', 'orch.io/metadata.name': 'team-a' });
  const fresh: any = { metadata: { name: 'b' } };
  defaultNamespace(fresh);
  assert.deepEqual(fresh.spec, { finalizers: ['orch'] });
  const upd: any = { metadata: { name: 'team-a' }, spec: { finalizers: [] }, status: { phase: 'Bogus' } };
  defaultNamespace(upd, ns);
  assert.deepEqual(upd.spec.finalizers, ['example.com/f', 'orch']);
  assert.deepEqual(upd.status, { phase: 'Active' });
  assert.equal(upd.metadata.labels['orch.io/metadata.name'], 'team-a');
});

test('ConfigMap validation', () => {
  const cases: Array<[string, unknown, unknown, string[]]> = [
    ['valid', { data: { 'a.b': 'x' }, binaryData: { bin: 'AAEC' } }, undefined, []],
    ['bad keys', { data: { 'a b': 'x' }, binaryData: { '..x': 'AA==' } }, undefined, [
      `data[a b]: Invalid value: "a b": ${CM_KEY_MSG}`,
      `binaryData[..x]: Invalid value: "..x": must not start with '..'`,
    ]],
    ['duplicate', { data: { k: 'x' }, binaryData: { k: 'AA==' } }, undefined, ['data[k]: Invalid value: "k": duplicate of key present in binaryData']],
    ['too large', { data: { a: 'x'.repeat(1024 * 1024), b: 'y' } }, undefined, ['[]: Too long: must have at most 1048576 bytes']],
    ['exactly 1MiB', { data: { a: 'x'.repeat(1024 * 1024) } }, undefined, []],
    ['immutable data', { immutable: true, data: { a: '2' } }, { immutable: true, data: { a: '1' } }, ['data: Forbidden: field is immutable when `immutable` is set']],
    ['immutable binaryData', { immutable: true, binaryData: { a: 'AA==' } }, { immutable: true }, ['binaryData: Forbidden: field is immutable when `immutable` is set']],
    ['immutable unset', { immutable: false, data: { a: '1' } }, { immutable: true, data: { a: '1' } }, ['immutable: Forbidden: field is immutable when `immutable` is set']],
    ['mutable change', { data: { a: '2' } }, { data: { a: '1' } }, []],
    ['set immutable', { immutable: true, data: { a: '2' } }, { data: { a: '1' } }, []],
  ];
  for (const [label, obj, old, want] of cases) assert.deepEqual(texts(validateConfigMap(obj, old)), want, label);
});

test('Secret validation and stringData', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const cases: Array<[string, unknown, unknown, string[]]> = [
    ['opaque', { type: 'Opaque', data: { k: b64('v') } }, undefined, []],
    ['bad key', { data: { 'a/b': b64('v') } }, undefined, [`data[a/b]: Invalid value: "a/b": ${CM_KEY_MSG}`]],
    ['too big', { data: { a: b64('x'.repeat(1024 * 1024 + 1)) } }, undefined, ['data: Too long: must have at most 1048576 bytes']],
    ['sa token', { type: 'orch.io/service-account-token', metadata: {} }, undefined, ['metadata.annotations[orch.io/service-account.name]: Required value']],
    ['sa token ok', { type: 'orch.io/service-account-token', metadata: { annotations: { 'orch.io/service-account.name': 'default' } } }, undefined, []],
    ['dockercfg missing', { type: 'orch.io/dockercfg' }, undefined, ['data[.dockercfg]: Required value']],
    ['dockercfg bad json', { type: 'orch.io/dockercfg', data: { '.dockercfg': b64('{x') } }, undefined, ['data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character \'x\' looking for beginning of object key string']],
    ['dockerconfigjson missing', { type: 'orch.io/dockerconfigjson', data: {} }, undefined, ['data[.dockerconfigjson]: Required value']],
    ['dockerconfigjson array', { type: 'orch.io/dockerconfigjson', data: { '.dockerconfigjson': b64('[]') } }, undefined, ['data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}']],
    ['dockerconfigjson ok', { type: 'orch.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } }, undefined, []],
    ['basic-auth', { type: 'orch.io/basic-auth', data: {} }, undefined, ['data[username]: Required value', 'data[password]: Required value']],
    ['basic-auth one', { type: 'orch.io/basic-auth', data: { password: '' } }, undefined, []],
    ['ssh-auth', { type: 'orch.io/ssh-auth', data: { 'ssh-privatekey': '' } }, undefined, ['data[ssh-privatekey]: Required value']],
    ['tls', { type: 'orch.io/tls', data: { 'tls.crt': b64('c') } }, undefined, ['data[tls.key]: Required value']],
    // SPEC 2.9: a bootstrap token Secret needs its id and secret (test/bootstrap-tokens.test.ts has the rest).
    ['bootstrap', { type: 'bootstrap.orch.io/token', data: {} }, undefined, ['data[token-id]: Required value', 'data[token-secret]: Required value']],
    ['type immutable', { type: 'orch.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }, { type: 'Opaque' }, ['type: Invalid value: "orch.io/tls": field is immutable']],
    ['immutable', { type: 'Opaque', data: { a: b64('2') } }, { type: 'Opaque', immutable: true, data: { a: b64('1') } }, [
      'immutable: Forbidden: field is immutable when `immutable` is set',
      'data: Forbidden: field is immutable when `immutable` is set',
    ]],
  ];
  for (const [label, obj, old, want] of cases) assert.deepEqual(texts(validateSecret(obj, old)), want, label);
  const s: any = { data: { a: b64('1') }, stringData: { a: 'over', b: 'héllo' } };
  mergeSecretStringData(s);
  assert.deepEqual(s, { data: { a: b64('over'), b: b64('héllo') } });
});

test('ServiceAccount and Event validation', () => {
  assert.deepEqual(validateServiceAccount({ metadata: { name: 'default' } }), []);
  const ev = (e: Record<string, unknown>) => texts(validateEvent({ metadata: { namespace: 'default' }, involvedObject: { namespace: 'default' }, ...e }));
  const cases: Array<[string, string[], string[]]> = [
    ['legacy ok', ev({}), []],
    ['legacy mismatch', ev({ metadata: { namespace: 'a' }, involvedObject: { namespace: 'b' } }), ['involvedObject.namespace: Invalid value: "b": does not match event.namespace']],
    ['legacy cluster object in default', ev({ involvedObject: { kind: 'Node' } }), []],
    ['legacy cluster object elsewhere', ev({ metadata: { namespace: 'a' }, involvedObject: {} }), ['involvedObject.namespace: Invalid value: "": does not match event.namespace']],
    ['eventTime requires reporting fields', ev({ eventTime: '2024-01-01T00:00:00.000000Z' }), [
      'reportingController: Required value',
      `reportingController: Invalid value: "": name part must be non-empty`,
      `reportingController: Invalid value: "": ${QNAME_MSG}`,
      'reportingInstance: Required value',
      'action: Required value',
      'reason: Required value',
    ]],
    ['eventTime ok', ev({ eventTime: '2024-01-01T00:00:00.000000Z', metadata: { namespace: 'orch-system' }, involvedObject: {}, reportingComponent: 'example.com/ctl', reportingInstance: 'i', action: 'A', reason: 'R' }), []],
    ['eventTime lengths', ev({ eventTime: '2024-01-01T00:00:00Z', reportingComponent: 'c', reportingInstance: 'i'.repeat(129), action: 'a', reason: 'r', message: 'm'.repeat(1025) }), [
      'reportingInstance: Invalid value: "": can have at most 128 characters',
      'message: Invalid value: "": can have at most 1024 characters',
    ]],
    ['namespace subdomain', ev({ metadata: { namespace: 'Bad' }, involvedObject: { namespace: 'Bad' } }), [`namespace: Invalid value: "Bad": ${SUBDOMAIN_MSG}`]],
  ];
  for (const [label, got, want] of cases) assert.deepEqual(got, want, label);
});

test('Go json.Unmarshal error texts', () => {
  const cases: Array<[string, string | null]> = [
    ['{}', null],
    ['null', null],
    ['', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['"x"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['1', 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ['[1 2]', "invalid character '2' after array element"],
    ['{} x', "invalid character 'x' after top-level value"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['nul', 'unexpected end of JSON input'],
    ['nulx', "invalid character 'x' in literal null (expecting 'l')"],
    ['01', "invalid character '1' after top-level value"],
  ];
  for (const [input, want] of cases) assert.equal(goJSONObjectError(input), want, input);
});
