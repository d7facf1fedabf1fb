// NetworkPolicy validation, defaulting and generation over HTTPS (SPEC 2.6, 4.8; FACTS 1.1, 6).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure } from './helpers/api.ts';

let server: TestServer;
const NS = 'netpol';
const NPS = `/apis/networking.orch.io/v1/namespaces/${NS}/networkpolicies`;

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const PORT_RANGE = 'must be between 1 and 65535, inclusive';
const PROTOCOLS = 'supported values: "TCP", "UDP", "SCTP"';
const SUBSET = 'must be a strict subset of `cidr`';

type Cause = [reason: string, field: string, message: string];
const ingress = (...rules: any[]) => ({ podSelector: {}, ingress: rules });
const egress = (...rules: any[]) => ({ podSelector: {}, egress: rules, policyTypes: ['Egress'] });
const from = (...peers: any[]) => ingress({ from: peers });
const ports = (...list: any[]) => ingress({ ports: list });
const ipBlock = (cidr: string, except?: string[]) => from({ ipBlock: { cidr, ...(except ? { except } : {}) } });
const expr = (e: any) => ({ podSelector: { matchExpressions: [e] } });

const P = 'spec.ingress[0].ports[0]';
const F = 'spec.ingress[0].from[0]';
const INVALID: Array<[string, any, Cause[]]> = [
  ['ipBlock with podSelector', from({ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }), [['FieldValueForbidden', F, 'Forbidden: may not specify both ipBlock and another peer']]],
  ['ipBlock with namespaceSelector', egress({ to: [{ ipBlock: { cidr: '10.0.0.0/8' }, namespaceSelector: {} }] }), [['FieldValueForbidden', 'spec.egress[0].to[0]', 'Forbidden: may not specify both ipBlock and another peer']]],
  ['empty peer', from({}), [['FieldValueRequired', F, 'Required value: must specify a peer']]],
  ['empty cidr', ipBlock(''), [['FieldValueRequired', `${F}.ipBlock.cidr`, 'Required value']]],
  ['invalid IPv4 cidr', ipBlock('10.0.0.256/24'), [['FieldValueInvalid', `${F}.ipBlock.cidr`, 'Invalid value: "10.0.0.256/24": not a valid CIDR']]],
  ['IPv4 prefix too long', ipBlock('10.0.0.0/33'), [['FieldValueInvalid', `${F}.ipBlock.cidr`, 'Invalid value: "10.0.0.0/33": not a valid CIDR']]],
  ['address without prefix', ipBlock('10.0.0.1'), [['FieldValueInvalid', `${F}.ipBlock.cidr`, 'Invalid value: "10.0.0.1": not a valid CIDR']]],
  ['invalid IPv6 cidr', ipBlock('fd00:::1/64'), [['FieldValueInvalid', `${F}.ipBlock.cidr`, 'Invalid value: "fd00:::1/64": not a valid CIDR']]],
  ['IPv6 prefix too long', ipBlock('fd00::/129'), [['FieldValueInvalid', `${F}.ipBlock.cidr`, 'Invalid value: "fd00::/129": not a valid CIDR']]],
  ['except outside cidr', ipBlock('10.0.0.0/16', ['192.168.0.0/24']), [['FieldValueInvalid', `${F}.ipBlock.except[0]`, `Invalid value: "192.168.0.0/24": ${SUBSET}`]]],
  ['except equal to cidr', ipBlock('10.0.0.0/16', ['10.0.1.0/24', '10.0.0.0/16']), [['FieldValueInvalid', `${F}.ipBlock.except[1]`, `Invalid value: "10.0.0.0/16": ${SUBSET}`]]],
  ['IPv6 except in IPv4 cidr', ipBlock('10.0.0.0/8', ['fd00::/64']), [['FieldValueInvalid', `${F}.ipBlock.except[0]`, `Invalid value: "fd00::/64": ${SUBSET}`]]],
  ['IPv6 except outside', ipBlock('fd00::/64', ['fd01::/96']), [['FieldValueInvalid', `${F}.ipBlock.except[0]`, `Invalid value: "fd01::/96": ${SUBSET}`]]],
  ['invalid except stops checking', ipBlock('10.0.0.0/8', ['nope', '192.168.0.0/16']), [['FieldValueInvalid', `${F}.ipBlock.except[0]`, 'Invalid value: "nope": not a valid CIDR']]],
  ['protocol', ports({ protocol: 'ICMP', port: 80 }), [['FieldValueNotSupported', `${P}.protocol`, `Unsupported value: "ICMP": ${PROTOCOLS}`]]],
  ['lower-case protocol', ports({ protocol: 'tcp' }), [['FieldValueNotSupported', `${P}.protocol`, `Unsupported value: "tcp": ${PROTOCOLS}`]]],
  ['port 0', ports({ port: 0 }), [['FieldValueInvalid', `${P}.port`, `Invalid value: 0: ${PORT_RANGE}`]]],
  ['port 65536', ports({ port: 65536 }), [['FieldValueInvalid', `${P}.port`, `Invalid value: 65536: ${PORT_RANGE}`]]],
  ['endPort below port', ports({ port: 8080, endPort: 80 }), [['FieldValueInvalid', `${P}.endPort`, 'Invalid value: 8080: must be greater than or equal to `port`']]],
  ['endPort out of range', ports({ port: 80, endPort: 70000 }), [['FieldValueInvalid', `${P}.endPort`, `Invalid value: 70000: ${PORT_RANGE}`]]],
  ['endPort 0', ports({ port: 80, endPort: 0 }), [
    ['FieldValueInvalid', `${P}.endPort`, 'Invalid value: 80: must be greater than or equal to `port`'],
    ['FieldValueInvalid', `${P}.endPort`, `Invalid value: 0: ${PORT_RANGE}`],
  ]],
  ['endPort with named port', ports({ port: 'http', endPort: 90 }), [['FieldValueInvalid', `${P}.endPort`, 'Invalid value: 90: may not be specified when `port` is non-numeric']]],
  ['endPort without port', egress({ ports: [{ endPort: 90 }] }), [['FieldValueInvalid', 'spec.egress[0].ports[0].endPort', 'Invalid value: 90: may not be specified when `port` is not specified']]],
  ['port name too long', ports({ port: 'a-very-long-name1' }), [['FieldValueInvalid', `${P}.port`, 'Invalid value: "a-very-long-name1": must be no more than 15 characters']]],
  ['port name upper-case', ports({ port: 'Http' }), [['FieldValueInvalid', `${P}.port`, 'Invalid value: "Http": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)']]],
  ['port name digits only', ports({ port: '8080' }), [['FieldValueInvalid', `${P}.port`, 'Invalid value: "8080": must contain at least one letter (a-z)']]],
  ['port name hyphens', ports({ port: '-a--b' }), [
    ['FieldValueInvalid', `${P}.port`, 'Invalid value: "-a--b": must not contain consecutive hyphens'],
    ['FieldValueInvalid', `${P}.port`, 'Invalid value: "-a--b": must not begin or end with a hyphen'],
  ]],
  ['too many policyTypes', { podSelector: {}, policyTypes: ['Ingress', 'Egress', 'Ingress'] }, [
    ['FieldValueInvalid', 'spec.policyTypes', 'Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes'],
  ]],
  ['unknown policyType', { podSelector: {}, policyTypes: ['Ingress', 'ingress'] }, [['FieldValueNotSupported', 'spec.policyTypes[1]', 'Unsupported value: "ingress": supported values: "Ingress", "Egress"']]],
  ['selector operator', expr({ key: 'k', operator: 'Equals', values: ['a'] }), [['FieldValueInvalid', 'spec.podSelector.matchExpressions[0].operator', 'Invalid value: "Equals": not a valid selector operator']]],
  ['In without values', expr({ key: 'k', operator: 'In' }), [['FieldValueRequired', 'spec.podSelector.matchExpressions[0].values', "Required value: must be specified when `operator` is 'In' or 'NotIn'"]]],
  ['NotIn with empty values', expr({ key: 'k', operator: 'NotIn', values: [] }), [['FieldValueRequired', 'spec.podSelector.matchExpressions[0].values', "Required value: must be specified when `operator` is 'In' or 'NotIn'"]]],
  ['Exists with values', expr({ key: 'k', operator: 'Exists', values: ['a'] }), [['FieldValueForbidden', 'spec.podSelector.matchExpressions[0].values', "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"]]],
  ['DoesNotExist with values', expr({ key: 'k', operator: 'DoesNotExist', values: ['a'] }), [['FieldValueForbidden', 'spec.podSelector.matchExpressions[0].values', "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"]]],
  ['expression key', expr({ key: 'bad key', operator: 'Exists' }), [['FieldValueInvalid', 'spec.podSelector.matchExpressions[0].key', `Invalid value: "bad key": ${NAME_PART}`]]],
  ['expression value', expr({ key: 'k', operator: 'In', values: ['ok', 'bad value!'] }), [['FieldValueInvalid', 'spec.podSelector.matchExpressions[0].values[1]', `Invalid value: "bad value!": ${LABEL_VALUE}`]]],
  ['matchLabels key', { podSelector: { matchLabels: { 'bad key!': 'v' } } }, [['FieldValueInvalid', 'spec.podSelector.matchLabels', `Invalid value: "bad key!": ${NAME_PART}`]]],
  ['peer namespaceSelector', egress({ to: [{ namespaceSelector: { matchLabels: { k: 'bad value!' } } }] }), [['FieldValueInvalid', 'spec.egress[0].to[0].namespaceSelector.matchLabels', `Invalid value: "bad value!": ${LABEL_VALUE}`]]],
  ['peer podSelector operator', from({ podSelector: { matchExpressions: [{ key: 'k', operator: 'Is' }] } }), [['FieldValueInvalid', `${F}.podSelector.matchExpressions[0].operator`, 'Invalid value: "Is": not a valid selector operator']]],
  ['several violations', {
    podSelector: { matchExpressions: [{ key: 'k', operator: 'Exists', values: ['x'] }] },
    ingress: [{ ports: [{ protocol: 'ICMP', port: 0 }], from: [{}] }],
    egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16'] }, podSelector: {} }] }],
    policyTypes: ['Sideways'],
  }, [
    ['FieldValueForbidden', 'spec.podSelector.matchExpressions[0].values', "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
    ['FieldValueNotSupported', `${P}.protocol`, `Unsupported value: "ICMP": ${PROTOCOLS}`],
    ['FieldValueInvalid', `${P}.port`, `Invalid value: 0: ${PORT_RANGE}`],
    ['FieldValueRequired', F, 'Required value: must specify a peer'],
    ['FieldValueInvalid', 'spec.egress[0].to[0].ipBlock.except[0]', `Invalid value: "11.0.0.0/16": ${SUBSET}`],
    ['FieldValueForbidden', 'spec.egress[0].to[0]', 'Forbidden: may not specify both ipBlock and another peer'],
    ['FieldValueNotSupported', 'spec.policyTypes[0]', 'Unsupported value: "Sideways": supported values: "Ingress", "Egress"'],
  ]],
];

const create = (name: string, spec: any, extra: Record<string, unknown> = {}) =>
  server.request('POST', NPS, { body: { apiVersion: 'networking.orch.io/v1', kind: 'NetworkPolicy', metadata: { name, ...extra }, spec } });

function expectInvalid(res: Awaited<ReturnType<typeof create>>, name: string, causes: Cause[]): void {
  const texts = causes.map(([, field, message]) => `${field}: ${message}`);
  const summary = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  assertFailure(res, 422, 'Invalid', `NetworkPolicy.networking.orch.io "${name}" is invalid: ${summary}`);
  assert.deepEqual(res.body.details, {
    name, group: 'networking.orch.io', kind: 'NetworkPolicy',
    causes: causes.map(([reason, field, message]) => ({ reason, message, field })),
  });
}

before(async () => {
  server = await startTestServer();
  assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
});
after(() => server?.close());

describe('invalid policies are 422 Invalid with one cause per violation, and are not stored', () => {
  INVALID.forEach(([label, spec, causes], i) => {
    test(label, async () => {
      const name = `invalid-${i}`;
      expectInvalid(await create(name, spec), name, causes);
      assertFailure(await server.request('GET', `${NPS}/${name}`), 404, 'NotFound');
    });
  });

  test('an invalid update is refused and leaves the stored policy unchanged', async () => {
    const created = (await create('upd', { podSelector: {} })).body;
    const res = await server.request('PUT', `${NPS}/upd`, { body: { ...created, spec: ports({ port: 8080, endPort: 80 }) } });
    expectInvalid(res, 'upd', [['FieldValueInvalid', `${P}.endPort`, 'Invalid value: 8080: must be greater than or equal to `port`']]);
    assert.deepEqual((await server.request('GET', `${NPS}/upd`)).body, created);
  });
});

describe('valid policies are accepted', () => {
  const VALID: Array<[string, any]> = [
    ['IPv6 cidr and except', from({ ipBlock: { cidr: 'fd00::/64', except: ['fd00::/96', 'fd00:0:0:0:1::/80'] } })],
    ['IPv4 cidr with host bits and except', ipBlock('10.0.0.1/16', ['10.0.5.0/24'])],
    ['IPv4-mapped and compressed IPv6', ipBlock('::ffff:10.0.0.0/104')],
    ['IPv4 with leading zeros (ParseCIDRSloppy)', ipBlock('010.000.0.0/8', ['010.1.0.0/16'])],
    ['named and numeric ports, SCTP, UDP, ranges', ports({ port: 'http' }, { port: 'web-80', protocol: 'UDP' }, { port: 36412, protocol: 'SCTP' }, { port: 8000, endPort: 9000 }, { port: 53, endPort: 53 }, {})],
    ['namespaceSelector with podSelector, empty selectors', from({ namespaceSelector: {}, podSelector: {} }, { namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['x'] }] } })],
    ['egress only with policyTypes [Egress]', egress({ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.169.254/32'] } }], ports: [{ port: 443 }] })],
    ['deny all ingress and egress', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }],
    ['empty rules', { podSelector: { matchLabels: { 'example.com/app': 'web' } }, ingress: [{}], egress: [{}] }],
  ];
  VALID.forEach(([label, spec], i) => {
    test(label, async () => {
      const res = await create(`valid-${i}`, spec);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual((await server.request('GET', `${NPS}/valid-${i}`)).body, res.body);
    });
  });
});

