/**
 * /healthz, /livez, /readyz and their per-check paths (SPEC 4.10; FACTS 12).
 */
import type { ServerResponse } from 'node:http';
import { writeText } from './respond.ts';

export interface HealthCheck {
  name: string;
  /** Resolves when healthy; rejects with the reason (logged, never shown). */
  check(): Promise<void>;
  /** Only /readyz runs it. */
  readyzOnly?: boolean;
  /** A post-start hook: /livez reports it healthy during the grace period. */
  postStartHook?: boolean;
}

/** A post-start hook: runs once at start; its check fails with `not finished` until it has. */
export class PostStartHook implements HealthCheck {
  readonly postStartHook = true;
  private done = false;
  private failure: Error | undefined;

  constructor(readonly name: string) {}

  run(task: () => Promise<void>): Promise<void> {
    return task().then(
      () => {
        this.done = true;
      },
      (err: Error) => {
        this.failure = err;
        console.error(`${this.name} failed:`, err);
      },
    );
  }

  async check(): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.done) throw new Error('not finished');
  }
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export class HealthChecks {
  private readonly startedAt = Date.now();

  constructor(
    private readonly checks: HealthCheck[],
    private readonly livezGracePeriodMs: number,
  ) {}

  private checksFor(endpoint: HealthEndpoint): HealthCheck[] {
    return endpoint === 'readyz' ? this.checks : this.checks.filter((c) => !c.readyzOnly);
  }

  private async passes(endpoint: HealthEndpoint, check: HealthCheck): Promise<boolean> {
    if (endpoint === 'livez' && check.postStartHook && Date.now() - this.startedAt < this.livezGracePeriodMs) return true;
    try {
      await check.check();
      return true;
    } catch (err) {
      console.warn(`${endpoint} check ${check.name} failed: ${(err as Error).message}`);
      return false;
    }
  }

  /** `/{endpoint}` with `verbose` and repeatable `exclude` (FACTS 12). */
  async serveAll(endpoint: HealthEndpoint, query: URLSearchParams, res: ServerResponse): Promise<void> {
    const excluded = new Set(query.getAll('exclude'));
    const checks = this.checksFor(endpoint);
    const lines: string[] = [];
    let failed = false;
    for (const check of checks) {
      if (excluded.has(check.name)) {
        excluded.delete(check.name);
        lines.push(`[+]${check.name} excluded: ok`);
        continue;
      }
      if (await this.passes(endpoint, check)) lines.push(`[+]${check.name} ok`);
      else {
        failed = true;
        lines.push(`[-]${check.name} failed: reason withheld`);
      }
    }
    if (excluded.size) lines.push(`warn: some health checks cannot be excluded: no matches for ${[...excluded].map((n) => `"${n}"`).join(',')}`);
    if (failed) {
      lines.push(`${endpoint} check failed`);
      writeText(res, 500, lines.join('\n') + '\n');
      return;
    }
    if (query.has('verbose')) {
      lines.push(`${endpoint} check passed`);
      writeText(res, 200, lines.join('\n') + '\n');
      return;
    }
    writeText(res, 200, 'ok');
  }

  /** `/{endpoint}/{check}`; false when no such check exists. */
  async serveOne(endpoint: HealthEndpoint, name: string, res: ServerResponse): Promise<boolean> {
    const check = this.checksFor(endpoint).find((c) => c.name === name);
    if (!check) return false;
    try {
      if (!(endpoint === 'livez' && check.postStartHook && Date.now() - this.startedAt < this.livezGracePeriodMs)) await check.check();
      writeText(res, 200, 'ok');
    } catch (err) {
      writeText(res, 500, `internal server error: ${(err as Error).message}\n`);
    }
    return true;
  }

  names(endpoint: HealthEndpoint): string[] {
    return this.checksFor(endpoint).map((c) => c.name);
  }
}
