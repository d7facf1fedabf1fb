/**
 * Audit backends (upstream plugin/pkg/audit/log, webhook, buffered, truncate
 * and pkg/server/options/audit.go wrapBackend): a backend takes events;
 * `blocking` writes each as it comes (errors logged), `batch` queues them and
 * hands batches to the delegate by size, wait and throttle, dropping events
 * when the buffer is full; truncation drops request and response objects of
 * an event over the size limit and splits batches over the batch limit.
 */
import { WebhookClient, webhookConnection, type RetryBackoff } from '../auth/webhook-client.ts';
import { legacyLine, type AuditEvent } from './event.ts';
import type { RotatingLogFile } from './log-file.ts';
import { LEVEL_RANK } from './policy.ts';

export interface AuditBackend {
  /**
   * false, or a rejected promise: the write or send failed (what blocking-strict
   * turns into a failed request). A promise: the send is under way.
   */
  process(events: AuditEvent[]): boolean | Promise<void>;
  /** Sends or writes what is queued; resolves when done. */
  shutdown(): Promise<void>;
}

export interface BatchConfig {
  bufferSize: number;
  maxBatchSize: number;
  maxBatchWaitMs: number;
  throttleEnable: boolean;
  throttleQps: number;
  throttleBurst: number;
}

export interface TruncateConfig {
  enabled: boolean;
  maxEventSize: number;
  maxBatchSize: number;
}

/** Bytes of lines a batch writes at once: a batch of many events costs few writes, a line is never split. */
const WRITE_CHUNK = 256 * 1024;

/** plugin/pkg/audit/log: one line per event, JSON or legacy text; a batch's lines go out in few writes. */
export function logBackend(out: RotatingLogFile | NodeJS.WriteStream, format: 'json' | 'legacy'): AuditBackend {
  const line = (event: AuditEvent) => (format === 'json' ? `${JSON.stringify(event)}\n` : `${legacyLine(event)}\n`);
  return {
    process(events) {
      let success = true;
      let chunk = '';
      let inChunk: AuditEvent[] = [];
      const flush = () => {
        if (!chunk) return;
        try {
          out.write(chunk);
        } catch (err) {
          pluginError('log', err, inChunk);
          success = false;
        }
        chunk = '';
        inChunk = [];
      };
      for (const event of events) {
        const text = line(event);
        if (chunk.length + text.length > WRITE_CHUNK) flush();
        chunk += text;
        inChunk.push(event);
      }
      flush();
      return success;
    },
    shutdown: async () => {},
  };
}

/** plugin/pkg/audit/webhook: a batch POSTed as an EventList, retried with the initial backoff. */
export function webhookBackend(configFile: string, initialBackoffMs: number, apiVersion: string): AuditBackend {
  const backoff: RetryBackoff = { initialMs: initialBackoffMs, factor: 1.5, jitter: 0.2, steps: 5 };
  const client = new WebhookClient(webhookConnection({ type: 'OrchConfig', orchConfigFile: configFile }), 30_000, backoff, true);
  return {
    async process(events) {
      try {
        await client.post({ kind: 'EventList', apiVersion, metadata: {}, items: events });
      } catch (err) {
        pluginError('webhook', err, events);
        // blocking-strict turns this into a failed request; the other modes drop it.
        throw err;
      }
    },
    shutdown: async () => {},
  };
}

/** upstream audit.HandlePluginError: the error and the events it cost, on the server's log. */
function pluginError(plugin: string, err: unknown, events: AuditEvent[]): void {
  console.error(`Error in audit plugin '${plugin}' affecting ${events.length} audit events: ${(err as Error).message}`);
  for (const e of events) console.error(`Audit event: ${legacyLine(e)}`);
}

