/**
 * The autocannon target: UPDATE with conflicts, whose requests depend on the
 * connection's last response in ways a wrk script cannot follow (a JSON body
 * carried from one request to the next). Every other target runs on wrk
 * (wrk-targets.ts, list-targets.ts).
 */
import { persistentContext, type AcContext, type Target } from './autocannon.ts';
import { NP_PATH } from './orch.ts';
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
