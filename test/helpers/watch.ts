/** Opens a watch over HTTPS and collects its newline-delimited events. */
import { request as httpsRequest } from 'node:https';
import type { TestServer } from './server.ts';

export interface WatchStream {
  events: any[];
  status: Promise<number>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Waits until `count` events arrived (or fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<any[]>;
  close(): void;
}

export function openWatch(server: TestServer, path: string, token = server.token, headers: Record<string, string> = {}): WatchStream {
  const events: any[] = [];
  let buffer = '';
  let resolveStatus!: (s: number) => void;
  let resolveEnded!: () => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const ended = new Promise<void>((r) => (resolveEnded = r));
  const req = httpsRequest(new URL(path, server.url), { ca: server.ca, headers: { ...headers, authorization: `Bearer ${token}` }, agent: false }, (res) => {
    resolveStatus(res.statusCode ?? 0);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim()) events.push(JSON.parse(line));
      }
    });
    res.on('end', () => {
      if (buffer.trim()) events.push(JSON.parse(buffer));
      resolveEnded();
    });
    res.on('error', () => resolveEnded());
    res.on('close', () => resolveEnded());
  });
  req.on('error', () => resolveEnded());
  req.end();
  return {
    events,
    status,
    ended,
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} events, got ${events.length}: ${JSON.stringify(events.map((e) => e.type))}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return events;
    },
    close: () => req.destroy(),
  };
}
