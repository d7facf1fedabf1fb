/**
 * The registry served at /metrics/slis (upstream component-base
 * metrics/prometheus/slis, the ComponentSLIs endpoint): the result of every
 * health check the root /healthz, /livez and /readyz handlers run.
 */
import { Counter, Gauge, Registry } from 'prom-client';

export const sliRegistry = new Registry();

const healthcheck = new Gauge({
  name: 'kubernetes_healthcheck',
  help: '[STABLE] This metric records the result of a single healthcheck.',
  labelNames: ['name', 'type'] as const,
  registers: [sliRegistry],
  // Over the pool: 0 when any process's last run of the check failed.
  aggregator: 'min',
});

const healthchecksTotal = new Counter({
  name: 'kubernetes_healthchecks_total',
  help: '[STABLE] This metric records the results of all healthcheck.',
  labelNames: ['name', 'type', 'status'] as const,
  registers: [sliRegistry],
});

/** upstream slis.ObserveHealthcheck: `type` is the endpoint (healthz, livez, readyz). */
export function observeHealthcheck(name: string, type: string, passed: boolean): void {
  healthcheck.labels(name, type).set(passed ? 1 : 0);
  healthchecksTotal.labels(name, type, passed ? 'success' : 'error').inc();
}
