/**
 * CustomResourceDefinition strategy over HTTPS (SPEC 9.7): upstream 1.31's
 * defaults, create/update/status preparation, and validation causes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { assertFailure } from './helpers/api.ts';

const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';
type Cause = [reason: string, field: string, message: string];
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const V = 'spec.validation.openAPIV3Schema';
const SCHEMA = { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', default: 1 }, size: { type: 'string' } } }, status: { type: 'object', properties: { ready: { type: 'integer' } } } } };

function version(name: string, extra: object = {}): any {
  return { name, served: true, storage: true, schema: { openAPIV3Schema: SCHEMA }, ...extra };
}

function crd(spec: object = {}, name = 'widgets.example.com'): any {
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [version('v1')], ...spec },
  };
}

const withSchema = (openAPIV3Schema: object, extra: object = {}) => ({ versions: [{ ...version('v1', extra), schema: { openAPIV3Schema } }] });
const versionRepr = (name: string, storage: boolean) =>
  `apiextensions.CustomResourceDefinitionVersion{Name:"${name}", Served:true, Storage:${storage}, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}`;

const INVALID: Array<[string, any, Cause[]]> = [
  ['name is not plural.group', crd({}, 'gadgets.example.com'), [['FieldValueInvalid', 'metadata.name', 'Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']]],
  ['group without a dot', crd({ group: 'example' }, 'widgets.example'), [['FieldValueInvalid', 'spec.group', 'Invalid value: "example": should be a domain with at least one dot']]],
  ['two storage versions', crd({ versions: [version('v1'), version('v2')] }), [
    ['FieldValueInvalid', 'spec.versions', `Invalid value: []apiextensions.CustomResourceDefinitionVersion{${versionRepr('v1', true)}, ${versionRepr('v2', true)}}: must have exactly one version marked as storage version`],
    ['FieldValueInvalid', 'status.storedVersions', 'Invalid value: []string{"v1"}: must have the storage version v2'],
  ]],
  ['no versions', crd({ versions: [] }), [
    ['FieldValueInvalid', 'spec.versions', 'Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: must have exactly one version marked as storage version'],
    ['FieldValueInvalid', 'status.storedVersions', 'Invalid value: []string(nil): must have at least one stored version'],
  ]],
  ['version name not a DNS-1035 label', crd({ versions: [version('V1')] }), [
    ['FieldValueInvalid', 'spec.versions[0].name', `Invalid value: "V1": ${DNS1035}`],
    ['FieldValueInvalid', 'spec.version', `Invalid value: "V1": ${DNS1035}`],
  ]],
  ['missing schema', crd({ versions: [{ name: 'v1', served: true, storage: true }] }), [['FieldValueRequired', 'spec.versions[0].schema.openAPIV3Schema', 'Required value: schemas are required']]],
  ['per-version schema error path', crd({ versions: [version('v1'), { ...version('v2', { storage: false }), schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: {} } } } } }] }), [
    ['FieldValueRequired', 'spec.versions[1].schema.openAPIV3Schema.properties[spec].type', 'Required value: must not be empty for specified object fields'],
  ]],
  ['non-structural: missing type', crd(withSchema({ type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } })), [
    ['FieldValueRequired', `${V}.properties[spec].type`, 'Required value: must not be empty for specified object fields'],
  ]],
  ['metadata with labels', crd(withSchema({ type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } })), [
    ['FieldValueForbidden', `${V}.properties[metadata]`, 'Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified'],
  ]],
  ['list-type map without keys', crd(withSchema({ type: 'object', properties: { ports: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { name: { type: 'string' } } } } } })), [
    ['FieldValueRequired', `${V}.properties[ports].x-kubernetes-list-map-keys`, 'Required value: must not be empty if x-kubernetes-list-type is map'],
  ]],
  ['list-map key neither required nor defaulted', crd(withSchema({ type: 'object', properties: { ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } } } })), [
    ['FieldValueRequired', `${V}.properties[ports].items.properties[name].default`, 'Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'],
  ]],
  ['printer column type and JSONPath', crd(withSchema(SCHEMA, { additionalPrinterColumns: [{ name: 'Size', type: 'long', jsonPath: 'spec.size' }] })), [
    ['FieldValueInvalid', 'spec.additionalPrinterColumns[0].type', 'Invalid value: "long": must be one of boolean,date,integer,number,string'],
    ['FieldValueInvalid', 'spec.additionalPrinterColumns[0].JSONPath', 'Invalid value: "spec.size": must be a simple json path starting with .'],
  ]],
  ['scale paths', crd(withSchema(SCHEMA, { subresources: { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: 'status.ready' } } })), [
    ['FieldValueInvalid', 'spec.subresources.scale.specReplicasPath', 'Invalid value: ".status.replicas": should be a json path under .spec'],
    ['FieldValueInvalid', 'spec.subresources.scale.statusReplicasPath', 'Invalid value: "status.ready": must be a simple json path starting with .'],
  ]],
  ['webhook conversion without clientConfig', crd({ conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } } }), [
    ['FieldValueRequired', 'spec.conversion.webhookClientConfig', 'Required value: required when strategy is set to Webhook'],
  ]],
  ['webhook conversion with an http URL and unknown review versions', crd({ conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v2'], clientConfig: { url: 'http://conv.example.com/convert' } } } }), [
    ['FieldValueInvalid', 'spec.conversion.webhookClientConfig.url', `Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`],
    ['FieldValueInvalid', 'spec.conversion.conversionReviewVersions', 'Invalid value: []string{"v2"}: must include at least one of v1, v1beta1'],
  ]],
  ['invalid defaults', crd(withSchema({ type: 'object', properties: { spec: { type: 'object', properties: {
    replicas: { type: 'integer', default: 'three' },
    mode: { type: 'string', enum: ['Fast', 'Slow'], default: 'Medium' },
    config: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 'y' } },
  } } } })), [
    ['FieldValueInvalid', `${V}.properties[spec].properties[config].default`, 'Invalid value: map[string]interface {}{"a":"x", "b":"y"}: must not have unknown fields'],
    ['FieldValueNotSupported', `${V}.properties[spec].properties[mode].default`, 'Unsupported value: "Medium": supported values: "Fast", "Slow"'],
    ['FieldValueTypeInvalid', `${V}.properties[spec].properties[replicas].default`, 'Invalid value: "string":  in body must be of type integer: "string"'],
  ]],
  ['default in top-level metadata', crd(withSchema({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } } } })), [
    ['FieldValueForbidden', `${V}.properties[metadata].properties[name].default`, 'Forbidden: must not be set in top-level metadata'],
  ]],
  ['preserveUnknownFields true', crd({ preserveUnknownFields: true }), [
    ['FieldValueInvalid', 'spec.preserveUnknownFields', 'Invalid value: true: must be false in order to use defaults in the schema'],
    ['FieldValueInvalid', 'spec.preserveUnknownFields', 'Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'],
  ]],
  ['$ref, uniqueItems and a bad pattern', crd(withSchema({ type: 'object', properties: { a: { type: 'string', $ref: '#/definitions/x' }, b: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: '(' } } } })), [
    ['FieldValueForbidden', `${V}.properties[a].$ref`, 'Forbidden: $ref is not supported'],
    ['FieldValueForbidden', `${V}.properties[b].uniqueItems`, 'Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic'],
  ]],
  ['x-kubernetes-validations shape', crd(withSchema({ type: 'object', 'x-kubernetes-validations': [{ rule: ' ' }, { rule: 'self.a', reason: 'Bad' }] })), [
    ['FieldValueRequired', `${V}.x-kubernetes-validations[0].rule`, 'Required value: rule is not specified'],
    ['FieldValueNotSupported', `${V}.x-kubernetes-validations[1].reason`, 'Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"'],
  ]],
  ['names', crd({ names: { plural: 'widgets', kind: 'Widget', listKind: 'Widget', shortNames: ['W'] } }), [
    ['FieldValueInvalid', 'spec.names.shortNames[0]', `Invalid value: "W": ${DNS1035}`],
    ['FieldValueInvalid', 'spec.names.listKind', 'Invalid value: "Widget": kind and listKind may not be the same'],
  ]],
  // One version: its selectable fields move to the internal spec's top level, as upstream's v1 conversion moves them.
  ['selectable fields of a version without a schema', crd({ versions: [{ name: 'v1', served: true, storage: true, selectableFields: [{ jsonPath: '.spec.size' }] }] }), [
    ['FieldValueRequired', 'spec.versions[0].schema.openAPIV3Schema', 'Required value: schemas are required'],
    ['FieldValueInvalid', 'spec.selectableFields', 'Invalid value: "": may only be set when validations.schema is included'],
  ]],
  ['protected group needs approval', crd({ group: 'apps.orch.io' }, 'widgets.apps.orch.io'), [
    ['FieldValueRequired', 'metadata.annotations[api-approved.orch.io]', 'Required value: protected groups must have approval annotation "api-approved.orch.io", see https://github.com/kubernetes/enhancements/pull/1111'],
  ]],
];

describe('CustomResourceDefinition strategy', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  test('a valid CRD is created with defaults, generation 1 and an empty status', async () => {
    const res = await server.request('POST', CRDS, { body: { ...crd(), status: { storedVersions: ['v0'], conditions: [{ type: 'Established', status: 'True' }] } } });
    assert.equal(res.status, 201, res.text);
    const obj = res.body;
    assert.equal(obj.metadata.generation, 1);
    assert.deepEqual(obj.spec.names, { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' });
    assert.deepEqual(obj.spec.conversion, { strategy: 'None' });
    assert.equal(obj.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.default, 1);
    assert.deepEqual(obj.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
  });

  test('webhook service port defaults to 443', async () => {
    const body = crd({ group: 'hooks.example.com', conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { name: 'conv', namespace: 'default' } } } } }, 'widgets.hooks.example.com');
    const res = await server.request('POST', CRDS, { body });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.spec.conversion.webhook.clientConfig.service, { name: 'conv', namespace: 'default', port: 443 });
  });

  for (const [label, body, causes] of INVALID) {
    test(`invalid: ${label}`, async () => {
      const res = await server.request('POST', CRDS, { body });
      assertFailure(res, 422, 'Invalid');
      assert.deepEqual(res.body.details.causes.map((c: any) => [c.reason, c.field, c.message]), causes);
    });
  }

  test('updates: resourceVersion required, generation, storedVersions, immutable group, scope once established', async () => {
    const name = 'gizmos.example.com';
    const created = await server.request('POST', CRDS, { body: crd({ names: { plural: 'gizmos', kind: 'Gizmo' } }, name) });
    assert.equal(created.status, 201, created.text);
    const path = `${CRDS}/${name}`;
    // The server's naming and establishing controllers write its status first: start from what they leave.
    for (let tries = 0; !created.body.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True'); tries++) {
      assert.ok(tries < 100, 'Established within 5 s');
      await new Promise((r) => setTimeout(r, 50));
      created.body = (await server.request('GET', path)).body;
    }

    const { resourceVersion: _rv, ...metaWithoutRV } = created.body.metadata;
    const unconditional = await server.request('PUT', path, { body: { ...created.body, metadata: metaWithoutRV } });
    assertFailure(unconditional, 422, 'Invalid');
    assert.deepEqual(unconditional.body.details.causes, [{ reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' }]);

    // A spec change bumps the generation; a new storage version is recorded; the status sent is ignored.
    const v2 = structuredClone(created.body);
    v2.spec.versions = [{ ...version('v1'), storage: false }, version('v2')];
    v2.status = { storedVersions: ['v9'] };
    const updated = await server.request('PUT', path, { body: v2 });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.metadata.generation, 2);
    assert.deepEqual(updated.body.status.storedVersions, ['v1', 'v2']);

    // Dropping v1 from spec.versions while it is still stored.
    const dropped = structuredClone(updated.body);
    dropped.spec.versions = [version('v2')];
    const droppedRes = await server.request('PUT', path, { body: dropped });
    assertFailure(droppedRes, 422, 'Invalid');
    assert.deepEqual(droppedRes.body.details.causes, [{ reason: 'FieldValueInvalid', field: 'status.storedVersions[0]', message: 'Invalid value: "v1": must appear in spec.versions' }]);

    // The group is immutable (the name rule is a create-time rule upstream).
    const regroup = structuredClone(updated.body);
    regroup.spec.group = 'other.example.com';
    const regroupRes = await server.request('PUT', path, { body: regroup });
    assertFailure(regroupRes, 422, 'Invalid');
    assert.deepEqual(regroupRes.body.details.causes.map((c: any) => [c.field, c.message]), [
      ['spec.group', 'Invalid value: "other.example.com": field is immutable'],
    ]);

    // Status: storedVersions may be trimmed to the storage version; empty is defaulted to it; acceptedNames are checked.
    const status = await server.request('PUT', `${path}/status`, {
      // Conditions kept as the controllers wrote them (Established already), or they would write them again.
      body: { ...updated.body, status: { ...updated.body.status, storedVersions: [] } },
    });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(status.body.status.storedVersions, ['v2']);
    assert.equal(status.body.metadata.generation, 2);
    const badNames = await server.request('PUT', `${path}/status`, { body: { ...status.body, status: { ...status.body.status, acceptedNames: { plural: 'Gizmos', kind: 'Gizmo' } } } });
    assertFailure(badNames, 422, 'Invalid');
    assert.deepEqual(badNames.body.details.causes, [{ reason: 'FieldValueInvalid', field: 'status.acceptedNames.plural', message: `Invalid value: "Gizmos": ${DNS1035}` }]);

    // Once Established, scope and kind cannot change.
    const rescope = structuredClone(status.body);
    rescope.spec.scope = 'Cluster';
    const rescopeRes = await server.request('PUT', path, { body: rescope });
    assertFailure(rescopeRes, 422, 'Invalid');
    assert.deepEqual(rescopeRes.body.details.causes, [{ reason: 'FieldValueInvalid', field: 'spec.scope', message: 'Invalid value: "Cluster": field is immutable' }]);
  });
});
