/** The Markdown report of scripts/bench.ts (stdout). */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import type { Options } from './args.ts';
import type { Measurement } from './autocannon.ts';
import { listRuns } from './list-targets.ts';
import type { BackendResult } from './load-backend.ts';
import { bytes, fmt, int, percentile, ratio } from './util.ts';
import { watchRows } from './report-watch.ts';
import { goalTables } from './report-goals.ts';
import { SERVER_NODE_ARGS, SERVER_ARGS } from './orch.ts';

const ms = (n: number | undefined) => fmt(n, 2);
const ORDER = ['http', 'https', 'get', 'get-rbac', 'create', 'create-floor', 'update', ...['', '-1'].flatMap((s) => ['raw-list', 'raw-table', 'list', 'paged', 'table'].map((k) => k + s))];

function targetTable(r: BackendResult): string[] {
  const https = r.measurements.get('https')?.rps;
  const http = r.measurements.get('http')?.rps;
  const lines = [
    '| target | tool | req/s | p50 (ms) | p99 (ms) | responses | errors | bad status | bytes/resp | server CPU cores | vs raw https | vs raw http |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const key of ORDER) {
    const m = r.measurements.get(key);
    if (!m) continue;
    lines.push(
      `| ${m.label} | ${m.tool} | ${fmt(m.rps)} | ${ms(m.p50)} | ${ms(m.p99)} | ${int(m.responses)} | ${m.errors} | ${m.bad} | ${bytes(m.bytesPerResponse)} | ${m.serverCores === undefined ? '—' : fmt(m.serverCores, 2)} | ${ratio(m.rps, https)} | ${ratio(m.rps, http)} |`,
    );
  }
  return lines;
}

function count(m: Measurement, cls: string): number {
  return m.byClass.get(cls)?.length ?? 0;
}

function updateRows(results: BackendResult[]): string[] {
  const rows = results.filter((r) => r.measurements.has('update'));
  if (!rows.length) return [];
  const lines = [
    '| backend | successful updates/s | conflicts (409)/s | conflict rate | re-reads (GET)/s | other statuses | PUT 200 p50 / p99 (ms) | PUT 409 p50 / p99 (ms) | lost updates | updates/s vs raw https |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const m = r.measurements.get('update')!;
    const ok = count(m, 'PUT 200');
    const conflicts = count(m, 'PUT 409');
    const reads = [...m.byClass].filter(([k]) => k.startsWith('GET')).reduce((n, [, v]) => n + v.length, 0);
    const other = [...m.byClass].filter(([k]) => k !== 'PUT 200' && k !== 'PUT 409' && k !== 'GET 200').map(([k, v]) => `${k}: ${v.length}`);
    const p = (cls: string) => `${ms(percentile(m.byClass.get(cls) ?? [], 50))} / ${ms(percentile(m.byClass.get(cls) ?? [], 99))}`;
    lines.push(
      `| ${r.backend} | ${fmt(ok / m.durationS)} | ${fmt(conflicts / m.durationS)} | ${fmt((100 * conflicts) / Math.max(1, ok + conflicts))} % | ${fmt(reads / m.durationS)} | ${other.join(', ') || '0'} | ${p('PUT 200')} | ${p('PUT 409')} | ${r.update?.lostUpdates ?? 'n/a'} | ${ratio(ok / m.durationS, r.measurements.get('https')?.rps)} |`,
    );
  }
  return lines;
}

