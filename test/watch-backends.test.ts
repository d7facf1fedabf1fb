/**
 * Watch under a burst of writes on both storage backends (SPEC 2.4, 4.4, 4.6):
 * 200 concurrent creates, updates and deletes across two namespaces while five
 * watchers with different namespaces and selectors watch from one
 * resourceVersion, some opened mid-burst (history replay, then live). Each must
 * see exactly the events that match it, once each, in resourceVersion order,
 * with objects entering a selection ADDED and leaving it DELETED.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, startServerOn } from './helpers/backends.ts';
import type { TestServer } from './helpers/server.ts';
import { openWatch, type WatchStream } from './helpers/watch.ts';

const NAMESPACES = ['wb-a', 'wb-b'];
const COLORS = ['red', 'blue', 'green', undefined];
const OBJECTS = 30;
const ROUNDS = 25;
const PER_ROUND = 8;
const q = (s: string) => encodeURIComponent(s);

interface State {
  ns: string;
  name: string;
  color: string | undefined;
  v: string;
}
interface Write {
  rv: number;
  before?: State;
  after?: State;
}
interface WatcherSpec {
  path: string;
  matches: (s: State) => boolean;
  /** Opened after this many rounds (0 = before the burst). */
  openAfter: number;
}

const WATCHERS: WatcherSpec[] = [
  { path: '/api/v1/configmaps', matches: () => true, openAfter: 0 },
  { path: '/api/v1/namespaces/wb-a/configmaps', matches: (s) => s.ns === 'wb-a', openAfter: 0 },
  { path: `/api/v1/configmaps?labelSelector=${q('color=red')}`, matches: (s) => s.color === 'red', openAfter: 5 },
  {
    path: `/api/v1/namespaces/wb-b/configmaps?labelSelector=${q('color in (red,blue)')}&fieldSelector=${q('metadata.name!=obj-3')}`,
    matches: (s) => s.ns === 'wb-b' && (s.color === 'red' || s.color === 'blue') && s.name !== 'obj-3',
    openAfter: 15,
  },
  { path: `/api/v1/configmaps?labelSelector=${q('!color')}&fieldSelector=${q('metadata.namespace=wb-a')}`, matches: (s) => s.ns === 'wb-a' && s.color === undefined, openAfter: ROUNDS },
];

/** A small deterministic PRNG (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a watcher with `matches` sees for one write (upstream cacher: selection changes become ADDED/DELETED). */
function expectedEvent(write: Write, matches: (s: State) => boolean): unknown[] | undefined {
  const was = !!write.before && matches(write.before);
  const is = !!write.after && matches(write.after);
  const type = was && is ? 'MODIFIED' : is ? 'ADDED' : was ? 'DELETED' : undefined;
  if (!type) return undefined;
  const shown = type === 'DELETED' ? write.before! : write.after!;
  return [type, `${shown.ns}/${shown.name}`, String(write.rv), shown.color, shown.v];
}

const seen = (e: any) => [e.type, `${e.object.metadata.namespace}/${e.object.metadata.name}`, e.object.metadata.resourceVersion, e.object.metadata.labels?.color, e.object.data?.v];

for (const { backend, skip } of BACKENDS) {
  describe(`watch under a write burst (${backend})`, { skip }, () => {
    let server: TestServer;
    before(async () => {
      // The test counts revisions, so nothing else may write: no lease renewals, no controller
      // creating service accounts or CA config maps in the new namespaces.
      server = await startServerOn(backend, ['--leader-elect=false', '--controllers=namespace']);
      for (const name of NAMESPACES) assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } })).status, 201);
    });
    after(async () => {
      await server?.close();
    });

    test('200 writes, 5 watchers from one resourceVersion: each sees exactly its events, once, in order', async () => {
      const next = random(backend === 'sqlite' ? 1 : 2);
      const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
      const start = Number((await server.request('GET', '/api/v1/configmaps')).body.metadata.resourceVersion);
      const live = new Map<string, { state: State; object: any }>();
      const writes: Write[] = [];
      const streams: Array<WatchStream | undefined> = WATCHERS.map(() => undefined);
      const openDue = async (round: number) => {
        for (const [i, spec] of WATCHERS.entries()) {
          if (spec.openAfter !== round) continue;
          streams[i] = openWatch(server, `${spec.path}${spec.path.includes('?') ? '&' : '?'}watch=1&resourceVersion=${start}`);
          assert.equal(await streams[i]!.status, 200);
        }
      };
      let revision = start;
      let counter = 0;
      for (let round = 0; round < ROUNDS; round++) {
        await openDue(round);
        const ids = new Set<number>();
        while (ids.size < PER_ROUND) ids.add(Math.floor(next() * OBJECTS));
        let deletes = 0;
        const pending = [...ids].map(async (id) => {
          const name = `obj-${id}`;
          const ns = NAMESPACES[id % 2];
          const path = `/api/v1/namespaces/${ns}/configmaps`;
          const current = live.get(name);
          const after: State = { ns, name, color: pick(COLORS), v: String(++counter) };
          const body = (base: any = {}) => ({ ...base, metadata: { ...base.metadata, name, labels: after.color ? { color: after.color } : {} }, data: { v: after.v } });
          if (current && deletes === 0 && next() < 0.3) {
            deletes++;
            live.delete(name);
            const res = await server.request('DELETE', `${path}/${name}`);
            assert.equal(res.status, 200, res.text);
            return { rv: 0, before: current.state } as Write;
          }
          const res = current ? await server.request('PUT', `${path}/${name}`, { body: body(current.object) }) : await server.request('POST', path, { body: body() });
          assert.equal(res.status, current ? 200 : 201, res.text);
          live.set(name, { state: after, object: res.body });
          return { rv: Number(res.body.metadata.resourceVersion), before: current?.state, after };
        });
        const done = await Promise.all(pending);
        // Nothing else writes: the round took the next PER_ROUND revisions; a delete has the one left over.
        const taken = new Set(done.filter((w) => w.rv).map((w) => w.rv));
        const free = Array.from({ length: PER_ROUND }, (_, i) => revision + 1 + i).filter((rv) => !taken.has(rv));
        assert.equal(free.length, deletes, `round ${round}: revisions ${[...taken].sort()} after ${revision}`);
        for (const w of done) if (!w.rv) w.rv = free[0];
        revision += PER_ROUND;
        writes.push(...done);
      }
      await openDue(ROUNDS);
      assert.equal(writes.length, ROUNDS * PER_ROUND);
      writes.sort((a, b) => a.rv - b.rv);
      const kinds = new Set(writes.map((w) => (w.before && w.after ? 'update' : w.after ? 'create' : 'delete')));
      assert.deepEqual([...kinds].sort(), ['create', 'delete', 'update']);
      for (const [i, spec] of WATCHERS.entries()) {
        const expected = writes.map((w) => expectedEvent(w, spec.matches)).filter((e) => e !== undefined);
        assert.ok(expected.length > 10, `${spec.path} sees a fair share`);
        const stream = streams[i]!;
        await stream.waitFor(expected.length, 15_000);
      }
      await new Promise((r) => setTimeout(r, 300));
      for (const [i, spec] of WATCHERS.entries()) {
        streams[i]!.close();
        const expected = writes.map((w) => expectedEvent(w, spec.matches)).filter((e) => e !== undefined);
        assert.deepEqual(streams[i]!.events.map(seen), expected, spec.path);
      }
    });
  });
}
