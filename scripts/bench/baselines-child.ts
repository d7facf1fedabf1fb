/**
 * baselines-child.ts — the reference servers for scripts/bench.ts, run in their
 * own process so they do not share an event loop with the load generator.
 *
 * Serves the bytes of --body (the orch server's own NetworkPolicy GET
 * response, so both sides send the same payload) from a raw node:http and a raw
 * node:https server on 127.0.0.1, the latter with --cert/--key (the orch
 * server's serving certificate); with --list and --table, the bytes of those
 * files on the paths /list and /table (orch's full-list and Table responses,
 * the LIST targets' baselines), the GET body on every other path. Each with
 * its content-length. Prints one JSON line {"http":port,"https":port} once
 * both listen. Exits on SIGTERM/SIGINT or when stdin closes (the parent went
 * away).
 *
 * With --processes N, N-1 more processes serve the same https socket, handed
 * over IPC and taken with listen(handle) as orch's worker pool takes its
 * primary's: the raw figure of what more processes gain on this machine.
 *
 * With --create-floor <file>, a third server (https, same certificate) is the
 * create floor of create-floor.ts over a new SQLite file there; its port is
 * `floor` in the JSON line.
 *
 *   node --import tsx scripts/bench/baselines-child.ts --body <file> --cert <pem> --key <pem> [--list <file>] [--table <file>] [--processes N] [--create-floor <file>]
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createFloorHandler } from './create-floor.ts';

function optionalArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 || i + 1 >= process.argv.length ? undefined : process.argv[i + 1];
}

function arg(name: string): string {
  const v = optionalArg(name);
  if (v === undefined) {
    console.error(`baselines-child: missing --${name}`);
    process.exit(2);
  }
  return v;
}

const bodies = new Map<string, Buffer>();
for (const name of ['list', 'table']) {
  const file = optionalArg(name);
  if (file !== undefined) bodies.set(`/${name}`, readFileSync(file));
}
const getBody = readFileSync(arg('body'));
const handler = (req: IncomingMessage, res: ServerResponse) => {
  // Drain any request body, then answer like the orch server does for a GET.
  req.resume();
  const body = bodies.get(req.url ?? '/') ?? getBody;
  res.writeHead(200, {
    'content-type': 'application/json',
    'cache-control': 'no-cache, private',
    'content-length': body.length,
  });
  res.end(body);
};

const http = createHttpServer(handler);
const tls = { cert: readFileSync(arg('cert')), key: readFileSync(arg('key')) };
const https = createHttpsServer(tls, handler);
const floorFile = optionalArg('create-floor');
const floor = floorFile === undefined ? undefined : createHttpsServer(tls, createFloorHandler(floorFile));
const servers = [http, https, ...(floor ? [floor] : [])];
for (const server of servers) server.keepAliveTimeout = 65_000;

const SHARE_ENV = 'BASELINE_SHARED_SOCKET';

async function main(): Promise<void> {
  const listen = (server: Server) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });

  const ports = { http: await listen(http), https: await listen(https), ...(floor ? { floor: await listen(floor) } : {}) };
  const extra = Number(optionalArg('processes') ?? '1') - 1;
  const others = await Promise.all(
    Array.from({ length: extra }, () => {
      const child = fork(process.argv[1], process.argv.slice(2), { env: { ...process.env, [SHARE_ENV]: '1' }, execArgv: process.execArgv, stdio: 'inherit' });
      return new Promise<typeof child>((resolve) => {
        child.once('message', () => resolve(child));
        child.send('listen', https);
      });
    }),
  );
  process.stdout.write(`${JSON.stringify(ports)}\n`);

  const stop = () => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    for (const other of others) other.kill('SIGTERM');
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}

if (process.env[SHARE_ENV]) {
  // An extra process: serves the https socket its parent sends, and ends with its parent.
  process.on('message', (message, handle) => {
    if (message === 'listen' && handle) https.listen(handle as Server, () => process.send!('listening'));
  });
  process.on('disconnect', () => process.exit(0));
} else {
  await main();
}
