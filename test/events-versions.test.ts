/**
 * events.orch.io/v1 Events are core v1 Events (SPEC 9.7; upstream stores both
 * in the key space of core events): written at one group, read at the other
 * with note <-> message, regarding <-> involvedObject, reportingController <->
 * reportingComponent and the deprecated* fields <-> source, firstTimestamp,
 * lastTimestamp, count; lists and watches at each; the new API's validation.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertFailure, causesOf, expectGet } from './helpers/api.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const CORE = '/api/v1/namespaces/default/events';
const EVENTS = '/apis/events.orch.io/v1/namespaces/default/events';
const regarding = { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u-1', apiVersion: 'v1' };

let server: TestServer;
before(async () => (server = await startTestServer()));
after(async () => server?.close());

const get = (path: string) => expectGet(server, path);

const newEvent = (name: string) => ({
  apiVersion: 'events.orch.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-05-01T10:00:00.123456Z',
  series: { count: 3, lastObservedTime: '2024-05-01T10:05:00.000000Z' },
  reportingController: 'example.com/scheduler',
  reportingInstance: 'scheduler-a',
  action: 'Binding',
  reason: 'Scheduled',
  regarding,
  related: { kind: 'Node', name: 'node-1', apiVersion: 'v1' },
  note: 'assigned default/web-1 to node-1',
  type: 'Normal',
});

test('an events.orch.io/v1 Event reads as a core Event with the old names, and back without loss', async () => {
  const created = await server.request('POST', EVENTS, { body: newEvent('scheduled') });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.note, 'assigned default/web-1 to node-1');
  const core = await get(`${CORE}/scheduled`);
  assert.equal(core.apiVersion, 'v1');
  assert.equal(core.message, 'assigned default/web-1 to node-1');
  assert.deepEqual(core.involvedObject, regarding);
  assert.equal(core.reportingComponent, 'example.com/scheduler');
  assert.deepEqual(core.series, { count: 3, lastObservedTime: '2024-05-01T10:05:00.000000Z' });
  assert.equal(core.note, undefined);
  const back = await get(`${EVENTS}/scheduled`);
  const { metadata: _m, ...fields } = back;
  const { metadata: _n, ...sent } = newEvent('scheduled');
  for (const [key, value] of Object.entries(sent)) assert.deepEqual(fields[key], value, key);
  // Written back unchanged at either group, nothing changes.
  const rewritten = await server.request('PUT', `${CORE}/scheduled`, { body: core });
  assert.equal(rewritten.status, 200, rewritten.text);
  assert.equal(rewritten.body.metadata.resourceVersion, core.metadata.resourceVersion);
});

test('a core Event reads at events.orch.io/v1 with its deprecated fields', async () => {
  const made = await server.request('POST', CORE, {
    body: { metadata: { name: 'legacy' }, involvedObject: regarding, reason: 'Pulled', message: 'pulled image', type: 'Normal', source: { component: 'kubelet', host: 'node-1' }, firstTimestamp: '2024-05-01T09:00:00Z', lastTimestamp: '2024-05-01T09:30:00Z', count: 4 },
  });
  assert.equal(made.status, 201, made.text);
  const event = await get(`${EVENTS}/legacy`);
  assert.deepEqual(
    [event.note, event.regarding, event.deprecatedSource, event.deprecatedFirstTimestamp, event.deprecatedLastTimestamp, event.deprecatedCount],
    ['pulled image', regarding, { component: 'kubelet', host: 'node-1' }, '2024-05-01T09:00:00Z', '2024-05-01T09:30:00Z', 4],
  );
  assert.equal(event.message, undefined);
});

test('lists and watches of one key space at each group', async () => {
  const list = await get(EVENTS);
  assert.equal(list.apiVersion, 'events.orch.io/v1');
  assert.deepEqual(list.items.map((e: any) => e.metadata.name).sort(), ['legacy', 'scheduled']);
  for (const item of list.items) assert.equal(item.apiVersion, 'events.orch.io/v1');
  const watch = openWatch(server, `${EVENTS}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
  try {
    const made = await server.request('POST', CORE, { body: { metadata: { name: 'later' }, involvedObject: regarding, reason: 'Killing', message: 'stopping', type: 'Normal' } });
    assert.equal(made.status, 201, made.text);
    const [event] = await watch.waitFor(1);
    assert.deepEqual([event.type, event.object.apiVersion, event.object.note], ['ADDED', 'events.orch.io/v1', 'stopping']);
  } finally {
    watch.close();
  }
  const table = await server.request('GET', `${EVENTS}/scheduled`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' } });
  assert.equal(table.status, 200, table.text);
  const names = table.body.columnDefinitions.map((c: any) => c.name);
  const cells = table.body.rows[0].cells;
  assert.equal(cells[names.indexOf('Object')], 'pod/web-1', 'printed from the core form');
  assert.equal(cells[names.indexOf('Message')], 'assigned default/web-1 to node-1');
  const discovery = await get('/apis/events.orch.io/v1');
  const core = (await get('/api/v1')).resources.find((r: any) => r.name === 'events');
  assert.equal(discovery.resources.find((r: any) => r.name === 'events').storageVersionHash, core.storageVersionHash);
});

test('the new API requires what a new Event has, and refuses the deprecated fields', async () => {
  const { eventTime: _t, ...noTime } = newEvent('bad');
  const res = await server.request('POST', EVENTS, { body: { ...noTime, type: 'Odd', deprecatedCount: 2, series: { count: 1, lastObservedTime: '2024-05-01T10:05:00.000000Z' } } });
  assertFailure(res, 422, 'Invalid');
  assert.deepEqual(causesOf(res), [
    ['FieldValueInvalid', 'series.count'],
    ['FieldValueRequired', 'eventTime'],
    ['FieldValueInvalid', 'type'],
    ['FieldValueInvalid', 'count'],
  ]);
  const missing = await server.request('POST', EVENTS, { body: { ...newEvent('bare'), reportingController: undefined, action: undefined } });
  assertFailure(missing, 422, 'Invalid');
  const causes = causesOf(missing);
  assert.deepEqual(causes[0], ['FieldValueRequired', 'reportingController']);
  assert.ok(causes.some(([type, field]) => type === 'FieldValueRequired' && field === 'action'), JSON.stringify(causes));
  const current = await get(`${EVENTS}/scheduled`);
  const changed = await server.request('PUT', `${EVENTS}/scheduled`, { body: { ...current, note: 'rewritten' } });
  assertFailure(changed, 422, 'Invalid', /message: Invalid value: "rewritten": field is immutable/);
  assert.equal((await server.request('GET', '/apis/events.orch.io/v1beta1/namespaces/default/events')).status, 404);
});
