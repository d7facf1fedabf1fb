/**
 * Serves the published contract: /openapi/v2 and /openapi/v3 with one document
 * per group/version addressed by content hash (FACTS 4; kube-openapi handler3).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GeneratedApi } from '../registry/kind.ts';
import { notAcceptable } from '../api/status-error.ts';
import { parseAccept } from './respond.ts';

interface PublishedDocument {
  body: Buffer;
  hash: string;
}

function acceptsJson(req: IncomingMessage): boolean {
  const ranges = parseAccept(req.headers.accept);
  if (ranges.length === 0) return true;
  return ranges.some((r) => (r.type === 'application' || r.type === '*') && (r.subtype === 'json' || r.subtype === '*'));
}

export class OpenApiPublisher {
  private readonly v3 = new Map<string, PublishedDocument>();
  private v2: Buffer | undefined;

  constructor(private readonly api: GeneratedApi) {}

  private document(path: string): PublishedDocument | undefined {
    const file = this.api.openapiV3Paths[path];
    if (!file) return undefined;
    let doc = this.v3.get(path);
    if (!doc) {
      const body = this.api.readPublishedOpenApi(file);
      doc = { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
      this.v3.set(path, doc);
    }
    return doc;
  }

  /** Returns false when the path is not an OpenAPI path. */
  serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean {
    if (path !== '/openapi/v2' && path !== '/openapi/v3' && !path.startsWith('/openapi/v3/')) return false;
    if (!acceptsJson(req)) throw notAcceptable(['application/json']);
    if (path === '/openapi/v2') {
      this.v2 ??= this.api.readPublishedOpenApi('v2.json');
      res.writeHead(200, { 'Content-Type': 'application/json', ETag: `"${createHash('sha512').update(this.v2).digest('hex').toUpperCase()}"` });
      res.end(this.v2);
      return true;
    }
    if (path === '/openapi/v3') {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const gv of Object.keys(this.api.openapiV3Paths).sort()) {
        paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${this.document(gv)!.hash}` };
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ paths }));
      return true;
    }
    const gv = path.slice('/openapi/v3/'.length);
    const doc = this.document(gv);
    if (!doc) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
      return true;
    }
    const hash = query.get('hash');
    if (hash && hash !== doc.hash) {
      res.writeHead(301, { Location: `/openapi/v3/${gv}?hash=${doc.hash}` });
      res.end();
      return true;
    }
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Etag: `"${doc.hash}"` };
    if (hash) {
      headers['Cache-Control'] = 'public, immutable';
      headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
    }
    res.writeHead(200, headers);
    res.end(doc.body);
    return true;
  }
}
