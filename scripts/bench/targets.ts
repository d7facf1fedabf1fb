/**
 * The autocannon targets, those that need per-request scripting or few
 * connections: UPDATE with conflicts, full LIST, LIST as Table, and paged LIST
 * (a "request" of which is a walk over every page), each LIST at
 * --list-connections and at one client, and the LISTs' raw baselines. The GET
 * and CREATE targets and their raw baselines run on wrk (wrk-targets.ts).
 */
import type { Options } from './args.ts';
import { persistentContext, type AcContext, type Target } from './autocannon.ts';
import { NP_PATH } from './orch.ts';
import { Samples } from './util.ts';
import { authHeaders, type OrchEndpoint } from './wrk-targets.ts';

/**
 * UPDATE with conflicts: each connection sticks to one of `names` (round
 * robin), reads it once, then PUTs it with the resourceVersion it last saw:
 * the one from its last successful PUT, or after a 409 from a fresh GET.
 * Response times are filed under "PUT 200", "PUT 409", "GET 200", ….
 * Two successful PUTs from the same resourceVersion of one object are a lost update.
 */
export function updateTarget(o: OrchEndpoint, ns: string, names: string[], connections: number): { target: Target; stats: UpdateStats } {
  const stats: UpdateStats = { lostUpdates: 0 };
  const succeeded = new Set<string>();
  let nextName = 0;
  let seq = 0;
  let last: AcContext | undefined;
  let lastStatus = 0;
  const target: Target = {
    key: 'update',
    label: `UPDATE with conflicts (${names.length} objects)`,
    url: o.url,
    request: {
      // Fresh headers each time: autocannon writes Content-Length into the headers object it is
      // given and carries it over to the next request, which would give a GET a PUT's length.
      setupRequest(req, ctx) {
        ctx.name ??= names[nextName++ % names.length];
        const path = `${NP_PATH(ns)}/${ctx.name}`;
        if (!ctx.obj) {
          ctx.method = 'GET';
          return { ...req, method: 'GET', path, headers: authHeaders(o), body: undefined };
        }
        ctx.method = 'PUT';
        ctx.sentRv = ctx.obj.metadata.resourceVersion;
        ctx.obj.metadata.labels = { ...ctx.obj.metadata.labels, 'bench-seq': String(++seq) };
        return { ...req, method: 'PUT', path, headers: { ...authHeaders(o), 'content-type': 'application/json' }, body: JSON.stringify(ctx.obj) };
      },
      onResponse(status, body, ctx) {
        last = ctx;
        lastStatus = status;
        if (ctx.method === 'PUT' && status === 200) {
          const key = `${ctx.name}@${ctx.sentRv}`;
          if (succeeded.has(key)) stats.lostUpdates++;
          succeeded.add(key);
        }
        // Keep what the server returned (it carries the new resourceVersion); re-read after anything else.
        ctx.obj = status === 200 ? JSON.parse(body) : undefined;
      },
    },
    expect: [200, 409],
    connections,
    setupClient: persistentContext(),
    observe: () => `${last?.method} ${lastStatus}`,
  };
  return { target, stats };
}

export interface UpdateStats {
  /** PUTs that succeeded from a resourceVersion another PUT of the same object had already succeeded from. */
  lostUpdates: number;
}

export interface PagedStats {
  /** Full-walk times (sum of the page response times) of walks that started and ended in the measured run. */
  walks: Samples;
  /** Walks that ended on a non-200 page, or whose item count was not the list size. */
  badWalks: number;
  badSamples: string[];
}

const CONTINUE = /"metadata":\{[^}]*?"continue":"([^"]+)"/;

function countItems(body: string): number {
  let n = 0;
  for (let i = body.indexOf('"uid":"'); i >= 0; i = body.indexOf('"uid":"', i + 7)) n++;
  return n;
}

/**
 * Paged LIST: each connection walks the whole collection with limit/continue,
 * page after page, and starts over when a page has no continue token.
 */