function listRows(results: BackendResult[], o: Options): string[] {
  const rows = results.filter((r) => r.measurements.has('list') || r.measurements.has('paged') || r.measurements.has('table'));
  if (!rows.length) return [];
  const pages = Math.ceil(o.listSize / o.pageSize);
  const lines = [
    `| backend | mode | lists/s | pages/s | p50 (ms) | p99 (ms) | MiB/s | errors + bad | items/s vs raw https req/s |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const mibs = (m: Measurement) => fmt((m.rps * m.bytesPerResponse) / 1024 / 1024);
  for (const r of rows) {
    const https = r.measurements.get('https')?.rps;
    const whole = (mode: string, key: string, items: boolean) => {
      const m = r.measurements.get(key);
      if (m) lines.push(`| ${r.backend} | ${mode} | ${fmt(m.rps, 2)} | — | ${ms(m.p50)} | ${ms(m.p99)} | ${mibs(m)} | ${m.errors + m.bad} | ${items ? ratio(m.rps * o.listSize, https) : '—'} |`);
    };
    for (const run of listRuns(o)) {
      const s = run.suffix;
      whole(`raw https, the full list's bytes, ${run.name}`, `raw-list${s}`, false);
      whole(`full, no limit, ${run.name}`, `list${s}`, true);
      const paged = r.measurements.get(`paged${s}`);
      const stats = r.paged?.get(`paged${s}`);
      if (paged && stats) {
        const walks = stats.walks.sorted();
        lines.push(
          `| ${r.backend} | page (limit=${o.pageSize}), ${run.name} | — | ${fmt(paged.rps)} | ${ms(paged.p50)} | ${ms(paged.p99)} | ${mibs(paged)} | ${paged.errors + paged.bad} | ${ratio((paged.rps * o.listSize) / pages, https)} |`,
          `| ${r.backend} | full walk (${pages} pages), ${run.name} | ${fmt(walks.length / paged.durationS, 2)} | — | ${ms(percentile(walks, 50))} | ${ms(percentile(walks, 99))} | — | ${stats.badWalks} bad walks | — |`,
        );
      }
      whole(`raw https, the Table's bytes, ${run.name}`, `raw-table${s}`, false);
      whole(`as Table, no limit, ${run.name}`, `table${s}`, true);
    }
  }
  return lines;
}

/** Backends side by side: each orch target's rate and its ratio to that backend's raw https baseline. */
function summaryRows(results: BackendResult[]): string[] {
  const rows = results.filter((r) => r.measurements.has('https'));
  if (rows.length < 2) return [];
  const lines = [
    `| target | ${rows.map((r) => `${r.backend} /s | ${r.backend} vs raw https`).join(' | ')} |`,
    `|---|${rows.map(() => '---:|---:').join('|')}|`,
  ];
  const rate = (r: BackendResult, key: string) => {
    const m = r.measurements.get(key);
    if (!m) return undefined;
    return key === 'update' ? count(m, 'PUT 200') / m.durationS : m.rps;
  };
  const labels: Record<string, string> = { http: 'raw node:http GET', get: 'GET NetworkPolicy', create: 'CREATE', update: 'UPDATE (successful, with conflicts)', list: 'LIST full (lists)', paged: 'LIST paged (pages)', table: 'LIST as Table (lists)' };
  for (const key of ['http', 'get', 'create', 'update', 'list', 'paged', 'table']) {
    if (!rows.some((r) => r.measurements.has(key))) continue;
    lines.push(`| ${labels[key]} | ${rows.map((r) => `${fmt(rate(r, key), key === 'list' || key === 'table' ? 2 : 1)} | ${ratio(rate(r, key), r.measurements.get('https')?.rps)}`).join(' | ')} |`);
  }
  return ['### Backends side by side', '', ...lines, ''];
}

