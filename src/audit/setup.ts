/**
 * Auditing across the pool of processes (upstream AuditOptions.ApplyTo, and
 * ARCHITECTURE "Audit"): every process evaluates the policy and builds its
 * requests' events; one process, the primary, owns the backends: the log file
 * (whole lines, rotated once, by one writer) and the webhook's batches. A
 * worker hands its events to the primary over the IPC pipe, coalesced per
 * turn of its event loop, in order.
 */
import type { AuditFlags } from './audit-options.ts';
import { logBackend, truncating, union, webhookBackend, withMode, type AuditBackend, type AuditMode } from './backends.ts';
import type { AuditEvent } from './event.ts';
import { RotatingLogFile } from './log-file.ts';
import { loadPolicyFile, PolicyEvaluator } from './policy.ts';
import type { AuditSink } from './request-audit.ts';

/** The worker → primary message that carries events (beside worker-pool's control messages). */
export interface AuditMessage {
  ctl: 'audit';
  events: AuditEvent[];
  /** Set when the worker waits for the events to be stored (a blocking backend): the primary answers with an AuditAck. */
  id?: number;
}

/** primary → worker: the events of message `id` were stored, or (`ok` false) a blocking-strict backend failed. */
export interface AuditAck {
  ctl: 'audit-ack';
  id: number;
  ok: boolean;
}

/** Whether a backend blocks requests on its events (--audit-<plugin>-mode blocking or blocking-strict). */
export function auditBlocks(flags: AuditFlags): boolean {
  return (!!flags.log.path && flags.log.mode !== 'batch') || (!!flags.webhook.configFile && flags.webhook.mode !== 'batch');
}

/** upstream newPolicyRuleEvaluator: no file, no auditing; a bad file stops the start. */
export function loadAuditPolicy(flags: AuditFlags): PolicyEvaluator | undefined {
  if (!flags.policyFile) return undefined;
  try {
    return new PolicyEvaluator(loadPolicyFile(flags.policyFile));
  } catch (err) {
    throw new Error(`loading audit policy file: ${(err as Error).message}`);
  }
}

/** Whether any backend is configured: without one (or without a policy) nothing is audited. */
export function auditEnabled(flags: AuditFlags): boolean {
  return !!flags.policyFile && (!!flags.log.path || !!flags.webhook.configFile);
}

/** The owner's backends: the log (mode, then truncation) and the webhook (truncation, then mode), as upstream composes them. */
export function ownerBackend(flags: AuditFlags): AuditBackend | undefined {
  if (!auditEnabled(flags)) return undefined;
  const backends: AuditBackend[] = [];
  const { log, webhook } = flags;
  if (log.path) {
    const out = log.path === '-' ? process.stdout : openLogFile(flags);
    const backend = withMode(logBackend(out, log.format as 'json' | 'legacy'), log.mode as AuditMode, log.batch, 'log');
    backends.push(truncating(backend, log.truncate));
  }
  if (webhook.configFile) {
    let hook: AuditBackend;
    try {
      hook = webhookBackend(webhook.configFile, webhook.initialBackoffMs, webhook.version);
    } catch (err) {
      throw new Error(`initializing audit webhook: ${(err as Error).message}`);
    }
    backends.push(truncating(withMode(hook, webhook.mode as AuditMode, webhook.batch, 'webhook'), webhook.truncate));
  }
  return backends.length === 1 ? backends[0] : union(backends);
}

function openLogFile(flags: AuditFlags): RotatingLogFile {
  const { path, maxSize, maxBackups, maxAge, compress } = flags.log;
  try {
    return new RotatingLogFile({ path, maxSizeMb: maxSize, maxBackups, maxAgeDays: maxAge, compress });
  } catch (err) {
    throw new Error(`ensureLogFile: ${(err as Error).message}`);
  }
}

/** The primary's sink: straight into its backends (a blocking webhook's send is a promise the request may wait for). */
export function backendSink(backend: AuditBackend): AuditSink {
  return (event) => backend.process([event]);
}

/**
 * The primary's handling of a worker's events: stored by its backends, and
 * acknowledged when the worker waits (`reply` gets whether they were stored).
 */
export function processWorkerEvents(backend: AuditBackend, events: AuditEvent[], reply?: (ok: boolean) => void): void {
  const result = backend.process(events);
  if (typeof result === 'boolean') return reply?.(result);
  result.then(
    () => reply?.(true),
    () => reply?.(false),
  );
}

/**
 * A worker's sink: its events go to the primary in one message per turn of
 * the event loop. With a blocking backend (`blocking`) each event's request
 * waits for the primary's acknowledgement, as it would wait for the write in
 * the primary (upstream's blocking modes block the request on every event).
 */
export function workerSink(blocking: boolean): AuditSink {
  let pending: AuditEvent[] = [];
  let batch: { id: number; done: Promise<void>; settle: (ok: boolean) => void } | undefined;
  const waiting = new Map<number, (ok: boolean) => void>();
  let nextId = 1;
  if (blocking) {
    process.on('message', (message: AuditAck) => {
      if (message?.ctl !== 'audit-ack') return;
      waiting.get(message.id)?.(message.ok);
      waiting.delete(message.id);
    });
    // A primary gone answers nothing more: the requests still waiting fail rather than hang.
    process.once('disconnect', () => {
      for (const settle of waiting.values()) settle(false);
      waiting.clear();
    });
  }
  const flush = () => {
    const events = pending;
    const id = batch?.id;
    if (batch) waiting.set(batch.id, batch.settle);
    pending = [];
    batch = undefined;
    if (process.connected) process.send!({ ctl: 'audit', events, id } satisfies AuditMessage);
    else if (id !== undefined) waiting.get(id)?.(false), waiting.delete(id);
  };
  return (event) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(event);
    if (!blocking) return process.connected;
    if (!batch) {
      let settle!: (ok: boolean) => void;
      const done = new Promise<void>((resolve, reject) => (settle = (ok) => (ok ? resolve() : reject(new Error('failed to store audit event')))));
      batch = { id: nextId++, done, settle };
    }
    return batch.done;
  };
}
