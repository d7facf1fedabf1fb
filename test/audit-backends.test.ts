/**
 * The audit backends and flags (SPEC 9.5; upstream pkg/server/options/audit.go,
 * lumberjack, plugin/pkg/audit/webhook): rotation by size with the backups
 * lumberjack names and keeps, the legacy format on standard out, a real
 * loopback HTTPS webhook receiving `audit.orch.io/v1` EventLists in batches,
 * and start-up refusing bad flags and policy files with upstream's words.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { writeOrchconfig } from './helpers/authz-webhook.ts';
import { eventually } from './helpers/eventually.ts';
import { wholeJsonLines } from './helpers/json-lines.ts';
import { issue, makeCa } from './helpers/pki.ts';
import { BIN, ROOT, startTestServer, type TestServer } from './helpers/server.ts';

const policy = (level: string) => `apiVersion: audit.orch.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: None\n  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]\n- level: ${level}\n`;

/**
 * A loopback HTTPS audit webhook that requires the server's client certificate;
 * `answer` gets each POST's URL and EventList and gives the status and the delay
 * of the answer. Returns the server and an orchconfig naming it at /audit.
 */
async function startAuditWebhook(name: string, answer: (url: string, list: any) => { code: number; delayMs: number }): Promise<{ hook: Server; config: string }> {
  const ca = makeCa(`${name}-ca`);
  const serving = issue(ca, { commonName: name }, { usages: ['serverAuth'], hosts: ['127.0.0.1'] });
  const hook = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const { code, delayMs } = answer(req.url ?? '', JSON.parse(Buffer.concat(chunks).toString()));
      setTimeout(() => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end('{}');
      }, delayMs);
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  const port = (hook.address() as AddressInfo).port;
  return { hook, config: writeOrchconfig(dir, name, `https://127.0.0.1:${port}/audit`, ca, issue(ca, { commonName: 'orch-apiserver' })) };
}

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'orch-audit-backends-'));
  writeFileSync(join(dir, 'metadata.yaml'), policy('Metadata'));
  writeFileSync(join(dir, 'full.yaml'), policy('RequestResponse'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('rotation by size', () => {
  let server: TestServer;
  const logDir = () => join(dir, 'rotated');
  before(async () => {
    server = await startTestServer([`--audit-policy-file=${join(dir, 'full.yaml')}`, `--audit-log-path=${join(logDir(), 'audit.log')}`, '--audit-log-maxsize=1', '--audit-log-maxbackup=1']);
  });
  after(() => server?.close());

  test('the file is rotated before it passes 1 MB, backups named as lumberjack names them, only --audit-log-maxbackup kept, every line whole', async () => {
    const big = 'x'.repeat(200_000);
    const created = await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'big' }, data: { big } } });
    assert.equal(created.status, 201);
    // Each get's event holds the 200 kB object once: 11 of them fill two files and then some.
    for (let i = 0; i < 11; i++) assert.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps/big')).status, 200);
    const last = await server.request('GET', '/api/v1/namespaces/default/configmaps/big');
    const lastID = String(last.headers['audit-id']);
    await eventually('the last event written', async () => (readFileSync(join(logDir(), 'audit.log'), 'utf8').includes(lastID) ? true : undefined));
    const files = await eventually('one backup left', async () => {
      const names = readdirSync(logDir()).sort();
      return names.length === 2 ? names : undefined;
    });
    assert.equal(files[1], 'audit.log');
    assert.match(files[0], /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
    for (const name of files) {
      const text = readFileSync(join(logDir(), name), 'utf8');
      assert.ok(Buffer.byteLength(text) <= 1024 * 1024, `${name} stays within --audit-log-maxsize`);
      const lines = text.split('\n');
      assert.equal(lines.pop(), '');
      for (const line of lines) assert.equal(JSON.parse(line).responseObject?.data?.big?.length ?? big.length, big.length);
    }
  });
});

describe('batch mode, truncation and compressed backups', () => {
  let server: TestServer;
  const logDir = () => join(dir, 'compressed');
  before(async () => {
    server = await startTestServer([
      `--audit-policy-file=${join(dir, 'full.yaml')}`,
      `--audit-log-path=${join(logDir(), 'audit.log')}`,
      '--audit-log-maxsize=1',
      '--audit-log-compress',
      '--audit-log-mode=batch',
      '--audit-log-batch-max-size=4',
      '--audit-log-batch-max-wait=100ms',
      '--audit-log-truncate-enabled',
      '--audit-log-truncate-max-event-size=300000',
    ]);
  });
  after(() => server?.close());

  test('an event over the size limit loses its objects and is marked; a rotated file is gzipped', async () => {
    for (const [name, size] of [['small', 200_000], ['large', 400_000]] as const) {
      const res = await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name }, data: { v: 'y'.repeat(size) } } });
      assert.equal(res.status, 201);
    }
    const large = await server.request('GET', '/api/v1/namespaces/default/configmaps/large');
    const largeID = String(large.headers['audit-id']);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(String((await server.request('GET', '/api/v1/namespaces/default/configmaps/small')).headers['audit-id']));
    const gz = await eventually('a compressed backup', async () => readdirSync(logDir()).find((n) => /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz$/.test(n)));
    const rotated = wholeJsonLines(gunzipSync(readFileSync(join(logDir(), gz))).toString());
    const events = await eventually('every event written', async () => {
      const all = [...rotated, ...wholeJsonLines(readFileSync(join(logDir(), 'audit.log'), 'utf8'))];
      return [largeID, ...ids].every((id) => all.some((e) => e.auditID === id)) ? all : undefined;
    });
    const truncated = events.find((e) => e.auditID === largeID);
    assert.equal(truncated.annotations['audit.orch.io/truncated'], 'true');
    assert.equal(truncated.responseObject, undefined);
    const kept = events.find((e) => e.auditID === ids[0]);
    assert.equal(kept.responseObject.data.v.length, 200_000);
    assert.equal(kept.annotations['audit.orch.io/truncated'], undefined);
  });
});

