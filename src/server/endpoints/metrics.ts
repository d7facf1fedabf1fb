/**
 * GET /metrics and /metrics/slis (SPEC 9.5): the pool's series in Prometheus
 * text format 0.0.4, as upstream's legacyregistry and slis handlers.
 */
import type { ApiRequest } from '../filters/api-request.ts';
import type { MetricsSource, RegistryName } from '../metrics/pool-metrics.ts';
import type { Endpoint } from './endpoint.ts';

export function metricsEndpoint(source: MetricsSource): Endpoint {
  const gather = async ({ req, res }: ApiRequest, registry: RegistryName): Promise<true> => {
    const text = await source.gather(registry);
    res.writeHead(200, { 'Content-Type': source.contentType });
    res.end(req.method === 'HEAD' ? undefined : text);
    return true;
  };
  return {
    methods: 'read',
    serve(request, path) {
      if (path === '/metrics') return gather(request, 'metrics');
      if (path === '/metrics/slis') return gather(request, 'slis');
      return false;
    },
  };
}
