/**
 * The audit settings the server starts with (upstream pkg/server/options/
 * audit.go AuditOptions): the policy file, and the log and webhook backends
 * with their modes, batching and truncation. setup.ts builds the policy and
 * the backends from them; the --audit-* flags that set them, with their
 * defaults, help and start-up checks, are the command line's
 * (cli/audit-flags.ts).
 */
import type { BatchConfig, TruncateConfig } from './backends.ts';

/** What each backend's flags set (--audit-<plugin>-mode, -batch-*, -truncate-*, -version). */
export interface AuditBackendFlags {
  /** An AuditMode once the flags are checked (cli/audit-flags.ts validateAuditFlags). */
  mode: string;
  batch: BatchConfig;
  truncate: TruncateConfig;
  version: string;
}

export interface AuditFlags {
  policyFile: string;
  log: AuditBackendFlags & { path: string; maxAge: number; maxBackups: number; maxSize: number; format: string; compress: boolean };
  webhook: AuditBackendFlags & { configFile: string; initialBackoffMs: number };
}
