/** /openapi/v2, /openapi/v3 and each group-version's document (SPEC 4.1), as the publisher holds them now. */
import type { OpenApiPublisher } from '../openapi.ts';
import type { Endpoint } from './endpoint.ts';

export function openApiEndpoint(publisher: OpenApiPublisher): Endpoint {
  return {
    methods: 'read',
    serve: ({ req, res, target }, path) => publisher.serve(req, res, path, target!.query),
  };
}
