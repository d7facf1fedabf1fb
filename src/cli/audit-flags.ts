/**
 * The --audit-* flags with upstream's names, defaults, help and start-up
 * validation messages (k8s.io/apiserver pkg/server/options/audit.go).
 */
import type { AuditBackendFlags, AuditFlags } from '../audit/audit-options.ts';
import { AUDIT_MODES, type TruncateConfig } from '../audit/backends.ts';

const FORMATS = ['legacy', 'json'];
const AUDIT_V1 = 'audit.orch.io/v1';

const truncateDefaults = (): TruncateConfig => ({ enabled: false, maxBatchSize: 10 * 1024 * 1024, maxEventSize: 100 * 1024 });

export function defaultAuditFlags(): AuditFlags {
  return {
    policyFile: '',
    log: {
      path: '', maxAge: 366, maxBackups: 100, maxSize: 100, format: 'json', compress: false, mode: 'blocking', version: AUDIT_V1,
      // Batching is not useful for the log file: one event at a time, as upstream's default.
      batch: { bufferSize: 10_000, maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: false, throttleQps: 0, throttleBurst: 0 },
      truncate: truncateDefaults(),
    },
    webhook: {
      configFile: '', initialBackoffMs: 10_000, mode: 'batch', version: AUDIT_V1,
      batch: { bufferSize: 10_000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttleEnable: true, throttleQps: 10, throttleBurst: 15 },
      truncate: truncateDefaults(),
    },
  };
}

/** Parsers the flag table lends (Go's syntax for each pflag type). */
export interface FlagParsers {
  int(text: string): number;
  float(text: string): number;
  bool(text: string): boolean;
  duration(text: string): number;
}

export interface AuditFlagSpec {
  name: string;
  value: string;
  help: string;
  apply(audit: AuditFlags, value: string, parse: FlagParsers): void;
}

function backendSpecs(plugin: 'log' | 'webhook'): AuditFlagSpec[] {
  const d = defaultAuditFlags()[plugin];
  const b = (a: AuditFlags) => a[plugin];
  return [
    { name: `audit-${plugin}-mode`, value: 'string', help: `Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are ${AUDIT_MODES.join(',')}. (default "${d.mode}")`, apply: (a, v) => (b(a).mode = v) },
    { name: `audit-${plugin}-batch-buffer-size`, value: 'int', help: `The size of the buffer to store events before batching and writing. Only used in batch mode. (default ${d.batch.bufferSize})`, apply: (a, v, p) => (b(a).batch.bufferSize = p.int(v)) },
    { name: `audit-${plugin}-batch-max-size`, value: 'int', help: `The maximum size of a batch. Only used in batch mode. (default ${d.batch.maxBatchSize})`, apply: (a, v, p) => (b(a).batch.maxBatchSize = p.int(v)) },
    { name: `audit-${plugin}-batch-max-wait`, value: 'duration', help: `The amount of time to wait before force writing the batch that hadn't reached the max size. Only used in batch mode.${plugin === 'webhook' ? ' (default 30s)' : ''}`, apply: (a, v, p) => (b(a).batch.maxBatchWaitMs = p.duration(v)) },
    { name: `audit-${plugin}-batch-throttle-enable`, value: 'bool', help: `Whether batching throttling is enabled. Only used in batch mode.${d.batch.throttleEnable ? ' (default true)' : ''}`, apply: (a, v, p) => (b(a).batch.throttleEnable = p.bool(v)) },
    { name: `audit-${plugin}-batch-throttle-qps`, value: 'float32', help: `Maximum average number of batches per second. Only used in batch mode.${d.batch.throttleQps ? ` (default ${d.batch.throttleQps})` : ''}`, apply: (a, v, p) => (b(a).batch.throttleQps = p.float(v)) },
    { name: `audit-${plugin}-batch-throttle-burst`, value: 'int', help: `Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.${d.batch.throttleBurst ? ` (default ${d.batch.throttleBurst})` : ''}`, apply: (a, v, p) => (b(a).batch.throttleBurst = p.int(v)) },
    { name: `audit-${plugin}-truncate-enabled`, value: 'bool', help: 'Whether event and batch truncating is enabled.', apply: (a, v, p) => (b(a).truncate.enabled = p.bool(v)) },
    { name: `audit-${plugin}-truncate-max-batch-size`, value: 'int', help: 'Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size. (default 10485760)', apply: (a, v, p) => (b(a).truncate.maxBatchSize = p.int(v)) },
    { name: `audit-${plugin}-truncate-max-event-size`, value: 'int', help: 'Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn\'t reduce the size enough, event is discarded. (default 102400)', apply: (a, v, p) => (b(a).truncate.maxEventSize = p.int(v)) },
    { name: `audit-${plugin}-version`, value: 'string', help: `API group and version used for serializing audit events written to ${plugin}. (default "${AUDIT_V1}")`, apply: (a, v) => (b(a).version = v) },
  ];
}

