/**
 * One resource request's context as the handlers receive it, of one shape for
 * every request (an object literal with a getter was a new shape per request
 * at the hot path's call sites). The deadline's AbortController is made only
 * when a write asks for `signal`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../../api/user.ts';
import type { ResourceRequest } from '../../handlers/context.ts';
import type { PartialMetadataRequest } from '../../http/negotiation.ts';
import type { RequestInfo } from '../../http/request-info.ts';
import type { EncodeOptions } from '../../http/respond.ts';
import type { GenericStore } from '../../registry/store.ts';
import type { Cacher } from '../../storage/cacher/cacher.ts';
import type { Storage } from '../../storage/interface.ts';
import type { DeadlineSignal } from '../../util/deadline-signal.ts';
import type { Deadline } from '../request-limits.ts';

export class ResourceRequestContext implements ResourceRequest {
  constructor(
    public req: IncomingMessage,
    public res: ServerResponse,
    public info: RequestInfo,
    public query: URLSearchParams,
    public user: UserInfo,
    public store: GenericStore,
    public storage: Storage,
    public cacher: Cacher,
    public namespace: string | undefined,
    public encode: EncodeOptions,
    public table: { apiVersion: string } | undefined,
    public partial: PartialMetadataRequest | undefined,
    private readonly deadline: Deadline | undefined,
    public fromStorage: boolean,
  ) {}

  get signal(): DeadlineSignal | undefined {
    return this.deadline?.signal;
  }
}
