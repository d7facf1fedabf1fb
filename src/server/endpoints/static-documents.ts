/**
 * Fixed documents at non-resource paths (service-account issuer discovery,
 * ../issuer-discovery.ts), on GET and HEAD, by the path as sent.
 */
import type { StaticDocuments } from '../issuer-discovery.ts';
import type { Endpoint } from './endpoint.ts';

export function staticDocumentsEndpoint(documents: StaticDocuments): Endpoint {
  return {
    methods: 'read',
    async serve({ req, res, info }) {
      const document = await documents.get(info!.path);
      if (!document) return false;
      // Upstream lets relying parties cache these for an hour.
      res.writeHead(200, { 'Content-Type': document.contentType, 'Cache-Control': 'public, max-age=3600' });
      res.end(req.method === 'HEAD' ? undefined : document.body);
      return true;
    },
  };
}
