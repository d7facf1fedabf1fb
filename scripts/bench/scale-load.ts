/**
 * The scale benchmark's fixture: NetworkPolicies `np-<i>` spread round-robin
 * over namespaces (object i in namespace i mod N), created with many requests
 * in flight over keep-alive connections. The bodies come from one serialized
 * template (names spliced in), so that the client's JSON work does not slow
 * the load on a shared machine. A create that fails on the way (connection
 * reset, 429, 5xx) is retried; a 409 on a retry means the first attempt won.
 */
import { Agent } from 'node:https';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createNamespace, networkPolicy, NP_PATH, send, type Orch } from './orch.ts';
import { bounded, fmt, int, log } from './util.ts';

export const FIXED_NS = 'scale-fixed';

/** Namespace names, zero-padded so that they sort in index order. */
export function namespaceName(i: number, namespaces: number): string {
  return `scale-${String(i).padStart(String(namespaces - 1).length, '0')}`;
}

/** The path of object i, and the same as a printf pattern for wrk's Lua (namespace index, then i). */
export const objectPath = (i: number, namespaces: number) => `${NP_PATH(namespaceName(i % namespaces, namespaces))}/np-${i}`;
export const objectPathFormat = (namespaces: number) => `${NP_PATH(`scale-%0${String(namespaces - 1).length}d`)}/np-%d`;

const RETRIABLE = new Set([429, 500, 502, 503, 504]);

/** Creates objects [from, to) with `concurrency` in flight; resolves to the elapsed ms. */
export async function loadObjects(orch: Orch, from: number, to: number, namespaces: number, concurrency: number, namespaceOf?: (i: number) => string, nameOf?: (i: number) => string): Promise<number> {
  const s = orch.server;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: s.ca });
  const headers = { authorization: `Bearer ${s.token}`, accept: 'application/json', 'content-type': 'application/json' };
  const template = JSON.stringify(networkPolicy('@@NAME@@', '@@NS@@'));
  const ns = namespaceOf ?? ((i: number) => namespaceName(i % namespaces, namespaces));
  const name = nameOf ?? ((i: number) => `np-${i}`);
  const t0 = performance.now();
  let done = 0;
  let retries = 0;
  let lastLog = t0;
  try {
    await bounded(to - from, concurrency, async (k) => {
      const i = from + k;
      const body = Buffer.from(template.replace('@@NAME@@', name(i)).replace('@@NS@@', ns(i)));
      for (let attempt = 1; ; attempt++) {
        let status = 0;
        let text = '';
        try {
          ({ status, text } = await send(agent, s.url, 'POST', NP_PATH(ns(i)), headers, body, 120_000));
        } catch (err) {
          text = String(err);
        }
        if (status === 201 || (status === 409 && attempt > 1)) break;
        if (attempt >= 8 || (status !== 0 && !RETRIABLE.has(status))) throw new Error(`create ${ns(i)}/${name(i)}: ${status || 'connection error'}: ${text.slice(0, 300)}`);
        retries++;
        await sleep(50 * attempt);
      }
      done++;
      const now = performance.now();
      if (now - lastLog > 15_000) {
        lastLog = now;
        log(`scale: loaded ${int(from + done)} of ${int(to)} (${fmt((done * 1000) / (now - t0), 0)} creates/s${retries ? `, ${retries} retries` : ''})`);
      }
    });
  } finally {
    agent.destroy();
  }
  if (retries) log(`scale: ${retries} creates were retried`);
  return performance.now() - t0;
}

/** Creates the namespaces (and the fixed one) with a few requests in flight. */
export async function createScaleNamespaces(orch: Orch, namespaces: number): Promise<void> {
  const names = [...Array.from({ length: namespaces }, (_, i) => namespaceName(i, namespaces)), FIXED_NS];
  await bounded(names.length, 32, (i) => createNamespace(orch, names[i]));
}
