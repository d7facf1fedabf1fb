// Robustness (issue 7): the whole hostile corpus, many times and concurrently,
// over real HTTPS, against SQLite and against a real etcd that is frozen with
// SIGSTOP and killed with SIGKILL while valid and hostile traffic runs. It
// asserts: no 5xx but 500/504 from a store fault; every answer within the
// request timeout; /readyz 200 afterwards; nothing created, changed or deleted
// by a refused request; every acknowledged write kept; the canary intact.
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdAvailable, startEtcd, type TestEtcd } from './helpers/etcd.ts';
import { bodyCases } from './helpers/hostile-bodies.ts';
import { hostileRequestCases, type CorpusTargets, type HostileCase } from './helpers/hostile-requests.ts';
import { rawExchange, rawRequest, type RawResponse } from './helpers/raw-http.ts';
import { checkAnswer, snapshot } from './helpers/refusals.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { openWatch } from './helpers/watch.ts';

const TOKEN = 'robustness-token';
const REQUEST_TIMEOUT_MS = 3000;
/** An answer may come this much after the deadline on a loaded two-core machine. */
const SLACK_MS = 2500;
const NS = 'robust';
const OTHER = 'robust-other';
const WRITES = 'robust-writes';
const CANARY = 'canary';
const TARGETS: CorpusTargets = { token: TOKEN, namespace: NS, other: OTHER };

/** Every hostile request and body of the two corpora. */
const corpus = (): HostileCase[] => [...hostileRequestCases(TARGETS), ...bodyCases(TARGETS)];

/** What was sent and what came back, for the closing figures. */
class Tally {
  sent = 0;
  readonly cases = new Set<string>();
  readonly codes = new Map<number, number>();
  maxMs = 0;

  record(name: string, status: number, ms: number): void {
    this.sent++;
    this.cases.add(name);
    this.codes.set(status, (this.codes.get(status) ?? 0) + 1);
    this.maxMs = Math.max(this.maxMs, ms);
  }

  summary(): string {
    const codes = [...this.codes].sort(([a], [b]) => a - b).map(([code, n]) => `${code}: ${n}`).join(', ');
    return `${this.sent} requests, ${this.cases.size} cases; codes ${codes}; slowest answer ${Math.round(this.maxMs)} ms`;
  }
}

function tokenFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'orch-tokens-'));
  writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},robustness,robustness-uid,"system:masters"\n`);
  return join(dir, 'tokens.csv');
}

/** Runs `work` over `items` with at most `concurrency` in flight. */
async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of ['sqlite', 'etcd3'] as const) {
  describe(`robustness on ${backend}`, { skip: backend === 'etcd3' && !etcdAvailable() ? 'etcd is not installed' : false }, () => {
    let server: TestServer;
    let etcd: TestEtcd | undefined;
    const tally = new Tally();

    /** One corpus case on its own connection: checked, tallied and answered within the deadline. */
    async function sendCase(c: HostileCase, allowed: number[] = c.expect): Promise<RawResponse> {
      const result = await rawExchange(server.port, server.ca, c.bytes, { end: c.end, responses: c.closes ? undefined : 1, waitMs: REQUEST_TIMEOUT_MS + SLACK_MS + 5000 });
      if (result.responses[0]) tally.record(c.name, result.responses[0].status, result.ms);
      const res = checkAnswer(c, result, allowed);
      assert.ok(result.ms < REQUEST_TIMEOUT_MS + SLACK_MS, `${c.name}: answered after ${Math.round(result.ms)} ms`);
      return res;
    }

    /** A request with the known token, answered and tallied. */
    async function call(method: string, target: string, body?: unknown): Promise<RawResponse & { ms: number }> {
      const bytes = rawRequest(method, target, { token: TOKEN, headers: body === undefined ? {} : { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const result = await rawExchange(server.port, server.ca, bytes, { responses: 1, waitMs: REQUEST_TIMEOUT_MS + SLACK_MS + 5000 });
      const res = result.responses[0];
      assert.ok(res, `${method} ${target}: no answer (${result.error ?? 'waited'} after ${Math.round(result.ms)} ms)`);
      tally.record(`${method} ${target.replace(/\/w-\d+-\d+$/, '/w-*')}`, res.status, result.ms);
      return { ...res, ms: result.ms };
    }

    async function expectCanary(): Promise<void> {
      const ns = await server.request('GET', `/api/v1/namespaces/${CANARY}`);
      assert.equal(ns.status, 200, ns.text);
      assert.equal(ns.body.status.phase, 'Active');
      const cm = await server.request('GET', `/api/v1/namespaces/${CANARY}/configmaps/canary`);
      assert.equal(cm.status, 200, cm.text);
      assert.deepEqual(cm.body.data, { alive: 'yes' });
    }

    before(async () => {
      const storage = backend === 'etcd3' ? ['--storage-backend=etcd3', `--etcd-servers=${(etcd = await startEtcd()).endpoint}`] : [];
      server = await startTestServer([...storage, `--request-timeout=${REQUEST_TIMEOUT_MS / 1000}s`, `--token-auth-file=${tokenFile()}`]);
      for (const ns of [NS, OTHER, WRITES, CANARY]) assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
      for (const name of ['cm1', 'cm2', 'abc']) {
        assert.equal((await server.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name }, data: { k: name } } })).status, 201);
      }
      assert.equal((await server.request('POST', `/api/v1/namespaces/${OTHER}/secrets`, { body: { metadata: { name: 'secret' }, stringData: { password: 'p' } } })).status, 201);
      assert.equal((await server.request('POST', `/api/v1/namespaces/${CANARY}/configmaps`, { body: { metadata: { name: 'canary' }, data: { alive: 'yes' } } })).status, 201);
      const policy = { metadata: { name: 'canary' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } };
      assert.equal((await server.request('POST', `/apis/networking.orch.io/v1/namespaces/${CANARY}/networkpolicies`, { body: policy })).status, 201);
    });

    after(async (t) => {
      (t as unknown as TestContext).diagnostic?.(`${backend}: ${tally.summary()}`);
      console.log(`robustness on ${backend}: ${tally.summary()}`);
      await server?.close();
      await etcd?.stop();
    });

    test('the hostile corpus, four rounds in random order, 24 at a time: every request refused in time, nothing changed', async () => {
      const cases = corpus();
      const before = await snapshot(server);
      const rounds = [1, 2, 3, 4].flatMap(() => cases);
      await pool(shuffled(rounds), 24, async (c) => void (await sendCase(c)));
      assert.equal(await snapshot(server), before);
      assert.equal((await server.request('GET', '/readyz')).status, 200);
      await expectCanary();
    });

    test('a flood of 4,000 requests, 200 at a time, half of them real reads, never stops /livez from answering', async () => {
      const small = corpus().filter((c) => !c.closes && c.bytes.length < 10_000);
      // One OpenAPI document among the reads, of one group: /openapi/v2 holds every kind's (840 KB, and more with
      // each kind or definition added), which would make the answers' times measure the contract's size.
      const reads: HostileCase[] = ['/openapi/v3/apis/networking.orch.io/v1', `/api/v1/namespaces/${NS}/configmaps`, '/api/v1/namespaces', '/apis'].map((path) => ({
        name: `GET ${path}`,
        bytes: rawRequest('GET', path, { token: TOKEN }),
        expect: [200],
      }));
      const flood = Array.from({ length: 4000 }, (_, i) => (i % 2 ? small[i % small.length] : reads[(i / 2) % reads.length]));
      let flooding = true;
      const probes: number[] = [];
      const probing = (async () => {
        while (flooding) {
          const started = performance.now();
          const result = await rawExchange(server.port, server.ca, rawRequest('GET', '/livez'), { responses: 1, waitMs: 10_000 });
          assert.equal(result.responses[0]?.status, 200, `/livez: ${result.error ?? result.responses[0]?.text}`);
          probes.push(performance.now() - started);
          await sleep(100);
        }
      })();
      await pool(flood, 200, async (c) => void (await sendCase(c)));
      flooding = false;
      await probing;
      assert.ok(probes.length > 0);
      console.log(`flood on ${backend}: ${probes.length} /livez probes, slowest ${Math.round(Math.max(...probes))} ms`);
    });

    if (backend === 'etcd3') {
      for (const fault of ['freeze', 'kill'] as const) {
        test(`etcd ${fault === 'freeze' ? 'frozen with SIGSTOP' : 'killed with SIGKILL'} under load: bounded answers, cache reads served, probes fail fast, nothing acknowledged lost`, async () => {
          await storeFaultPhase(fault);
        });
      }
    }

    test('afterwards: /readyz 200, the canary and its namespace intact', async () => {
      const deadline = Date.now() + 15_000;
      while ((await server.request('GET', '/readyz')).status !== 200) {
        assert.ok(Date.now() < deadline, 'ready again within 15 s');
        await sleep(200);
      }
      await expectCanary();
      const policy = await server.request('GET', `/apis/networking.orch.io/v1/namespaces/${CANARY}/networkpolicies/canary`);
      assert.equal(policy.status, 200);
    });

    /**
     * Valid writes and reads, the hostile corpus and health probes run while etcd
     * is frozen (SIGSTOP, then SIGCONT) or killed (SIGKILL, then restarted on
     * the same data), with a watch open throughout.
     */
    async function storeFaultPhase(fault: 'freeze' | 'kill'): Promise<void> {
      const phase = fault === 'freeze' ? 1 : 2;
      const list = await call('GET', `/api/v1/namespaces/${WRITES}/configmaps`);
      assert.equal(list.status, 200);
      const startRv = list.body.metadata.resourceVersion;
      const watch = openWatch(server, `/api/v1/namespaces/${WRITES}/configmaps?watch=1&resourceVersion=${startRv}`, TOKEN);

      const acknowledged = new Map<string, string>();
      const unknown = new Map<string, string>();
      let faulty = false;
      let faultEndedAt = 0;
      let firstWriteAfter = 0;
      let running = true;
      const probes: Array<{ path: string; status: number; ms: number; during: boolean; text: string }> = [];
      const problems: string[] = [];
      const storeFaultCodes = [500, 504];

      const writer = async (id: number) => {
        for (let i = 0; running; i++) {
          const name = `w-${phase}-${id * 10_000 + i}`;
          const res = await call('POST', `/api/v1/namespaces/${WRITES}/configmaps`, { metadata: { name }, data: { n: name } });
          if (res.status === 201) {
            acknowledged.set(name, name);
            if (faultEndedAt && !firstWriteAfter) firstWriteAfter = performance.now();
          } else if (storeFaultCodes.includes(res.status)) unknown.set(name, name);
          else problems.push(`POST ${name}: ${res.status} ${res.text.slice(0, 200)}`);
          if (res.ms > REQUEST_TIMEOUT_MS + SLACK_MS) problems.push(`POST ${name} took ${Math.round(res.ms)} ms`);
          await sleep(20);
        }
      };
      const cacheReader = async () => {
        while (running) {
          const res = await call('GET', `/api/v1/namespaces/${NS}/configmaps/cm1?resourceVersion=0`);
          if (res.status !== 200) problems.push(`GET resourceVersion=0 during the ${fault}: ${res.status} ${res.text.slice(0, 200)}`);
          await sleep(50);
        }
      };
      const consistentReader = async () => {
        while (running) {
          const res = await call('GET', `/api/v1/namespaces/${NS}/configmaps`);
          if (res.status !== 200 && !(faulty && storeFaultCodes.includes(res.status))) problems.push(`consistent list: ${res.status} ${res.text.slice(0, 200)}`);
          if (res.ms > REQUEST_TIMEOUT_MS + SLACK_MS) problems.push(`consistent list took ${Math.round(res.ms)} ms`);
          await sleep(50);
        }
      };
      const hostile = async () => {
        const cases = corpus().filter((c) => c.bytes.length < 10_000);
        for (let i = 0; running; i++) {
          const c = cases[i % cases.length];
          await sendCase(c, [...c.expect, ...storeFaultCodes]).catch((err) => problems.push(String(err)));
        }
      };
      const prober = async () => {
        while (running) {
          for (const path of ['/livez', '/readyz']) {
            const started = performance.now();
            const result = await rawExchange(server.port, server.ca, rawRequest('GET', `${path}?verbose`), { responses: 1, waitMs: 10_000 });
            const res = result.responses[0];
            probes.push({ path, status: res?.status ?? 0, ms: performance.now() - started, during: faulty, text: res?.text ?? result.error ?? '' });
          }
          await sleep(250);
        }
      };

      const workers = [writer(0), writer(1), writer(2), cacheReader(), consistentReader(), hostile(), hostile(), prober()];
      await sleep(1500);
      const faultStarted = performance.now();
      if (fault === 'freeze') etcd!.process.kill('SIGSTOP');
      else etcd!.process.kill('SIGKILL');
      faulty = true;
      await sleep(6000);
      if (fault === 'freeze') etcd!.process.kill('SIGCONT');
      else await etcd!.restart();
      faultEndedAt = performance.now();
      // Answers to requests sent during the fault may still come; only later ones must be whole again.
      await sleep(REQUEST_TIMEOUT_MS + 500);
      faulty = false;
      const recoveryDeadline = performance.now() + 15_000;
      while (!firstWriteAfter && performance.now() < recoveryDeadline) await sleep(100);
      await sleep(2000);
      running = false;
      await Promise.all(workers);

      assert.deepEqual(problems, []);
      assert.ok(firstWriteAfter, 'writes succeed again after the fault');
      const recoveryMs = firstWriteAfter - faultEndedAt;
      const duringProbes = probes.filter((p) => p.during);
      assert.ok(duringProbes.some((p) => p.status === 500 && p.text.includes('[-]etcd failed: reason withheld')), `a probe reported etcd failed: ${JSON.stringify(duringProbes.slice(0, 4))}`);
      for (const p of duringProbes) assert.ok(p.ms < 2500, `${p.path} answered after ${Math.round(p.ms)} ms during the ${fault}`);

      // Nothing acknowledged is lost; writes with an unknown outcome are whole or absent.
      for (const name of acknowledged.keys()) {
        const res = await server.request('GET', `/api/v1/namespaces/${WRITES}/configmaps/${name}`);
        assert.equal(res.status, 200, `acknowledged ${name} is there`);
        assert.deepEqual(res.body.data, { n: name });
      }
      let appliedAnyway = 0;
      for (const name of unknown.keys()) {
        const res = await server.request('GET', `/api/v1/namespaces/${WRITES}/configmaps/${name}`);
        assert.ok(res.status === 200 || res.status === 404, `${name}: ${res.status}`);
        if (res.status === 200) {
          appliedAnyway++;
          assert.deepEqual(res.body.data, { n: name });
        }
      }

      // The watch saw every acknowledged write once, in order, on its own or resumed from its last resourceVersion.
      const deadline = Date.now() + 10_000;
      const added = () => new Set(watch.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name));
      const seen: any[] = [];
      const streamEnded = await Promise.race([watch.ended.then(() => true), sleep(1000).then(() => false)]);
      if (streamEnded) {
        const lastRv = [...watch.events].reverse().find((e) => e.object?.metadata?.resourceVersion)?.object.metadata.resourceVersion ?? startRv;
        const resumed = openWatch(server, `/api/v1/namespaces/${WRITES}/configmaps?watch=1&resourceVersion=${lastRv}`, TOKEN);
        while ([...acknowledged.keys()].some((n) => !added().has(n) && !resumed.events.some((e) => e.object?.metadata?.name === n)) && Date.now() < deadline) await sleep(100);
        resumed.close();
        seen.push(...watch.events, ...resumed.events);
      } else {
        while ([...acknowledged.keys()].some((n) => !added().has(n)) && Date.now() < deadline) await sleep(100);
        watch.close();
        seen.push(...watch.events);
      }
      const adds = seen.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name);
      for (const name of acknowledged.keys()) assert.equal(adds.filter((n) => n === name).length, 1, `${name} was added once in the watch`);
      const revisions = seen.filter((e) => e.type !== 'ERROR').map((e) => Number(e.object.metadata.resourceVersion));
      assert.deepEqual(revisions, [...revisions].sort((a, b) => a - b), 'in revision order');

      const during = duringProbes.map((p) => `${p.path} ${p.status} in ${Math.round(p.ms)} ms`);
      console.log(
        `etcd ${fault} on ${backend}: ${acknowledged.size} writes acknowledged, ${unknown.size} answered 5xx (${appliedAnyway} of them applied after all), ` +
          `writes back ${Math.round(recoveryMs)} ms after etcd returned (fault lasted ${Math.round(faultEndedAt - faultStarted)} ms); ` +
          `probes during the fault: ${during.slice(0, 6).join(', ')}${during.length > 6 ? ', ...' : ''}; watch ${streamEnded ? 'ended and was resumed' : 'stayed open'}`,
      );
    }
  });
}
