/**
 * The paths that are not API resources (upstream's NonGoRestfulMux and the
 * discovery and OpenAPI handlers): an ordered table of endpoints, each
 * answering its own paths, after the same filters as every request. Then
 * the rules for the rest: another method on a path that only reads is 405,
 * an unknown /api or /apis path a Status 404, and anything else Go's mux's
 * plain-text 404.
 */
import * as errors from '../../api/status-error.ts';
import { writeText } from '../../http/respond.ts';
import type { ApiRequest } from '../filters/api-request.ts';

export interface Endpoint {
  /** Served for GET and HEAD only ('read': other methods pass it by), or for every method ('any'). */
  readonly methods: 'read' | 'any';
  /** Answers a request for one of its paths (`path` without its trailing slash) and returns true; false when the path is not its own. */
  serve(request: ApiRequest, path: string): boolean | Promise<boolean>;
  /** Whether `path` is one of its paths, where other methods are 405; absent: they are 404 there. */
  refusesOtherMethods?(path: string): boolean;
}

export class NonResourceRouter {
  /** `endpoints` in the order they are consulted: the first that owns the path answers. */
  constructor(private readonly endpoints: readonly Endpoint[]) {}

  async serve(request: ApiRequest): Promise<void> {
    const { path } = request.info!;
    const trimmed = path.length > 1 ? path.replace(/\/$/, '') : path;
    const method = request.req.method;
    const reading = method === 'GET' || method === 'HEAD';
    for (const endpoint of this.endpoints) {
      if (endpoint.methods === 'read' && !reading) continue;
      if (await endpoint.serve(request, trimmed)) return;
    }
    if (!reading) {
      if (this.endpoints.some((endpoint) => endpoint.refusesOtherMethods?.(trimmed))) throw errors.methodNotAllowed();
    } else if (/^\/apis?(\/|$)/.test(trimmed)) throw errors.routeNotFound();
    writeText(request.res, 404, '404 page not found\n');
  }
}
