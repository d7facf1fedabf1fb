/**
 * Auditing across the pool of processes (upstream AuditOptions.ApplyTo, and
 * ARCHITECTURE "Audit"): every process evaluates the policy and builds its
 * requests' events; one process, the primary, owns the backends: the log file
 * (whole lines, rotated once, by one writer) and the webhook's batches. A
 * worker hands its events to the primary over the IPC pipe, coalesced per
 * turn of its event loop, in order.
 */
import type { AuditFlags, AuditMode } from '../cli/audit-flags.ts';
import { logBackend, truncating, union, webhookBackend, withMode, type AuditBackend } from './backends.ts';
import type { AuditEvent } from './event.ts';
import { RotatingLogFile } from './log-file.ts';
import { loadPolicyFile, PolicyEvaluator } from './policy.ts';
import type { AuditSink } from './request-audit.ts';

/** The worker → primary message that carries events (beside worker-pool's control messages). */
export interface AuditMessage {
  ctl: 'audit';
  events: AuditEvent[];
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

/** The primary's handling of a worker's events: nobody waits for them, a failure was already logged. */
export function processWorkerEvents(backend: AuditBackend, events: AuditEvent[]): void {
  const result = backend.process(events);
  if (typeof result !== 'boolean') result.catch(() => {});
}

/** A worker's sink: its events go to the primary in one message per turn of the event loop. */
export function workerSink(): AuditSink {
  let pending: AuditEvent[] = [];
  const flush = () => {
    const events = pending;
    pending = [];
    if (process.connected) process.send!({ ctl: 'audit', events } satisfies AuditMessage);
  };
  return (event) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(event);
    return process.connected;
  };
}