function notes(r: BackendResult): string[] {
  const out: string[] = [];
  const masters = r.measurements.get('get');
  const rbac = r.measurements.get('get-rbac');
  if (masters && rbac) {
    out.push(
      `- ${r.backend}, RBAC's cost: GET as a user bound through a RoleBinding ${fmt(rbac.rps)} req/s, p50 ${ms(rbac.p50)} ms, vs as system:masters ${fmt(masters.rps)} req/s, p50 ${ms(masters.p50)} ms: ${ratio(rbac.rps, masters.rps)} of the rate`,
    );
  }
  for (const m of r.measurements.values()) {
    if (m.bad || m.errors) {
      out.push(`- ${r.backend}, ${m.label}: status counts ${JSON.stringify(m.statuses)}${m.errors ? `, ${m.errors} connection errors/timeouts` : ''}`);
      for (const s of m.samples) out.push(`  - ${s.replace(/\s+/g, ' ')}`);
      for (const e of m.errorSamples) out.push(`  - error: ${e}`);
    }
  }
  for (const [key, stats] of r.paged ?? []) for (const s of stats.badSamples) out.push(`- ${r.backend}, ${r.measurements.get(key)?.label ?? key}: ${s.replace(/\s+/g, ' ')}`);
  const w = r.watch;
  if (w) {
    const bad = Object.entries(w.writeStatuses).filter(([k]) => k !== '200');
    if (bad.length) out.push(`- ${r.backend}, watch writer: statuses ${JSON.stringify(w.writeStatuses)}`, ...w.writeSamples.map((s) => `  - ${s.replace(/\s+/g, ' ')}`));
    if (w.connectFailed) out.push(`- ${r.backend}, watch: ${w.connectFailed} watchers failed to connect: ${w.connectSamples.join(' | ')}`);
    if (w.merged.closedEarly) out.push(`- ${r.backend}, watch: streams closed early: ${JSON.stringify(w.merged.closeReasons)}; first at ${fmt(w.merged.firstCloseMs, 0)} ms into the writes`);
    const types = Object.entries(w.merged.types).filter(([k]) => k !== 'MODIFIED');
    if (types.length || w.merged.badLines) out.push(`- ${r.backend}, watch: event types other than MODIFIED: ${JSON.stringify(Object.fromEntries(types))}; unparsable lines: ${w.merged.badLines}`);
    for (const s of w.merged.errorSamples.slice(0, 3)) out.push(`  - ${s}`);
    if (w.probe.missing || w.probe.closed) out.push(`- ${r.backend}, watch probe: missed ${w.probe.missing} writes${w.probe.closed ? `; ${w.probe.closed}` : ''}`);
    if (w.clockSkewMs) out.push(`- ${r.backend}, watch: the watcher processes' clock differed by ${fmt(w.clockSkewMs, 3)} ms from the writer's`);
  }
  if (r.watchError) out.push(`- ${r.backend}, **watch failed**: ${r.watchError}`);
  if (r.aborted) out.push(`- **${r.backend}: run aborted: ${r.aborted}**`);
  return out;
}

/** HEAD's short commit, with "+changes" when src/ has uncommitted changes. */
function revision(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return `commit ${head}${dirty ? ' + uncommitted changes in src/' : ''}`;
  } catch {
    return 'commit unknown';
  }
}

/** Taken when the run starts: others may commit while it runs. */
export const REVISION = revision();