export const AUDIT_FLAG_SPECS: AuditFlagSpec[] = [
  { name: 'audit-policy-file', value: 'string', help: 'Path to the file that defines the audit policy configuration.', apply: (a, v) => (a.policyFile = v) },
  { name: 'audit-log-path', value: 'string', help: "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out.", apply: (a, v) => (a.log.path = v) },
  { name: 'audit-log-maxage', value: 'int', help: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename. Setting a value of 0 means old audit log files are not removed based on age. (default 366)', apply: (a, v, p) => (a.log.maxAge = p.int(v)) },
  { name: 'audit-log-maxbackup', value: 'int', help: "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files. (default 100)", apply: (a, v, p) => (a.log.maxBackups = p.int(v)) },
  { name: 'audit-log-maxsize', value: 'int', help: 'The maximum size in megabytes of the audit log file before it gets rotated. Setting to 0 disables rotation (not recommended). (default 100)', apply: (a, v, p) => (a.log.maxSize = p.int(v)) },
  { name: 'audit-log-format', value: 'string', help: `Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are ${FORMATS.join(',')}. (default "json")`, apply: (a, v) => (a.log.format = v) },
  { name: 'audit-log-compress', value: 'bool', help: 'If set, the rotated log files will be compressed using gzip.', apply: (a, v, p) => (a.log.compress = p.bool(v)) },
  ...backendSpecs('log'),
  { name: 'audit-webhook-config-file', value: 'string', help: 'Path to a orchconfig formatted file that defines the audit webhook configuration.', apply: (a, v) => (a.webhook.configFile = v) },
  { name: 'audit-webhook-initial-backoff', value: 'duration', help: 'The amount of time to wait before retrying the first failed request. (default 10s)', apply: (a, v, p) => (a.webhook.initialBackoffMs = p.duration(v)) },
  { name: 'audit-webhook-batch-initial-backoff', value: 'duration', help: 'The amount of time to wait before retrying the first failed request. (DEPRECATED: Deprecated, use --audit-webhook-initial-backoff instead.)', apply: (a, v, p) => {
    console.warn('Flag --audit-webhook-batch-initial-backoff has been deprecated, Deprecated, use --audit-webhook-initial-backoff instead.');
    a.webhook.initialBackoffMs = p.duration(v);
  } },
  ...backendSpecs('webhook'),
];

function validateBatch(plugin: string, b: AuditBackendFlags): string[] {
  if (!(AUDIT_MODES as readonly string[]).includes(b.mode)) return [`invalid audit ${plugin} mode ${b.mode}, allowed modes are "${AUDIT_MODES.join(',')}"`];
  if (b.mode !== 'batch') return [];
  const c = b.batch;
  if (c.bufferSize <= 0) return [`invalid audit batch ${plugin} buffer size ${c.bufferSize}, must be a positive number`];
  if (c.maxBatchSize <= 0) return [`invalid audit batch ${plugin} max batch size ${c.maxBatchSize}, must be a positive number`];
  if (c.throttleEnable && c.throttleQps <= 0) return [`invalid audit batch ${plugin} throttle QPS ${c.throttleQps}, must be a positive number`];
  if (c.throttleEnable && c.throttleBurst <= 0) return [`invalid audit batch ${plugin} throttle burst ${c.throttleBurst}, must be a positive number`];
  return [];
}

function validateBackend(plugin: string, b: AuditBackendFlags): string[] {
  const errors = validateBatch(plugin, b);
  const t = b.truncate;
  if (t.maxEventSize <= 0) errors.push(`invalid audit truncate ${plugin} max event size ${t.maxEventSize}, must be a positive number`);
  else if (t.maxBatchSize < t.maxEventSize) errors.push(`invalid audit truncate ${plugin} max batch size ${t.maxBatchSize}, must be greater than max event size (${t.maxEventSize})`);
  if (b.version !== AUDIT_V1) errors.push(/^[^/]*(\/[^/]*)?$/.test(b.version) ? `invalid group version, allowed versions are "[${AUDIT_V1}]"` : `unexpected GroupVersion string: ${b.version}`);
  return errors;
}

/** upstream AuditOptions.Validate: each enabled backend's problems, all of them. */
export function validateAuditFlags(a: AuditFlags): string[] {
  const errors: string[] = [];
  if (a.log.path) {
    errors.push(...validateBackend('log', a.log));
    if (!FORMATS.includes(a.log.format)) errors.push(`invalid audit log format ${a.log.format}, allowed formats are "${FORMATS.join(',')}"`);
    if (a.log.maxAge < 0) errors.push(`--audit-log-maxage ${a.log.maxAge} can't be a negative number`);
    if (a.log.maxBackups < 0) errors.push(`--audit-log-maxbackup ${a.log.maxBackups} can't be a negative number`);
    if (a.log.maxSize < 0) errors.push(`--audit-log-maxsize ${a.log.maxSize} can't be a negative number`);
  }
  if (a.webhook.configFile) errors.push(...validateBackend('webhook', a.webhook));
  return errors;
}
