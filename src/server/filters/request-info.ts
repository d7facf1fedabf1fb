/**
 * upstream filters/requestinfo.go WithRequestInfo: the request target parsed
 * as sent (a 400 for any path that does not name one thing), then the verb,
 * group, version, namespace, resource, subresource and name every later
 * filter reads (SPEC 4.1, 5.1). Also what the request's failures are written
 * in from now on: pretty-printed when asked (SPEC 4.3), and for API
 * resources in protobuf when that is what the client accepts first.
 */
import { PROTOBUF_TYPE } from '../../api/protobuf/envelope.ts';
import { asksProtobufStatus } from '../../http/negotiation.ts';
import { resolveRequestInfo } from '../../http/request-info.ts';
import { parseRequestTarget } from '../../http/request-target.ts';
import { wantsPretty } from '../../http/respond.ts';
import type { Filter } from './filter.ts';

export const requestInfo: Filter = {
  run(request, services) {
    const { req, encode } = request;
    const target = (request.target = parseRequestTarget(req.url ?? ''));
    encode.pretty = wantsPretty(req, target.query);
    const info = (request.info = resolveRequestInfo(req.method ?? 'GET', target, services.requestInfo));
    // upstream's 401 and 403 on API resources are negotiated with the built-in codecs (ErrorNegotiated):
    // a client asking for protobuf gets its Status so. Discovery and other paths stay JSON.
    if (info.isResourceRequest && asksProtobufStatus(req)) encode.mediaType = PROTOBUF_TYPE;
  },
};
