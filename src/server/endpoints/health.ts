/**
 * /healthz, /livez, /readyz and their per-check paths (SPEC 4.10; FACTS 12).
 * The checks of one endpoint run concurrently and each is bounded in time, so a
 * frozen store makes the probe fail within its check timeout instead of hanging.
 */
import { observeHealthcheck } from '../../metrics/sli-registry.ts';
import type { ServerResponse } from 'node:http';
import { writeText } from '../../http/respond.ts';
import type { Endpoint } from './endpoint.ts';

export interface HealthCheck {
  name: string;
  /** Resolves when healthy; rejects with the reason (logged, never shown). */
  check(): Promise<void>;
  /** A check still pending after this long fails (default: the HealthChecks' own bound). */
  timeoutMs?: number;
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

/** Bound of a check without its own timeout: upstream's etcd checks default to 2 s as well. */
const DEFAULT_CHECK_TIMEOUT_MS = 2_000;

export class HealthChecks {
  private readonly startedAt = Date.now();

  constructor(
    private readonly checks: HealthCheck[],
    private readonly livezGracePeriodMs: number,
    private readonly defaultTimeoutMs = DEFAULT_CHECK_TIMEOUT_MS,
  ) {}

  /** Runs a check, failing it when it has not settled within its timeout. */
  private run(endpoint: HealthEndpoint, check: HealthCheck): Promise<void> {
    if (endpoint === 'livez' && check.postStartHook && Date.now() - this.startedAt < this.livezGracePeriodMs) return Promise.resolve();
    const timeoutMs = check.timeoutMs ?? this.defaultTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([check.check(), expired]).finally(() => clearTimeout(timer));
  }

  private checksFor(endpoint: HealthEndpoint): HealthCheck[] {
    return endpoint === 'readyz' ? this.checks : this.checks.filter((c) => !c.readyzOnly);
  }

  private async passes(endpoint: HealthEndpoint, check: HealthCheck): Promise<boolean> {
    try {
      await this.run(endpoint, check);
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
    const outcomes = await Promise.all(checks.map((check) => (excluded.has(check.name) ? 'excluded' : this.passes(endpoint, check))));
    // Upstream's root handlers record each check they ran for /metrics/slis; the per-check paths do not.
    checks.forEach((check, i) => outcomes[i] !== 'excluded' && observeHealthcheck(check.name, endpoint, outcomes[i] === true));
    const lines: string[] = [];
    let failed = false;
    checks.forEach((check, i) => {
      if (outcomes[i] === 'excluded') {
        excluded.delete(check.name);
        lines.push(`[+]${check.name} excluded: ok`);
      } else if (outcomes[i]) lines.push(`[+]${check.name} ok`);
      else {
        failed = true;
        lines.push(`[-]${check.name} failed: reason withheld`);
      }
    });
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
      await this.run(endpoint, check);
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

const HEALTH_PATH = /^\/(healthz|livez|readyz)(?:\/(.+))?$/;

/** The probes for every method, as upstream's mux serves them; a check that does not exist is 404. */
export function healthEndpoint(health: HealthChecks): Endpoint {
  const serveCheck = async (endpoint: HealthEndpoint, name: string, res: ServerResponse): Promise<true> => {
    if (!(await health.serveOne(endpoint, name, res))) writeText(res, 404, '404 page not found\n');
    return true;
  };
  return {
    methods: 'any',
    serve(request, path) {
      const match = HEALTH_PATH.exec(path);
      if (!match) return false;
      const endpoint = match[1] as HealthEndpoint;
      if (!match[2]) return health.serveAll(endpoint, request.target!.query, request.res).then(() => true);
      return serveCheck(endpoint, match[2], request.res);
    },
  };
}
