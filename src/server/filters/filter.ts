/**
 * What one stage of the request path is (upstream's handler-chain filters,
 * k8s.io/apiserver pkg/endpoints/filters and pkg/server/filters). Upstream
 * nests each filter around the next; here they run one after the other over
 * one {@link ApiRequest}, which does the same without a closure per filter
 * and request: a filter passes the request on by returning, stops it by
 * throwing (the chain answers the failure, once), and undoes what it did in
 * `finish`, which runs for every request in the reverse order of the list,
 * as upstream's deferred calls unwind.
 */
import type { Auditor } from '../../audit/request-audit.ts';
import type { Authorizer } from '../../auth/authorization/authorizer.ts';
import type { UserInfo } from '../../api/user.ts';
import type { IncomingMessage } from 'node:http';
import type { RequestInfoOptions } from '../../http/request-info.ts';
import type { Deadlines, InflightLimiter, RequestLimits } from '../request-limits.ts';
import type { ApiRequest } from './api-request.ts';
import type { ShutdownGate } from './shutdown-gate.ts';

/** What the filters use of the server: made once, shared by every request. */
export interface FilterServices {
  readonly shutdown: ShutdownGate;
  readonly requestInfo: RequestInfoOptions | undefined;
  readonly limits: RequestLimits;
  readonly deadlines: Deadlines;
  readonly authenticate: (req: IncomingMessage, path: string) => Promise<UserInfo>;
  readonly auditor: Auditor | undefined;
  readonly authorizer: Authorizer;
  readonly inflight: InflightLimiter;
}

export interface Filter {
  /** Passes the request on by returning, once a returned promise settles; throws to have the failure answered; sets `request.answered` when it answered itself. */
  run(request: ApiRequest, services: FilterServices): void | Promise<void>;
  /** Called for every request that failed, whichever filter or handler threw, before the failure is answered. */
  failed?(request: ApiRequest, services: FilterServices, err: unknown): void;
  /** Called for every request once it is done, whether or not this filter ran. */
  finish?(request: ApiRequest, services: FilterServices): void;
}
