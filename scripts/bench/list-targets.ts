/**
 * The LIST targets on wrk, the issue's own client (issue 10: full list, paged
 * walk and Table of 10,000): each at --list-connections and at one client,
 * and the raw baselines of the full and the Table list, a bare node:https
 * server answering with the bytes of orch's own responses through the same
 * wrk command. autocannon measured these before: its own parsing of 15 MiB
 * bodies took most of a core, and at 5 connections it reached half the Table
 * lists/s wrk reaches from the same server, so its p50s were the client's.
 */
import type { Options } from './args.ts';
import { NP_PATH } from './orch.ts';
import { Samples } from './util.ts';
import { getScript, pagedWalkScript } from './wrk-scripts.ts';
import type { WrkSummary } from './wrk.ts';
import { authHeaders, type OrchEndpoint, type WrkSettings, type WrkTarget } from './wrk-targets.ts';

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

/**
 * wrk's settings for a LIST run: the run's connections over at most
 * --threads threads, or one thread per connection for the paged walk, whose
 * script keeps one connection's continue token per thread.
 */
export function listSettings(w: WrkSettings, run: ListRun, threadPerConnection = false): WrkSettings {
  return { ...w, connections: run.connections, threads: threadPerConnection ? run.connections : Math.min(w.threads, run.connections) };
}

/** What a client asks for to get a list as a Table (kubectl get's Accept header, orch's group). */
export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.orch.io';

export function fullListTarget(o: OrchEndpoint, ns: string, listSize: number, run: ListRun): WrkTarget {
  return { key: `list${run.suffix}`, label: `LIST ${listSize.toLocaleString('en-US')} (no limit), ${run.name}`, url: `${o.url}${NP_PATH(ns)}`, script: () => getScript(authHeaders(o)), expect: null };
}

export function tableListTarget(o: OrchEndpoint, ns: string, listSize: number, run: ListRun): WrkTarget {
  return {
    key: `table${run.suffix}`,
    label: `LIST ${listSize.toLocaleString('en-US')} as Table, ${run.name}`,
    url: `${o.url}${NP_PATH(ns)}`,
    script: () => getScript({ ...authHeaders(o), accept: TABLE_ACCEPT }),
    expect: null,
  };
}

export interface PagedStats {
  /** Full-walk times (sum of the page response times) of walks that started and ended in the measured run. */
  walks: Samples;
  /** Walks that ended on a non-200 page, or whose item count was not the list size. */
  badWalks: number;
  badSamples: string[];
}

/**
 * Paged LIST: each connection walks the whole collection with limit/continue,
 * page after page, and starts over when a page has no continue token
 * (wrk-scripts.ts pagedWalkScript). Its measurement counts pages; `stats` gets
 * the measured run's walks.
 */
export function pagedListTarget(o: OrchEndpoint, ns: string, pageSize: number, listSize: number, run: ListRun): { target: WrkTarget; stats: PagedStats } {
  const stats: PagedStats = { walks: new Samples(), badWalks: 0, badSamples: [] };
  const target: WrkTarget = {
    key: `paged${run.suffix}`,
    label: `LIST paged (limit=${pageSize}), per page, ${run.name}`,
    url: `${o.url}${NP_PATH(ns)}`,
    script: () => pagedWalkScript(authHeaders(o), `${NP_PATH(ns)}?limit=${pageSize}`, listSize),
    expect: 200,
    measured(summary: WrkSummary) {
      for (const ms of summary.walks ?? []) stats.walks.push(ms);
      stats.badWalks = summary.badWalks ?? 0;
      stats.badSamples = summary.samples.slice(0, 3);
    },
  };
  return { target, stats };
}

/**
 * The raw baselines of the full list and the Table list: baselines-child.ts's
 * node:https server answering /list and /table with the bytes of orch's own
 * responses, measured by the same wrk command as the orch targets.
 * Keys "raw-list", "raw-table" (+ the run's suffix).
 */
export function rawListTargets(httpsPort: number, run: ListRun): WrkTarget[] {
  return [
    ['list', "the full list's bytes"],
    ['table', "the Table's bytes"],
  ].map(([what, bytes]) => ({
    key: `raw-${what}${run.suffix}`,
    label: `raw node:https, ${bytes}, ${run.name}`,
    url: `https://127.0.0.1:${httpsPort}/${what}`,
    script: () => getScript({ accept: 'application/json' }),
    expect: null,
  }));
}
