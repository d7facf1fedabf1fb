/**
 * Test harness: a real orch-apiserver process on an ephemeral loopback port with
 * its own temporary data dir, and an HTTPS client that trusts its CA.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/orch-apiserver.mjs');

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body's bytes (a protobuf answer is not text). */
  bytes: Buffer;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  body: any;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body bytes/text sent as is. */
  raw?: string | Buffer;
  headers?: Record<string, string | string[]>;
  /** Use this bearer token instead of the admin's; null sends none. */
  token?: string | null;
  /** A client certificate (and its chain) and key to present. */
  cert?: string;
  key?: string;
}

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  token: string;
  ca: string;
  orchconfig: string;
  process: ChildProcess;
  output(): string;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** SIGTERM and wait for exit; resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** stop() and remove the data dir. */
  close(): Promise<void>;
}

export function request(url: string, ca: string, method: string, path: string, options: RequestOptions & { defaultToken?: string } = {}): Promise<Response> {
  const headers: Record<string, string | string[]> = { ...(options.headers ?? {}) };
  const token = options.token === undefined ? options.defaultToken : options.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: Buffer | undefined;
  if (options.raw !== undefined) payload = Buffer.from(options.raw);
  else if (options.body !== undefined) {
    payload = Buffer.from(JSON.stringify(options.body));
    headers['content-type'] ??= 'application/json';
  }
  // Node sends DELETE bodies without framing unless told their length.
  if (payload) headers['content-length'] ??= String(payload.length);
  return new Promise((resolvePromise, reject) => {
    const req = httpsRequest(new URL(path, url), { method, headers, ca, cert: options.cert, key: options.key, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let body: any;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Starts a server process (this checkout's, or `bin`, under node with
 * `nodeArgs`); extra flags are passed through. `wrapper` is a command that
 * execs the server (the benchmark's `taskset -c 0`); `startTimeoutMs` (20 s)
 * bounds the wait for its "serving on" line.
 */
/**
 * A test server keeps two processes serving (issue 10's pool: a primary and a
 * worker) even when idle, so every test exercises the workers' paths (the
 * SQLite replica, the shared socket); a test's own --workers or --min-workers wins.
 */
const WORKER_FLAGS = ['--min-workers=2'];

export async function startTestServer(
  flags: string[] = [],
  options: { dataDir?: string; bin?: string; node?: string; nodeArgs?: string[]; wrapper?: string[]; startTimeoutMs?: number } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'orch-test-'));
  const [command, ...args] = [...(options.wrapper ?? []), options.node ?? process.execPath, ...(options.nodeArgs ?? []), options.bin ?? BIN, '--data-dir', dataDir, '--secure-port', '0', ...WORKER_FLAGS, ...flags];
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), options.startTimeoutMs ?? 20_000);
    const onData = () => {
      const match = /serving on (https:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  const orchconfig = join(dataDir, 'admin.orchconfig');
  const config = parseYaml(readFileSync(orchconfig, 'utf8'));
  const ca = Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8');
  const token = config.users[0].user.token;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const server: TestServer = {
    url,
    port: Number(new URL(url).port),
    dataDir,
    token,
    ca,
    orchconfig,
    process: child,
    output: () => output,
    request: (method, path, opts = {}) => request(url, ca, method, path, { ...opts, defaultToken: token }),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    async close() {
      await server.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}
