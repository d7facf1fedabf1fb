/**
 * One core vs all cores (issue 10: "GET and create with all cores ≥ 1.5x the
 * same build limited to one core, in the same run"). Two fresh servers of the
 * same build with the same fixtures, one after the other: the first started
 * under `taskset -c <first CPU>`, so that it sees one CPU from its first
 * instruction (a server that sizes a worker pool by the CPUs it may use sizes
 * it as on a one-core machine) and every process and thread it starts
 * inherits the mask; its whole process tree is checked (and re-pinned if
 * need be) before each measurement. The second runs unrestricted. wrk runs on
 * the client CPU in both, so the client is the same. On etcd3 each server has
 * its own --etcd-prefix on the run's etcd, so neither sees the other's objects.
 *
 * Before each server, a raw node:https server answering with the same GET
 * bytes is measured the same way: one process under the same taskset, then
 * two processes sharing one socket as orch's pool does. Its ratio is what a
 * second process can gain on this machine with this client at all.
 */
import { join } from 'node:path';
import type { Measurement } from './autocannon.ts';
import { startBaselines } from './baselines.ts';
import { describeTree, pinTree, type PinReport } from './cpu-pin.ts';
import { createNamespace, launchOrch, networkPolicy, NP_PATH, startingWorkers } from './orch.ts';
import { log } from './util.ts';
import { baselineTargets, createTarget, getTarget, measureWrk, type WrkSettings } from './wrk-targets.ts';

export interface CoresRun {
  mode: 'one' | 'all';
  /** The CPUs the server's threads may use, as /proc reports them. */
  cpus: string;
  /** Processes and threads in the server's tree when it was measured. */
  processes: number;
  threads: number;
  measurements: Map<string, Measurement>;
}

export interface CoresResult {
  serverCpu: number;
  runs: CoresRun[];
  /** pinTree's findings before each one-core measurement. */
  pins: PinReport[];
  error?: string;
}

const NS = { get: 'bench-get', create: 'bench-create' };
/** The raw https baseline's measurement in each run. */
export const RAW_KEY = 'raw-https';

/** `flags` are the backend's server flags (storage backend, etcd servers); `etcd` adds a prefix per server. */
export async function coresComparison(flags: string[], w: WrkSettings, serverCpu: number, runId: string, etcd: boolean): Promise<CoresResult> {
  const result: CoresResult = { serverCpu, runs: [], pins: [] };
  try {
    for (const mode of ['one', 'all'] as const) {
      const pinned = mode === 'one';
      const f = etcd ? [...flags, `--etcd-prefix=/bench-cores-${mode}-${runId}`] : flags;
      log(`cores: starting a server ${pinned ? `under taskset -c ${serverCpu}` : 'on all CPUs'} …`);
      const { orch, stop } = await launchOrch(f, pinned ? { wrapper: ['taskset', '-c', String(serverCpu)] } : {});
      try {
        const pid = orch.server.process.pid!;
        for (const ns of Object.values(NS)) await createNamespace(orch, ns);
        await orch.expect('create the GET fixture', [201], 'POST', NP_PATH(NS.get), networkPolicy('api-allow', NS.get));
        const o = { url: orch.server.url, token: orch.server.token };
        const run: CoresRun = { mode, cpus: '', processes: 0, threads: 0, measurements: new Map() };
        const body = (await orch.expect('GET the fixture', [200], 'GET', `${NP_PATH(NS.get)}/api-allow`)).text;
        const pki = join(orch.server.dataDir, 'pki');
        const raw = await startBaselines({ get: body }, join(pki, 'serving.crt'), join(pki, 'serving.key'), {
          processes: pinned ? 1 : 2,
          wrapper: pinned ? ['taskset', '-c', String(serverCpu)] : undefined,
        });
        try {
          const target = { ...baselineTargets(raw.ports)[1], key: RAW_KEY, label: `raw node:https GET, ${pinned ? 'one process' : 'two processes'}` };
          log(`cores: ${mode === 'one' ? 'one core' : 'all cores'}: ${target.label} …`);
          run.measurements.set(RAW_KEY, await measureWrk(target, w, raw.process.pid));
        } finally {
          await raw.stop();
        }
        for (const target of [getTarget(o, NS.get, 'api-allow'), createTarget(o, NS.create, `${runId}-${mode}`)]) {
          if (pinned) result.pins.push(pinTree(pid, String(serverCpu)));
          const tree = describeTree(pid);
          Object.assign(run, { processes: tree.processes, threads: tree.threads, cpus: tree.cpus.join(' and ') });
          log(`cores: ${mode === 'one' ? 'one core' : 'all cores'}: ${target.label} (server: ${run.processes} processes, ${run.threads} threads, CPUs ${run.cpus}) …`);
          run.measurements.set(target.key, await measureWrk(target, w, pid, () => startingWorkers(orch.server)));
        }
        result.runs.push(run);
      } finally {
        await stop();
      }
    }
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
    log(`cores: ${result.error}`);
  }
  return result;
}
