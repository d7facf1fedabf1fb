/**
 * The answer to a create (SPEC 4.2): the stored object with its
 * resourceVersion, byte for byte what a GET of it then serves, in JSON and in
 * the other encodings a client may ask for.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers/server.ts';

const NP = '/apis/networking.orch.io/v1/namespaces/default/networkpolicies';
const policy = (name: string) => ({
  apiVersion: 'networking.orch.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name, labels: { app: name } },
  spec: { podSelector: { matchLabels: { app: name } }, ingress: [{ ports: [{ port: 80 }] }] },
});

describe('create responses', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server.close());

  test('a JSON create answers the bytes a GET of the object serves', async () => {
    const created = await server.request('POST', NP, { body: policy('same-bytes') });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.metadata.resourceVersion, /^\d+$/);
    assert.equal(created.body.metadata.managedFields[0].operation, 'Update');
    assert.equal(created.body.spec.ingress[0].ports[0].protocol, 'TCP', 'defaults are in the answer');
    assert.equal(created.headers['content-length'], String(Buffer.byteLength(created.text)));
    const read = await server.request('GET', `${NP}/same-bytes`);
    assert.equal(created.text, read.text);
  });

  test('pretty and YAML creates answer the same object', async () => {
    const pretty = await server.request('POST', `${NP}?pretty=true`, { body: policy('pretty') });
    assert.equal(pretty.status, 201, pretty.text);
    assert.match(pretty.text, /^\{\n {2}"apiVersion"/);
    assert.deepEqual(pretty.body, (await server.request('GET', `${NP}/pretty`)).body);
    const yaml = await server.request('POST', NP, { body: policy('as-yaml'), headers: { accept: 'application/yaml' } });
    assert.equal(yaml.status, 201, yaml.text);
    assert.equal(yaml.headers['content-type'], 'application/yaml');
    assert.match(yaml.text, /^apiVersion: networking\.orch\.io\/v1\nkind: NetworkPolicy\nmetadata:\n/);
    const resourceVersion = (await server.request('GET', `${NP}/as-yaml`)).body.metadata.resourceVersion;
    assert.match(yaml.text, new RegExp(`\\n  resourceVersion: "${resourceVersion}"\\n`));
  });

  test('a dry-run create, which stores nothing, still answers the object', async () => {
    const dry = await server.request('POST', `${NP}?dryRun=All`, { body: policy('dry') });
    assert.equal(dry.status, 201, dry.text);
    assert.equal(dry.body.metadata.name, 'dry');
    assert.equal(dry.body.metadata.resourceVersion, undefined);
    assert.equal((await server.request('GET', `${NP}/dry`)).status, 404);
  });
});