export function report(results: BackendResult[], o: Options): string {
  const out: string[] = ['## orch-apiserver benchmark', ''];
  out.push(
    `${REVISION} at the start; node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}; loopback. ` +
      `wrk (${o.threads} threads) for GET, CREATE, the LISTs and the raw baselines (on CPU ${o.clientCpu ?? 'any'} in the one core vs all cores runs, unpinned elsewhere; the LISTs at their own connections); autocannon for UPDATE; ${o.connections} connections, ${o.duration} s per target after ${o.warmup} s warm-up` +
      (o.only.has('list') ? `; LIST of ${int(o.listSize)} NetworkPolicies` : '') +
      (o.only.has('watch') ? `; watch: ${o.watchers} watchers in ${o.watchProcs} processes, writes at ${o.watchRates.join(' then ')}/s for ${o.watchPhaseSeconds} s each` : '') +
      '.' +
      (SERVER_NODE_ARGS.length ? ` The servers ran with \`${SERVER_NODE_ARGS.join(' ')}\` (BENCH_SERVER_NODE_ARGS): the figures include its cost.` : '') +
      (SERVER_ARGS.length ? ` Every orch server was given \`${SERVER_ARGS.join(' ')}\` (BENCH_SERVER_ARGS).` : ''),
    '',
  );
  out.push(...goalTables(results, o));
  for (const r of results) {
    if (r.skipped) out.push(`### ${r.backend}`, '', `skipped: ${r.skipped}`, '');
    else if (r.measurements.size) out.push(`### ${r.backend}: every target`, '', ...targetTable(r), '');
  }
  out.push(...summaryRows(results));
  const upd = updateRows(results);
  if (upd.length) out.push('### UPDATE with conflicts', '', ...upd, '');
  const list = listRows(results, o);
  if (list.length) out.push(`### LIST ${int(o.listSize)}`, '', ...list, '');
  const watch = watchRows(results);
  if (watch.length) out.push('### WATCH fan-out', '', ...watch, '');
  const ran = results.filter((r) => !r.skipped);
  out.push(
    '### Server',
    '',
    '| backend | spawn → first 200 on /readyz (ms) | spawn → "serving on" (ms) | RSS after start-up | peak RSS (VmHWM) | etcd peak RSS | fixture creates/s | full LIST body | as Table |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...ran.map(
      (r) =>
        `| ${r.backend} | ${fmt(r.readyMs)} | ${fmt(r.servingLineMs)} | ${bytes(r.idleRss)} | ${bytes(r.peakRss)} | ${r.etcdPeakRss !== undefined ? bytes(r.etcdPeakRss) : '—'} | ${r.listCreate ? `${fmt((r.listCreate.count * 1000) / r.listCreate.ms, 0)} (${int(r.listCreate.count)} in ${fmt(r.listCreate.ms / 1000, 1)} s)` : '—'} | ${r.listCreate ? bytes(r.listCreate.listBytes) : '—'} | ${r.listCreate ? bytes(r.listCreate.tableBytes) : '—'} |`,
    ),
    '',
  );
  const has = (key: string) => ran.some((r) => r.measurements.has(key));
  if (has('https')) {
    out.push(
      "- errors = connection errors + timeouts; bad status = responses other than the expected status (UPDATE: 200 or 409; CREATE: 201; wrk's GETs: any status other than 2xx/3xx). server CPU cores = CPU time of the server's process tree over the measured run ÷ its length (wrk targets). Ratios are req/s over the raw baseline's req/s measured just before that backend's targets, in the same run.",
      `- the baselines serve the bytes of the orch GET response (${bytes(ran.find((r) => r.getBytes)?.getBytes)}) with the orch serving certificate, from their own process.`,
      '- the create floor (bench/create-floor.ts, in the baselines\' process, one process) takes the same POSTs and does only what any durable create must: parse the body, add a uid and a timestamp, serialize, insert into a SQLite file in a group commit with an fsync before answering 201 with the object; no authentication, typed decode, validation, admission, managedFields or watch cache. It bounds what the create line can reach on this machine.',
    );
  }
  if (has('update')) out.push('- UPDATE: each connection sticks to one object, PUTs it with the resourceVersion it last saw and re-reads it (GET) after a 409; a lost update is a second successful PUT from the same resourceVersion of an object.');
  if (has('paged')) {
    out.push(
      `- LIST (full, paged and as Table): each at ${o.listConnections} connections, then at one (one list at a time: a list's own latency, no wait behind other connections' lists). Paged: each connection walks every page with continue tokens and checks that a walk returns all ${int(o.listSize)} items; a walk's time is the sum of its page response times; only walks begun and finished in the measured run count. ` +
        "The \"raw https\" rows: a bare node:https server answering with the exact bytes of orch's full-list and Table responses (with content-length, orch's certificate), measured at the same connections just before orch's LISTs; they bound what the client and TLS allow on this machine.",
    );
  }
  if (ran.some((r) => r.watch)) {
    out.push(
      "- WATCH delay after the response = arrival of the event at a watcher − arrival of the write's response at the writer; after the write was sent = arrival − the moment the writer sent the PUT (what issue 10's table reports); both on CLOCK_MONOTONIC shared by the processes (negative when the event arrives first). \"events delivered\" counts distinct (watcher, write) pairs; \"missing at the end\" counts those not arrived when the drain ended. The probe is one extra watcher in the writer's lightly loaded process (connected before the others): when its delays are far below the watchers', the watcher processes (CPU-bound parsing on a shared machine) account for the difference; when they are close, the delay is the server's. The watcher processes' event-loop delay bounds how late they can notice an arrival.",
    );
  }
  for (const r of ran) out.push(...notes(r));
  for (const r of ran) {
    const log = r.serverLog.trim();
    if (log) {
      const lines = log.split('\n');
      out.push('', `${r.backend}: orch server output after start-up (${lines.length} lines${lines.length > 40 ? ', last 40 shown' : ''}):`, '```', ...lines.slice(-40), '```');
    }
  }
  return out.join('\n') + '\n';
}
