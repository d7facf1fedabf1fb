/**
 * Creates that compute an answer and store nothing (SPEC 2.8, 4.11): the
 * reviews (SelfSubjectReview, TokenReview, later the access reviews) and
 * action subresources such as serviceaccounts/token. Upstream's REST objects
 * that implement only rest.Creater.
 */
import type { UserInfo } from '../api/user.ts';
import type { ApiObject } from './strategy.ts';
import type { DeadlineSignal } from '../util/deadline-signal.ts';

export interface ComputedRequest {
  /** The request body, decoded by the generated decoder of its kind (types, unknown fields, defaults). */
  body: ApiObject;
  /** Who asks, after impersonation. */
  user: UserInfo;
  /** The namespace of the path, for namespaced resources. */
  namespace?: string;
  /** The name of the object a subresource belongs to (the service account of serviceaccounts/token). */
  parentName?: string;
  dryRun: boolean;
  /** The request's deadline. */
  signal?: DeadlineSignal;
  /** Adds a warning to the response (a `Warning` header, SPEC 4.9). */
  warn(message: string): void;
}

/** Computes the answer, written 201 Created as upstream's create handler writes it. */
export type ComputedCreate = (request: ComputedRequest) => Promise<ApiObject>;