export function pagedListTarget(o: OrchEndpoint, ns: string, pageSize: number, listSize: number, run: ListRun, warmup: boolean): { target: Target; stats: PagedStats } {
  const { connections } = run;
  const warmupConnections = warmup ? connections : 0;
  const stats: PagedStats = { walks: new Samples(), badWalks: 0, badSamples: [] };
  let last: AcContext | undefined;
  let lastStatus = 0;
  let lastDone = false;
  const base = `${NP_PATH(ns)}?limit=${pageSize}`;
  const target: Target = {
    key: `paged${run.suffix}`,
    label: `LIST paged (limit=${pageSize}), per page, ${run.name}`,
    url: o.url,
    request: {
      method: 'GET',
      headers: authHeaders(o),
      setupRequest(req, ctx) {
        if (!ctx.cont) {
          ctx.walkMs = 0;
          ctx.items = 0;
          ctx.firstPage = true;
        }
        return { ...req, path: ctx.cont ? `${base}&continue=${encodeURIComponent(ctx.cont)}` : base };
      },
      onResponse(status, body, ctx) {
        last = ctx;
        lastStatus = status;
        lastDone = false;
        // A connection's first request is built before its context is marked, so decide here.
        if (ctx.firstPage) ctx.walkValid = !!ctx.measured;
        ctx.firstPage = false;
        if (status !== 200) {
          if (ctx.measured) {
            stats.badWalks++;
            if (stats.badSamples.length < 3) stats.badSamples.push(`HTTP ${status} on a page: ${body.slice(0, 300)}`);
          }
          ctx.cont = undefined;
          return;
        }
        ctx.items += countItems(body);
        ctx.cont = CONTINUE.exec(body.slice(0, 4096))?.[1];
        if (!ctx.cont) lastDone = true;
      },
    },
    expect: [200],
    connections,
    setupClient: persistentContext((ctx, index) => (ctx.measured = index >= warmupConnections)),
    observe(ms) {
      if (!last || lastStatus !== 200) return 'page';
      last.walkMs += ms;
      if (lastDone && last.walkValid) {
        if (last.items === listSize) stats.walks.push(last.walkMs);
        else {
          stats.badWalks++;
          if (stats.badSamples.length < 3) stats.badSamples.push(`a walk returned ${last.items} items, expected ${listSize}`);
        }
      }
      return 'page';
    },
  };
  return { target, stats };
}

/**
 * One round of the LIST targets: at --list-connections (the plain keys
 * "list", "paged", "table"), where a p50 includes the wait behind the other
 * connections' lists, or one client (keys ending in "-1"): a list's own latency.
 */
export interface ListRun {
  connections: number;
  suffix: '' | '-1';
  /** "5 clients", "one client". */
  name: string;
}

/** The rounds of the LIST targets: at --list-connections, then at one client (just one round when --list-connections is 1). */
export const listRuns = (o: Options): ListRun[] =>
  o.listConnections === 1
    ? [{ connections: 1, suffix: '', name: 'one client' }]
    : [
        { connections: o.listConnections, suffix: '', name: `${o.listConnections} clients` },
        { connections: 1, suffix: '-1', name: 'one client' },
      ];

export function fullListTarget(o: OrchEndpoint, ns: string, listSize: number, run: ListRun): Target {
  return { key: `list${run.suffix}`, label: `LIST ${listSize.toLocaleString('en-US')} (no limit), ${run.name}`, url: o.url, request: { method: 'GET', path: NP_PATH(ns), headers: authHeaders(o) }, expect: [200], connections: run.connections };
}

/** What a client asks for to get a list as a Table (kubectl get's Accept header, orch's group). */
export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.orch.io';

export function tableListTarget(o: OrchEndpoint, ns: string, listSize: number, run: ListRun): Target {
  return {
    key: `table${run.suffix}`,
    label: `LIST ${listSize.toLocaleString('en-US')} as Table, ${run.name}`,
    url: o.url,
    request: { method: 'GET', path: NP_PATH(ns), headers: { ...authHeaders(o), accept: TABLE_ACCEPT } },
    expect: [200],
    connections: run.connections,
  };
}

/**
 * The raw baselines of the full list and the Table list: baselines-child.ts's
 * node:https server answering /list and /table with the bytes of orch's own
 * responses, measured by the same autocannon command as the orch targets.
 * Keys "raw-list", "raw-table" (+ the run's suffix).
 */
export function rawListTargets(httpsPort: number, run: ListRun): Target[] {
  return [
    ['list', "the full list's bytes"],
    ['table', "the Table's bytes"],
  ].map(([what, bytes]) => ({
    key: `raw-${what}${run.suffix}`,
    label: `raw node:https, ${bytes}, ${run.name}`,
    url: `https://127.0.0.1:${httpsPort}/${what}`,
    request: { method: 'GET', path: `/${what}`, headers: { accept: 'application/json' } },
    expect: [200],
    connections: run.connections,
  }));
}
