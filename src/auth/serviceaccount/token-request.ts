/**
 * POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token (SPEC 5.2): a
 * TokenRequest in, the same with status.token out, as upstream's
 * registry/core/serviceaccount/storage/token.go.
 */
import * as errors from '../../api/status-error.ts';
import type { ComputedCreate, ComputedRequest } from '../../registry/computed.ts';
import type { ApiObject } from '../../registry/strategy.ts';
import type { ObjectReader } from '../../registry/object-reader.ts';
import { invalid as invalidField } from '../../registry/validation/field-errors.ts';
import type { SigningKey } from './keys.ts';
import { issueBoundToken, type BoundObject } from './tokens.ts';

/** Upstream's token.WarnOnlyBoundTokenExpirationSeconds and ExpirationExtensionSeconds. */
export const WARN_ONLY_EXPIRATION_S = 60 * 60 + 7;
const EXTENDED_EXPIRATION_S = 24 * 365 * 60 * 60;
const MIN_EXPIRATION_S = 10 * 60;

export interface TokenRequestOptions {
  signing: SigningKey;
  issuer: string;
  apiAudiences: string[];
  /** --service-account-max-token-expiration in seconds; 0: none. */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration. */
  extendExpiration: boolean;
  serviceAccounts: ObjectReader;
  pods: ObjectReader;
  secrets: ObjectReader;
  /**
   * Admission of the TokenRequest (a create of serviceaccounts/token), where
   * upstream's TokenREST.Create has it: mutating plugins before the account
   * is read, validating ones once the request is valid.
   */
  admit?: (phase: 'mutate' | 'validate', tokenRequest: ApiObject, request: ComputedRequest) => Promise<void>;
}

export function tokenRequest(options: TokenRequestOptions): ComputedCreate {
  return async (request) => {
    const { body, namespace, parentName, warn } = request;
    const name = parentName!;
    await options.admit?.('mutate', body, request);
    const account = await options.serviceAccounts.get(namespace, name);
    if (!account) throw errors.notFound({ group: '', resource: 'serviceaccounts' }, name);
    const spec = { ...(body.spec ?? {}) };
    if (!Array.isArray(spec.audiences) || spec.audiences.length === 0) spec.audiences = [...options.apiAudiences];
    spec.expirationSeconds ??= 3600;
    const metadata = { ...body.metadata };
    metadata.name ||= name;
    metadata.namespace ||= namespace;
    const nowS = Math.floor(Date.now() / 1000);
    metadata.creationTimestamp = new Date(nowS * 1000).toISOString().replace('.000Z', 'Z');
    const problems = [];
    if (spec.expirationSeconds < MIN_EXPIRATION_S) problems.push(invalidField('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 10 minutes'));
    if (spec.expirationSeconds > 2 ** 32) problems.push(invalidField('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
    if (problems.length) throw errors.invalid('TokenRequest', 'authentication.orch.io', '', problems);
    await options.admit?.('validate', { ...body, metadata, spec }, request);

    let bound: BoundObject | undefined;
    const ref = spec.boundObjectRef;
    if (ref) {
      const group = typeof ref.apiVersion === 'string' && ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
      let object;
      if (group === '' && ref.kind === 'Pod') {
        object = await options.pods.get(namespace, ref.name);
        if (!object) throw errors.notFound({ group: '', resource: 'pods' }, ref.name);
        if (object.spec?.serviceAccountName !== name) {
          throw errors.badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
        }
      } else if (group === '' && ref.kind === 'Secret') {
        object = await options.secrets.get(namespace, ref.name);
        if (!object) throw errors.notFound({ group: '', resource: 'secrets' }, ref.name);
      } else {
        throw errors.badRequest(`cannot bind token to object of type ${group ? `${group}/` : ''}${ref.apiVersion?.split('/').pop() ?? ''}, Kind=${ref.kind ?? ''}`);
      }
      if (ref.uid && ref.uid !== object.metadata.uid) {
        throw errors.conflict(
          { group, resource: ref.kind },
          ref.name,
          `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        );
      }
      bound = { kind: ref.kind, name: ref.name, uid: object.metadata.uid };
    }
    if (options.maxExpirationSeconds > 0 && spec.expirationSeconds > options.maxExpirationSeconds) {
      warn(`requested expiration of ${spec.expirationSeconds} seconds shortened to ${options.maxExpirationSeconds} seconds`);
      spec.expirationSeconds = options.maxExpirationSeconds;
    }
    // Projected tokens asking for 3607 s get a year, warning after the hour, so clients that do not
    // refresh keep working while the operator sees who they are (upstream's safe transition).
    let expiration = spec.expirationSeconds;
    let warnAfterSeconds: number | undefined;
    const ownAudiences = spec.audiences.every((a: string) => options.apiAudiences.includes(a));
    if (options.extendExpiration && bound?.kind === 'Pod' && expiration === WARN_ONLY_EXPIRATION_S && ownAudiences) {
      warnAfterSeconds = expiration;
      expiration = EXTENDED_EXPIRATION_S;
    }
    const token = await issueBoundToken(options.signing, options.issuer, { account, audiences: spec.audiences, expirationSeconds: expiration, warnAfterSeconds, bound, nowS });
    const expires = new Date((nowS + spec.expirationSeconds) * 1000).toISOString().replace('.000Z', 'Z');
    return { ...body, metadata, spec, status: { token, expirationTimestamp: expires } };
  };
}
