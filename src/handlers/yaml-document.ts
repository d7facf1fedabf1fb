/**
 * YAML request bodies (SPEC 4.7 `application/yaml`, `application/apply-patch+yaml`)
 * decoded as upstream's sigs.k8s.io/yaml does: the first document of the
 * stream, nested at most {@link MAX_YAML_DEPTH} collections deep (goyaml's
 * limit, `exceeded max depth of 10000`), merge keys (`<<`) merged, `!!binary`
 * as the string of its bytes, numbers JSON can carry (`.inf` and `.nan` are
 * refused as json.Marshal refuses them).
 *
 * The yaml library composes documents recursively (its stack overflows near
 * 1,000 levels, and V8 can abort the whole process when it then compiles a
 * regular expression that close to the limit) and needs seconds for some 3 MiB
 * documents. So a body is composed here only when it is small and provably
 * shallow; every other body is decoded by a worker thread with a large stack,
 * off the event loop, one at a time, and abandoned (the worker replaced) when
 * its request ends first. Both paths run the same pipeline, {@link PIPELINE}.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type * as Yaml from 'yaml';
import { yaml } from '../util/lazy-packages.ts';
import type { DeadlineSignal } from '../util/deadline-signal.ts';

/** goyaml's max_flow_level and max_indents: deeper YAML is refused. */
export const MAX_YAML_DEPTH = 10_000;

/** Bodies up to this size, with at most INLINE_DEPTH possible levels, are decoded on the event loop. */
const INLINE_BYTES = 16 * 1024;
/** Far below where the composer's recursion gets near the default stack limit. */
const INLINE_DEPTH = 256;
const WORKER_STACK_MB = 64;
const WORKER_IDLE_MS = 30_000;

/** A YAML body that is not a document upstream would decode (the message is goyaml-like). */
export class YamlDocumentError extends Error {
  constructor(message: string, readonly depthExceeded = false) {
    super(message);
    this.name = 'YamlDocumentError';
  }
}

type Outcome = { value: unknown } | { json: string } | { error: string; depth?: boolean };

/**
 * The decoding pipeline as JavaScript source, so the worker (which cannot load
 * TypeScript from the bundle) and the event loop run the very same code. Given
 * the yaml module, the text, the depth limit and whether to return JSON text, it
 * returns `{value}`, `{json}` or `{error, depth?}`. Every walk is iterative.
 */
const PIPELINE = String.raw`(yaml, text, maxDepth, asJson) => {
  const refused = (error, depth) => ({ error, depth });
  // Flow nesting is cheap to follow token by token: a hostile document is stopped long before it is parsed.
  let flow = 0;
  for (const token of new yaml.Lexer().lex(text)) {
    if (token === '[' || token === '{') {
      if (++flow > maxDepth) return refused('yaml: exceeded max depth of ' + maxDepth, true);
    } else if (token === ']' || token === '}') flow--;
  }
  const tokens = Array.from(new yaml.Parser().parse(text));
  const first = tokens.find((t) => t.type === 'document');
  const pending = first && first.value ? [[first.value, 1]] : [];
  while (pending.length) {
    const [node, depth] = pending.pop();
    if (node.type !== 'block-map' && node.type !== 'block-seq' && node.type !== 'flow-collection') continue;
    if (depth > maxDepth) return refused('yaml: exceeded max depth of ' + maxDepth, true);
    for (const item of node.items) {
      if (item.key && typeof item.key === 'object') pending.push([item.key, depth + 1]);
      if (item.value) pending.push([item.value, depth + 1]);
    }
  }
  let doc;
  for (const d of new yaml.Composer({ schema: 'core', uniqueKeys: false, merge: true, logLevel: 'error' }).compose(tokens, true, text.length)) {
    doc = d;
    break;
  }
  if (doc.errors.length) {
    const error = doc.errors[0];
    let line = 1, column = 1;
    for (let i = 0; i < error.pos[0] && i < text.length; i++) {
      if (text.charCodeAt(i) === 10) { line++; column = 1; } else column++;
    }
    return refused('yaml: line ' + line + ', column ' + column + ': ' + error.message);
  }
  let value;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return refused('yaml: ' + err.message);
  }
  // goyaml hands !!binary over as the string of its bytes; JSON has no NaN or infinities.
  const binary = (v) => new TextDecoder().decode(v);
  if (value instanceof Uint8Array) value = binary(value);
  const values = [value];
  while (values.length) {
    const v = values.pop();
    if (typeof v === 'number' && !Number.isFinite(v)) return refused('json: unsupported value: ' + (Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'));
    if (v === null || typeof v !== 'object') continue;
    for (const key of Object.keys(v)) {
      if (v[key] instanceof Uint8Array) v[key] = binary(v[key]);
      else values.push(v[key]);
    }
  }
  return asJson ? { json: JSON.stringify(value) } : { value };
}`;

