/** Command-line flags of scripts/bench.ts. */
import { allowedCpus } from './cpu-pin.ts';

export const PARTS = ['get', 'create', 'update', 'list', 'watch', 'cores'] as const;
export type Part = (typeof PARTS)[number];
export type Backend = 'sqlite' | 'etcd3';

export interface Options {
  backends: Backend[];
  /** Whether --backend named etcd3 explicitly (then a missing etcd binary is an error, not a skip). */
  etcdRequired: boolean;
  only: Set<Part>;
  quick: boolean;
  duration: number;
  warmup: number;
  connections: number;
  listConnections: number;
  listSize: number;
  pageSize: number;
  createConcurrency: number;
  updateObjects: number;
  watchers: number;
  watchProcs: number;
  watchRates: number[];
  watchPhaseSeconds: number;
  watchObjects: number;
  watchDrainSeconds: number;
  /** wrk threads. */
  threads: number;
  /** The CPU wrk runs on (taskset -c) in the one core vs all cores runs, or undefined for any: by default the last CPU this process may use, when it may use two or more. */
  clientCpu: number | undefined;
  /** --scale: the scale benchmark instead of the load benchmark. */
  scale: boolean;
  /** Object counts of the scale benchmark, ascending, on SQLite and on etcd3. */
  scaleSizes: number[];
  scaleEtcdSizes: number[];
  scaleNamespaces: number;
  /** Objects in the scale benchmark's fixed-size namespace (the same at every size). */
  scaleFixed: number;
  loadConcurrency: number;
  /** Writes whose watch event delay the scale benchmark measures at each size. */
  scaleWatchWrites: number;
}

export const USAGE = `Usage: npm run bench -- [flags]

  --backend B            sqlite, etcd3 or both (default both; etcd3 needs the etcd binary)
  --only LIST            comma-separated subset of: ${PARTS.join(', ')} (default all)
  --quick                --duration 3 --warmup 1 --watch-phase 5 (each unless given)
  --duration N           seconds each target is measured, wrk or autocannon (default 8)
  --warmup N             seconds of each round of unmeasured load before a measurement (default 2;
                         0 disables); wrk targets repeat rounds until the rate settles within
                         10 % and the server's process tree stops growing, at most 4 rounds
  --connections N        connections of wrk and of the UPDATE target (default 50)
  --list-connections N   connections of the LIST targets: full, paged, Table (default 5; each
                         is also measured at one connection, and the full and Table lists
                         against a raw node:https server with the same bytes)
  --list-size N          NetworkPolicies in the listed namespace (default 10000)
  --page-size N          limit of the paged LIST (default 500)
  --create-concurrency N requests in flight while creating the fixtures (default 64)
  --update-objects N     objects the conflicting updates share (default 5)
  --watchers N           concurrent watch streams (default 1000)
  --watch-procs N        child processes the watchers are spread over (default 2)
  --watch-rates LIST     writes/s of each writer phase (default 50,200)
  --watch-phase N        seconds of each writer phase (default 20)
  --watch-objects N      objects the writer cycles through (default 100)
  --watch-drain N        seconds to wait after the last write for watchers to catch up (default 30)
  --threads N            wrk threads (default 2)
  --client-cpu N|none    the CPU wrk is pinned to (taskset -c) in the one core vs all cores runs
                         (default: the last CPU this process may use; none: unpinned)

The "cores" part starts two more servers per backend, one under taskset on the first CPU (its whole
process tree checked and pinned) and one unrestricted, and runs the GET and CREATE wrk targets on each.

Environment: BENCH_SERVER_NODE_ARGS (space-separated) is given to node before the orch server's
script, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile every server process (the pool's
workers inherit it); the report then says so, as its figures include the profiler's cost.
BENCH_SERVER_ARGS (space-separated) adds orch flags to every server the bench starts, e.g.
"--workers=1" to measure one process without the pool. BENCH_SERVER_LOG=<path> writes the load
benchmark's main server output, whole, to <path>.<backend> (the report shows its last 40 lines).

Scale benchmark (a separate mode: --only and the watch flags do not apply):

  --scale                 NetworkPolicies spread over namespaces, measured at growing sizes
  --scale-sizes LIST      sizes on SQLite, ascending (default 10000,100000,1000000; none: skip SQLite)
  --scale-etcd-sizes LIST sizes on etcd3 (default 10000,100000; none: skip etcd3)
  --scale-namespaces N    namespaces the objects are spread over (default 1000)
  --scale-fixed N         objects in the fixed-size namespace listed at every size (default 100)
  --load-concurrency N    create requests in flight while loading (default 128)
  --scale-watch-writes N  writes whose watch event delay is measured at each size (default 40)
  (--duration, --warmup, --connections, --threads and --backend apply)
`;

