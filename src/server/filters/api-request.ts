/**
 * One request as the chain carries it (upstream keeps these in the request's
 * context.Context: request info, user, audit event, deadline). One class, so
 * every request has one shape at the filters' and the router's property
 * reads; every field is set in the constructor and filled in by the filter
 * that owns it, in the chain's order.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestAudit } from '../../audit/request-audit.ts';
import type { UserInfo } from '../../api/user.ts';
import type { RequestInfo } from '../../http/request-info.ts';
import type { RequestTarget } from '../../http/request-target.ts';
import type { EncodeOptions } from '../../http/respond.ts';
import type { Deadline } from '../request-limits.ts';

export class ApiRequest {
  /** The parsed path and query (request-info filter). */
  target: RequestTarget | undefined = undefined;
  /** What the path and method ask for (request-info filter). */
  info: RequestInfo | undefined = undefined;
  /** Counted among the requests a graceful shutdown waits for (wait-group filter). */
  awaitedByShutdown = false;
  /** --request-timeout or `timeout` for a request that is not long-running (deadline filter). */
  deadline: Deadline | undefined = undefined;
  /** Who sent it (authentication filter). */
  authenticated: UserInfo | undefined = undefined;
  /** Its audit event, when the policy records it (audit filter). */
  audit: RequestAudit | undefined = undefined;
  /** Who it runs as: the authenticated user or the one it impersonates (impersonation filter). */
  user: UserInfo | undefined = undefined;
  /** Gives back its in-flight slot (in-flight limit filter). */
  release: (() => void) | undefined = undefined;
  /** A filter answered it itself (the shutdown's 429): the rest of the chain and the router do not run. */
  answered = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    /** How its answer, or its failure, is written: filled in by negotiation as the chain learns it. */
    readonly encode: EncodeOptions,
  ) {}
}
