/**
 * The AuthorizationConfiguration reload counters (SPEC 5.1.6), as upstream's
 * apiserver_authorization_config_controller_automatic_reloads_total{status}
 * and ..._automatic_reload_last_timestamp_seconds{status}: kept here, process
 * wide as upstream's registry keeps them, for /metrics to export.
 */
export type ReloadStatus = 'success' | 'failure';

export interface ReloadCounts {
  /** automatic_reloads_total by status. */
  total: Record<ReloadStatus, number>;
  /** automatic_reload_last_timestamp_seconds by status; absent until the first of that status. */
  lastTimestampSeconds: Partial<Record<ReloadStatus, number>>;
}

export class ReloadMetrics {
  private readonly counts: ReloadCounts = { total: { success: 0, failure: 0 }, lastTimestampSeconds: {} };

  record(status: ReloadStatus, now = Date.now()): void {
    this.counts.total[status]++;
    this.counts.lastTimestampSeconds[status] = now / 1000;
  }

  snapshot(): ReloadCounts {
    return { total: { ...this.counts.total }, lastTimestampSeconds: { ...this.counts.lastTimestampSeconds } };
  }
}

/** The server's counters. */
export const authorizationConfigReloads = new ReloadMetrics();