describe('standard out in the legacy format, and the webhook', () => {
  let server: TestServer;
  let hook: Server;
  const batches: any[] = [];
  before(async () => {
    let config: string;
    ({ hook, config } = await startAuditWebhook('audit-webhook', (url, body) => {
      batches.push({ url, body });
      return { code: 200, delayMs: 0 };
    }));
    server = await startTestServer([
      `--audit-policy-file=${join(dir, 'metadata.yaml')}`,
      '--audit-log-path=-',
      '--audit-log-format=legacy',
      `--audit-webhook-config-file=${config}`,
      '--audit-webhook-batch-max-size=3',
      '--audit-webhook-batch-max-wait=500ms',
    ]);
  });
  after(async () => {
    await server?.close();
    await new Promise((r) => hook?.close(r));
  });

  test('one legacy line per event on standard out', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default', { headers: { 'user-agent': 'legacy-test' } });
    const id = String(res.headers['audit-id']);
    const line = await eventually('the legacy line', async () => server.output().split('\n').find((l) => l.includes(id)));
    assert.match(
      line,
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z AUDIT: id="${id}" stage="ResponseComplete" ip="127.0.0.1" method="get" user="orch-admin" ` +
          'groups="\\\\"system:masters\\\\",\\\\"system:authenticated\\\\"" as="<self>" asgroups="<lookup>" user-agent="legacy-test" namespace="default" uri="/api/v1/namespaces/default" response="200"$',
      ),
    );
  });

  test('the webhook receives audit.orch.io/v1 EventLists of at most --audit-webhook-batch-max-size events', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(String((await server.request('GET', `/api/v1/namespaces/default/pods?limit=${i + 1}`)).headers['audit-id']));
    const received = () => batches.flatMap((b) => b.body.items.map((e: any) => e.auditID));
    await eventually('every event delivered', async () => (ids.every((id) => received().includes(id)) ? true : undefined));
    for (const batch of batches) {
      assert.equal(batch.body.kind, 'EventList');
      assert.equal(batch.body.apiVersion, 'audit.orch.io/v1');
      assert.ok(batch.body.items.length >= 1 && batch.body.items.length <= 3, `a batch of ${batch.body.items.length}`);
      assert.match(batch.url, /^\/audit\?timeout=30s$/);
      for (const item of batch.body.items) assert.equal(item.apiVersion, 'audit.orch.io/v1');
    }
    const event = batches.flatMap((b) => b.body.items).find((e: any) => e.auditID === ids[6]);
    assert.equal(event.requestURI, '/api/v1/namespaces/default/pods?limit=7');
    assert.equal(event.stage, 'ResponseComplete');
  });
});

describe('a blocking-strict webhook', () => {
  let server: TestServer;
  let hook: Server;
  const received: Array<{ stage: string; agent: string }> = [];
  before(async () => {
    let config: string;
    ({ hook, config } = await startAuditWebhook('strict-webhook', (_url, list) => {
      for (const e of list.items) received.push({ stage: e.stage, agent: e.userAgent });
      // Refused at once, or taken after 300 ms: a blocking webhook holds the request that long.
      return list.items.some((e: any) => e.userAgent === 'refused-by-webhook') ? { code: 500, delayMs: 0 } : { code: 200, delayMs: 300 };
    }));
    writeFileSync(join(dir, 'received-only.yaml'), 'apiVersion: audit.orch.io/v1\nkind: Policy\nomitStages: [ResponseComplete]\nrules:\n- level: Metadata\n  verbs: [get]\n');
    // One process, so the refused request is the primary's own and its five tries are counted at one client.
    server = await startTestServer(['--workers=1', `--audit-policy-file=${join(dir, 'received-only.yaml')}`, `--audit-webhook-config-file=${config}`, '--audit-webhook-mode=blocking-strict', '--audit-webhook-initial-backoff=10ms']);
  });
  after(async () => {
    await server?.close();
    await new Promise((r) => hook?.close(r));
  });

  test('the request waits for the webhook to take RequestReceived, and fails when it cannot', async () => {
    const started = Date.now();
    const ok = await server.request('GET', '/api/v1/namespaces/default', { headers: { 'user-agent': 'held' } });
    assert.equal(ok.status, 200);
    assert.ok(Date.now() - started >= 300, 'held until the webhook answered');
    assert.deepEqual(received.filter((r) => r.agent === 'held').map((r) => r.stage), ['RequestReceived']);
    const refused = await server.request('GET', '/api/v1/namespaces/default', { headers: { 'user-agent': 'refused-by-webhook' } });
    assert.equal(refused.status, 500);
    assert.match(refused.body.message, /failed to store audit event/);
    assert.equal(received.filter((r) => r.agent === 'refused-by-webhook').length, 5, "upstream's five tries");
  });
});

describe('blocking modes in every process', () => {
  let server: TestServer;
  let hook: Server;
  const logPath = () => join(dir, 'blocking', 'audit.log');
  const received: Array<{ id: string; stage: string }> = [];
  before(async () => {
    let config: string;
    ({ hook, config } = await startAuditWebhook('blocking-webhook', (_url, list) => {
      for (const e of list.items) received.push({ id: e.auditID, stage: e.stage });
      return { code: 200, delayMs: 50 };
    }));
    // Two processes (the tests' default): a worker's events are stored by the primary, and its requests wait for that too.
    writeFileSync(join(dir, 'all-stages.yaml'), 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  verbs: [get]\n');
    server = await startTestServer([`--audit-policy-file=${join(dir, 'all-stages.yaml')}`, `--audit-log-path=${logPath()}`, `--audit-webhook-config-file=${config}`, '--audit-webhook-mode=blocking']);
  });
  after(async () => {
    await server?.close();
    await new Promise((r) => hook?.close(r));
  });

  test('an answer ends only once its RequestReceived and ResponseComplete are in the log and taken by the webhook', async () => {
    for (let i = 0; i < 8; i++) {
      const res = await server.request('GET', '/api/v1/namespaces/default', { headers: { 'user-agent': `blocking-${i}` } });
      assert.equal(res.status, 200);
      const id = String(res.headers['audit-id']);
      // Read at once, no waiting: the events were stored before the answer's last byte left.
      const logged = readFileSync(logPath(), 'utf8').split('\n').filter((l) => l.includes(id)).map((l) => JSON.parse(l));
      assert.deepEqual(logged.map((e) => [e.stage, e.responseStatus?.code]), [['RequestReceived', undefined], ['ResponseComplete', 200]], `request ${i}`);
      assert.deepEqual(received.filter((r) => r.id === id).map((r) => r.stage), ['RequestReceived', 'ResponseComplete'], `request ${i} at the webhook`);
    }
  });
});

/** Runs the server binary with `args` and returns its exit code and output, for flags refused at start. */
function startFailure(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, '--data-dir', join(dir, 'refused'), '--secure-port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

test('bad audit flags stop the start with upstream\'s messages', async () => {
  const log = `--audit-log-path=${join(dir, 'x.log')}`;
  const cases: Array<[string[], string]> = [
    [[log, '--audit-log-mode=later'], 'Error: invalid audit log mode later, allowed modes are "batch,blocking,blocking-strict"'],
    [[log, '--audit-log-format=xml'], 'Error: invalid audit log format xml, allowed formats are "legacy,json"'],
    [[log, '--audit-log-maxage=-1', '--audit-log-maxsize=-2'], "Error: [--audit-log-maxage -1 can't be a negative number, --audit-log-maxsize -2 can't be a negative number]"],
    [[log, '--audit-log-mode=batch', '--audit-log-batch-buffer-size=0'], 'Error: invalid audit batch log buffer size 0, must be a positive number'],
    [[log, '--audit-log-version=audit.orch.io/v1beta1'], 'Error: invalid group version, allowed versions are "[audit.orch.io/v1]"'],
    [[log, '--audit-log-truncate-max-event-size=10', '--audit-log-truncate-max-batch-size=5'], 'Error: invalid audit truncate log max batch size 5, must be greater than max event size (10)'],
    [['--audit-webhook-config-file=/x', '--audit-webhook-batch-throttle-qps=0'], 'Error: invalid audit batch webhook throttle QPS 0, must be a positive number'],
    [['--audit-log-maxbackup=many'], 'Error: invalid argument "many" for "--audit-log-maxbackup" flag: strconv.ParseInt: parsing "many": invalid syntax'],
  ];
  for (const [args, message] of cases) {
    const { code, output } = await startFailure(args);
    assert.equal(code, 2, output);
    assert.equal(output.split('\n')[0], message);
  }
});

test('a bad policy file stops the start: "loading audit policy file: ..."', async () => {
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Everything\n');
  const { code, output } = await startFailure([`--audit-policy-file=${bad}`, `--audit-log-path=${join(dir, 'y.log')}`]);
  assert.equal(code, 1);
  assert.match(output, new RegExp(`Error: loading audit policy file: rules\\[0\\]\\.level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse": from file ${bad.replace(/[.]/g, '\\.')}`));
  const missing = await startFailure([`--audit-policy-file=${join(dir, 'absent.yaml')}`, `--audit-log-path=${join(dir, 'y.log')}`]);
  assert.equal(missing.code, 1);
  assert.match(missing.output, /Error: loading audit policy file: failed to read file path ".*absent\.yaml"/);
});