type Pipeline = (library: typeof Yaml, text: string, maxDepth: number, asJson: boolean) => Outcome;

// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the pipeline is this module's own constant source
const runPipeline = new Function(`return ${PIPELINE}`)() as Pipeline;

/**
 * The most collections a document could nest: every collection needs an
 * indicator of its own (`[`, `{`, `-`, `:` or `?`), aliases cannot nest a node
 * inside itself. An upper bound, so it may only err towards the worker.
 */
function possibleDepth(text: string, stopAbove: number): number {
  let count = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b || c === 0x2d || c === 0x3a || c === 0x3f) {
      if (++count > stopAbove) return count;
    }
  }
  return count;
}

/** The worker: one job at a time, each job `{ id, text }`, each answer `{ id, outcome }`. */
function workerSource(yamlModulePath: string): string {
  return `
const { parentPort } = require('node:worker_threads');
const yaml = require(${JSON.stringify(yamlModulePath)});
const run = ${PIPELINE};
parentPort.on('message', ({ id, text, maxDepth }) => {
  let outcome;
  try {
    outcome = run(yaml, text, maxDepth, true);
  } catch (err) {
    outcome = { error: 'yaml: ' + (err && err.message) };
  }
  parentPort.postMessage({ id, outcome });
});`;
}

interface Job {
  id: number;
  text: string;
  resolve(outcome: Outcome): void;
  reject(err: Error): void;
  signal?: DeadlineSignal;
  onAbort?: () => void;
}

/** The single decoding worker, started on demand and stopped when idle. */
class YamlWorker {
  private worker?: Worker;
  private readonly queue: Job[] = [];
  private current?: Job;
  private nextId = 1;
  private idleTimer?: NodeJS.Timeout;

  decode(text: string, signal?: DeadlineSignal): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, text, resolve, reject, signal };
      if (signal) {
        if (signal.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        job.onAbort = () => this.abandon(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  private pump(): void {
    if (this.current || !this.queue.length) return;
    clearTimeout(this.idleTimer);
    const job = this.queue.shift()!;
    this.current = job;
    this.ensureWorker().postMessage({ id: job.id, text: job.text, maxDepth: MAX_YAML_DEPTH });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const path = createRequire(import.meta.url).resolve('yaml');
    const worker = new Worker(workerSource(path), { eval: true, resourceLimits: { stackSizeMb: WORKER_STACK_MB } });
    worker.unref();
    worker.on('message', ({ id, outcome }: { id: number; outcome: Outcome }) => {
      const job = this.current;
      if (!job || job.id !== id) return;
      this.finish(job);
      job.resolve(outcome);
    });
    worker.on('error', (err) => this.lost(worker, err));
    worker.on('exit', (code) => this.lost(worker, new Error(`the YAML decoding worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  /** The worker died: its job fails (a server fault, not the client's), the next job gets a new worker. */
  private lost(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const job = this.current;
    if (job) {
      this.finish(job);
      job.reject(err);
    }
    this.pump();
  }

  private finish(job: Job): void {
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    if (this.current === job) this.current = undefined;
    this.pump();
    if (!this.current && this.worker) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => this.stop(), WORKER_IDLE_MS);
      this.idleTimer.unref();
    }
  }

  /** The request ended first: a queued job is dropped, a running one costs the worker. */
  private abandon(job: Job): void {
    const reason = job.signal?.reason instanceof Error ? job.signal.reason : new Error('aborted');
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      job.reject(reason);
      return;
    }
    if (this.current !== job) return;
    this.stop();
    this.finish(job);
    job.reject(reason);
  }

  private stop(): void {
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }
}

const worker = new YamlWorker();

/**
 * Decodes the first document of a YAML body into a plain value. Throws
 * {@link YamlDocumentError} for what upstream refuses; `signal` is the
 * request's, so a decode nobody waits for any more is abandoned.
 */
export async function parseYamlDocument(text: string, signal?: DeadlineSignal): Promise<unknown> {
  const inline = text.length <= INLINE_BYTES && possibleDepth(text, INLINE_DEPTH) <= INLINE_DEPTH;
  const outcome = inline ? runPipeline(yaml(), text, MAX_YAML_DEPTH, false) : await worker.decode(text, signal);
  if ('error' in outcome) throw new YamlDocumentError(outcome.error, !!outcome.depth);
  return 'json' in outcome ? JSON.parse(outcome.json) : outcome.value;
}