export class UsageError extends Error {}

export function parseArgs(argv: string[]): Options | 'help' {
  const o: Options = {
    backends: ['sqlite', 'etcd3'],
    etcdRequired: false,
    only: new Set(PARTS),
    quick: false,
    duration: 8,
    warmup: 2,
    connections: 50,
    listConnections: 5,
    listSize: 10_000,
    pageSize: 500,
    createConcurrency: 64,
    updateObjects: 5,
    watchers: 1000,
    watchProcs: 2,
    watchRates: [50, 200],
    watchPhaseSeconds: 20,
    watchObjects: 100,
    watchDrainSeconds: 30,
    threads: 2,
    clientCpu: undefined,
    scale: false,
    scaleSizes: [10_000, 100_000, 1_000_000],
    scaleEtcdSizes: [10_000, 100_000],
    scaleNamespaces: 1000,
    scaleFixed: 100,
    loadConcurrency: 128,
    scaleWatchWrites: 40,
  };
  let clientCpu: string | undefined;
  const given = new Set<string>();
  const num = (name: string, v: string | undefined, min: number) => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min) throw new UsageError(`--${name} needs an integer >= ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const eq = argv[i].indexOf('=');
    const flag = eq < 0 ? argv[i] : argv[i].slice(0, eq);
    const inline = eq < 0 ? undefined : argv[i].slice(eq + 1);
    const value = () => inline ?? argv[++i];
    const name = flag.replace(/^--/, '');
    given.add(name);
    switch (flag) {
      case '--help':
      case '-h':
        return 'help';
      case '--quick':
        o.quick = true;
        break;
      case '--backend': {
        const v = value();
        if (v === 'both') o.backends = ['sqlite', 'etcd3'];
        else if (v === 'sqlite' || v === 'etcd3') o.backends = [v];
        else throw new UsageError('--backend must be sqlite, etcd3 or both');
        o.etcdRequired = v !== 'sqlite';
        break;
      }
      case '--only': {
        const parts = (value() ?? '').split(',').map((s) => s.trim()).filter(Boolean);
        const unknown = parts.filter((p) => !(PARTS as readonly string[]).includes(p));
        if (!parts.length || unknown.length) throw new UsageError(`--only takes a comma-separated subset of ${PARTS.join(', ')}`);
        o.only = new Set(parts as Part[]);
        break;
      }
      case '--watch-rates': {
        const rates = (value() ?? '').split(',').map(Number);
        if (!rates.length || rates.some((r) => !Number.isFinite(r) || r <= 0 || r > 5000)) throw new UsageError('--watch-rates takes positive numbers up to 5000, comma-separated');
        o.watchRates = rates;
        break;
      }
      case '--scale':
        o.scale = true;
        break;
      case '--scale-sizes':
        o.scaleSizes = sizes(name, value());
        break;
      case '--scale-etcd-sizes':
        o.scaleEtcdSizes = sizes(name, value());
        break;
      case '--scale-namespaces':
        o.scaleNamespaces = num(name, value(), 1);
        break;
      case '--scale-fixed':
        o.scaleFixed = num(name, value(), 1);
        break;
      case '--load-concurrency':
        o.loadConcurrency = num(name, value(), 1);
        break;
      case '--scale-watch-writes':
        o.scaleWatchWrites = num(name, value(), 1);
        break;
      case '--threads':
        o.threads = num(name, value(), 1);
        break;
      case '--client-cpu':
        clientCpu = value();
        if (clientCpu !== 'none') num(name, clientCpu, 0);
        break;
      case '--duration':
        o.duration = num(name, value(), 1);
        break;
      case '--warmup':
        o.warmup = num(name, value(), 0);
        break;
      case '--connections':
        o.connections = num(name, value(), 1);
        break;
      case '--list-connections':
        o.listConnections = num(name, value(), 1);
        break;
      case '--list-size':
        o.listSize = num(name, value(), 1);
        break;
      case '--page-size':
        o.pageSize = num(name, value(), 1);
        break;
      case '--create-concurrency':
        o.createConcurrency = num(name, value(), 1);
        break;
      case '--update-objects':
        o.updateObjects = num(name, value(), 1);
        break;
      case '--watchers':
        o.watchers = num(name, value(), 1);
        break;
      case '--watch-procs':
        o.watchProcs = num(name, value(), 1);
        break;
      case '--watch-phase':
        o.watchPhaseSeconds = num(name, value(), 1);
        break;
      case '--watch-objects':
        o.watchObjects = num(name, value(), 1);
        break;
      case '--watch-drain':
        o.watchDrainSeconds = num(name, value(), 1);
        break;
      default:
        throw new UsageError(`unknown flag ${argv[i]}`);
    }
  }
  if (o.quick) {
    if (!given.has('duration')) o.duration = 3;
    if (!given.has('warmup')) o.warmup = 1;
    if (!given.has('watch-phase')) o.watchPhaseSeconds = 5;
  }
  if (o.watchProcs > o.watchers) o.watchProcs = o.watchers;
  if (o.connections < o.threads) throw new UsageError('--connections must be at least --threads (wrk gives each thread its share of the connections)');
  const allowed = allowedCpus();
  if (clientCpu === undefined) o.clientCpu = allowed.length >= 2 ? allowed[allowed.length - 1] : undefined;
  else if (clientCpu !== 'none') {
    o.clientCpu = Number(clientCpu);
    if (!allowed.includes(o.clientCpu)) throw new UsageError(`--client-cpu ${clientCpu}: this process may only use CPUs ${allowed.join(',')}`);
  }
  if (o.scale) {
    if (!given.has('backend')) o.backends = ['sqlite', 'etcd3'];
    if (!o.scaleSizes.length) o.backends = o.backends.filter((b) => b !== 'sqlite');
    if (!o.scaleEtcdSizes.length) o.backends = o.backends.filter((b) => b !== 'etcd3');
    if (!o.backends.length) throw new UsageError('--scale: no sizes left to measure');
  }
  return o;
}

/** "10000,100000" → ascending distinct sizes; "none" → []. */
function sizes(name: string, v: string | undefined): number[] {
  if (v === 'none') return [];
  const list = (v ?? '').split(',').map((x) => Number(x.trim().replace(/_/g, '')));
  if (!list.length || list.some((n) => !Number.isInteger(n) || n < 1)) throw new UsageError(`--${name} takes positive integers, comma-separated, or none`);
  return [...new Set(list)].sort((a, b) => a - b);
}

/**
 * Upper bound of one backend's run in ms, for the overall time limit. LIST:
 * full, paged and Table at --list-connections and at one client, and the raw
 * baselines of the full and the Table list at both.
 */
export function backendBudgetMs(o: Options): number {
  const targets = 2 + (o.only.has('get') ? 2 : 0) + (o.only.has('create') ? 1 : 0) + (o.only.has('update') ? 1 : 0) + (o.only.has('list') ? 10 : 0) + (o.only.has('cores') ? 4 : 0);
  const watch = o.only.has('watch') ? o.watchRates.length * o.watchPhaseSeconds * 2 + o.watchDrainSeconds + 120 : 0;
  return (targets * (o.duration + o.warmup + 35) + watch + 180 + (o.only.has('cores') ? 120 : 0)) * 1000;
}

/**
 * Upper bound of the scale benchmark in ms: loading at no less than 200
 * creates/s, and 15 minutes per size for the restart and the measurements.
 */
export function scaleBudgetMs(o: Options): number {
  const per = (sizes: number[]) => (sizes.length ? sizes[sizes.length - 1] / 200 + sizes.length * 900 : 0);
  return ((o.backends.includes('sqlite') ? per(o.scaleSizes) : 0) + (o.backends.includes('etcd3') ? per(o.scaleEtcdSizes) : 0) + 120) * 1000;
}