/** plugin/pkg/audit/truncate. */
export function truncating(delegate: AuditBackend, config: TruncateConfig): AuditBackend {
  if (!config.enabled) return delegate;
  return {
    process(events) {
      let batch: AuditEvent[] = [];
      let success = true;
      let batchSize = 0;
      const sends: Array<boolean | Promise<void>> = [];
      for (let event of events) {
        let size = Buffer.byteLength(JSON.stringify(event));
        if (size > config.maxEventSize && LEVEL_RANK[event.level] >= LEVEL_RANK.Request) {
          const { requestObject: _request, responseObject: _response, ...rest } = event;
          event = { ...rest, annotations: { ...rest.annotations, 'audit.orch.io/truncated': 'true' } };
          size = Buffer.byteLength(JSON.stringify(event));
        }
        if (size > config.maxEventSize) {
          pluginError('truncate', new Error('event is too large even after truncating'), [event]);
          success = false;
          continue;
        }
        if (batch.length && batchSize + size > config.maxBatchSize) {
          sends.push(delegate.process(batch));
          batch = [];
          batchSize = 0;
        }
        batchSize += size;
        batch.push(event);
      }
      if (batch.length) sends.push(delegate.process(batch));
      if (sends.every((r) => typeof r === 'boolean')) return success && sends.every(Boolean);
      return Promise.all(sends).then(() => {});
    },
    shutdown: () => delegate.shutdown(),
  };
}

/** plugin/pkg/audit/buffered: a bounded queue flushed in batches, one batch in flight at a time. */
export function buffered(delegate: AuditBackend, config: BatchConfig, plugin: string): AuditBackend {
  const queue: AuditEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<void> | undefined;
  let tokens = config.throttleBurst;
  let refilledAt = Date.now();
  const waitForToken = async () => {
    if (!config.throttleEnable) return;
    for (;;) {
      const now = Date.now();
      tokens = Math.min(config.throttleBurst, tokens + ((now - refilledAt) / 1000) * config.throttleQps);
      refilledAt = now;
      if (tokens >= 1) return void tokens--;
      await new Promise((resolve) => setTimeout(resolve, ((1 - tokens) / config.throttleQps) * 1000));
    }
  };
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    return (sending ??= (async () => {
      try {
        while (queue.length) {
          await waitForToken();
          // A failed batch was reported by the delegate; the next one goes regardless.
          await Promise.resolve(delegate.process(queue.splice(0, config.maxBatchSize))).catch(() => {});
          if (queue.length < config.maxBatchSize) break;
        }
      } finally {
        sending = undefined;
        if (queue.length) schedule();
      }
    })());
  };
  const schedule = () => {
    if (queue.length >= config.maxBatchSize) void flush();
    else if (!timer) timer = setTimeout(() => void flush(), config.maxBatchWaitMs).unref();
  };
  return {
    process(events) {
      for (const event of events) {
        if (queue.length >= config.bufferSize) {
          pluginError(plugin, new Error('audit buffer queue blocked'), [event]);
          continue;
        }
        queue.push(event);
      }
      schedule();
      return true;
    },
    async shutdown() {
      while (queue.length || sending) await flush();
      await delegate.shutdown();
    },
  };
}

/** How a backend's events reach it (--audit-<plugin>-mode): queued in batches, or written as they come. */
export const AUDIT_MODES = ['batch', 'blocking', 'blocking-strict'] as const;
export type AuditMode = (typeof AUDIT_MODES)[number];

/** How a mode wraps a backend (upstream AuditBatchOptions.wrapBackend). */
export function withMode(delegate: AuditBackend, mode: AuditMode, batch: BatchConfig, plugin: string): AuditBackend {
  if (mode === 'batch') return buffered(delegate, batch, plugin);
  if (mode === 'blocking-strict') return delegate;
  // blocking: the write is waited for, its failure only logged (upstream ignoreErrorsBackend).
  return {
    process: (events) => {
      const result = delegate.process(events);
      return typeof result === 'boolean' ? true : result.catch(() => {});
    },
    shutdown: () => delegate.shutdown(),
  };
}

/** Every backend receives every event (upstream audit.Union). */
export function union(backends: AuditBackend[]): AuditBackend {
  return {
    process(events) {
      const results = backends.map((backend) => backend.process(events));
      const success = results.every((r) => r !== false);
      const pending = results.filter((r): r is Promise<void> => typeof r !== 'boolean');
      if (!pending.length) return success;
      return Promise.all(pending).then(() => {
        if (!success) throw new Error('an audit backend failed');
      });
    },
    shutdown: async () => void (await Promise.all(backends.map((b) => b.shutdown()))),
  };
}