describe('defaulting and generation', () => {
  test('protocol defaults to TCP on every port; explicit protocols are kept', async () => {
    const res = await create('proto', { podSelector: {}, ingress: [{ ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] }], egress: [{ ports: [{}] }] });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.spec.ingress[0].ports, [{ protocol: 'TCP', port: 80 }, { port: 53, protocol: 'UDP' }]);
    assert.deepEqual(res.body.spec.egress[0].ports, [{ protocol: 'TCP' }]);
  });

  const TYPES: Array<[string, any, string[]]> = [
    ['no egress', { podSelector: {} }, ['Ingress']],
    ['no spec at all', undefined, ['Ingress']],
    ['empty egress list', { podSelector: {}, egress: [] }, ['Ingress']],
    ['egress present', { podSelector: {}, egress: [{}] }, ['Ingress', 'Egress']],
    ['explicit Egress', { podSelector: {}, policyTypes: ['Egress'] }, ['Egress']],
  ];
  TYPES.forEach(([label, spec, types], i) => {
    test(`policyTypes default: ${label} -> [${types}]`, async () => {
      const res = await create(`types-${i}`, spec);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.spec.policyTypes, types);
      assert.deepEqual(res.body.spec.podSelector, spec?.podSelector ?? {});
      assert.deepEqual((await server.request('GET', `${NPS}/types-${i}`)).body.spec.policyTypes, types);
    });
  });

  test('defaults apply on update too', async () => {
    const created = (await create('redefault', { podSelector: {} })).body;
    const res = await server.request('PUT', `${NPS}/redefault`, { body: { ...created, spec: { podSelector: {}, egress: [{ ports: [{ port: 443 }] }] } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.spec.policyTypes, ['Ingress', 'Egress']);
    assert.deepEqual(res.body.spec.egress[0].ports, [{ protocol: 'TCP', port: 443 }]);
  });

  test('generation is 1 on create and +1 only when spec changes', async () => {
    let obj = (await create('gen', { podSelector: {} })).body;
    assert.equal(obj.metadata.generation, 1);
    const put = async (change: (o: any) => void) => {
      const body = structuredClone(obj);
      change(body);
      const res = await server.request('PUT', `${NPS}/gen`, { body });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const relabelled = await put((o) => (o.metadata.labels = { a: 'b' }));
    assert.equal(relabelled.metadata.generation, 1, 'metadata-only change');
    assert.ok(Number(relabelled.metadata.resourceVersion) > Number(obj.metadata.resourceVersion));
    obj = relabelled;
    const respec = await put((o) => (o.spec.podSelector = { matchLabels: { app: 'web' } }));
    assert.equal(respec.metadata.generation, 2);
    obj = respec;
    const same = await put(() => {});
    assert.equal(same.metadata.generation, 2, 'identical PUT');
    assert.equal(same.metadata.resourceVersion, obj.metadata.resourceVersion, 'an identical PUT writes nothing');
    const defaulted = await put((o) => delete o.spec.policyTypes);
    assert.equal(defaulted.metadata.generation, 2, 'a change that defaulting undoes is no change');
    const again = await put((o) => (o.spec.ingress = [{}]));
    assert.equal(again.metadata.generation, 3);
    assert.equal((await server.request('GET', `${NPS}/gen`)).body.metadata.generation, 3);
  });
});
