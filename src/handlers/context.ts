/**
 * What every generic handler receives: the request, its resolved info, the
 * store of the addressed resource, and how to encode the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GenericStore } from '../registry/store.ts';
import type { RequestInfo } from '../http/request-info.ts';
import type { PartialMetadataRequest } from '../http/negotiation.ts';
import type { EncodeOptions } from '../http/respond.ts';
import type { UserInfo } from '../api/user.ts';
import type { Storage } from '../storage/interface.ts';
import type { Cacher } from '../storage/cacher/cacher.ts';
import type { DeadlineSignal } from '../util/deadline-signal.ts';

export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  user: UserInfo;
  store: GenericStore;
  storage: Storage;
  cacher: Cacher;
  /** Namespace for namespaced kinds, undefined for cluster-scoped ones. */
  namespace: string | undefined;
  encode: EncodeOptions;
  /** Whether the client accepts Table (SPEC 2.5, 4.7), and the group-version it asked for (`meta.orch.io/v1`, ...). */
  table?: { apiVersion: string };
  /** Whether the client asked for metadata only (SPEC 2.5, 4.7), as which kind and group-version. */
  partial?: PartialMetadataRequest;
  /**
   * Reads and watches go to storage instead of the watch cache (--watch-cache,
   * --watch-cache-sizes; upstream's undecorated storage).
   */
  fromStorage?: boolean;
  /** The request's deadline (--request-timeout); undefined for long-running requests. Writes carry it to storage. */
  signal?: DeadlineSignal;
}
