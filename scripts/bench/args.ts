/** Command-line flags of scripts/bench.ts. */

export const PARTS = ['get', 'create', 'update', 'list', 'watch'] as const;
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
}

export const USAGE = `Usage: npm run bench -- [flags]

  --backend B            sqlite, etcd3 or both (default both; etcd3 needs the etcd binary)
  --only LIST            comma-separated subset of: ${PARTS.join(', ')} (default all)
  --quick                --duration 3 --warmup 1 --watch-phase 5 (each unless given)
  --duration N           seconds each autocannon target is measured (default 8)
  --warmup N             seconds of unmeasured load before each measurement (default 2; 0 disables)
  --connections N        autocannon connections (default 50)
  --list-connections N   autocannon connections of the two LIST targets (default 5)
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
  };
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
  return o;
}

/** Upper bound of one backend's run in ms, for the overall time limit. */
export function backendBudgetMs(o: Options): number {
  const targets = 2 + (o.only.has('get') ? 2 : 0) + (o.only.has('create') ? 1 : 0) + (o.only.has('update') ? 1 : 0) + (o.only.has('list') ? 2 : 0);
  const watch = o.only.has('watch') ? o.watchRates.length * o.watchPhaseSeconds * 2 + o.watchDrainSeconds + 120 : 0;
  return (targets * (o.duration + o.warmup + 35) + watch + 180) * 1000;
}
