/**
 * Kubernetes' authorizer library (SPEC 2.11; upstream pkg/cel/library/authz.go,
 * 1.31): checks against the server's authorizer chain from an expression, for
 * fields that provide the variable `authorizer`
 * (`kubernetes.authorization.Authorizer`: the requesting user and the chain).
 *
 *   authorizer.group(g).resource(r)[.subresource(s)][.namespace(ns)][.name(n)].check(verb)
 *   authorizer.path(p).check(httpVerb)
 *   authorizer.serviceAccount(ns, name)  -- the same chain, as that service account
 *   <Decision>.allowed() / .reason() / .errored() / .error()
 *
 * Under AuthorizeWithSelectors, `authzSelectorsLibrary` adds
 * `<ResourceCheck>.fieldSelector(s)` and `.labelSelector(s)`: the selector is
 * parsed when the check runs, and one that does not parse reaches the
 * authorizers as its error with no requirements (the expression goes on).
 *
 * Every environment declares the library, the registry's too, so it stands
 * below the authorizers and the selector grammar and names neither: a check
 * asks a CheckAuthorizer, which the layer that holds the server's chain lends
 * with the activation (auth/authorization/authorizer-activation.ts, which also
 * parses the selectors), rather than the chain being registered here.
 *
 * The values are opaque, as upstream's receiver-only objects: no fields, no
 * equality. The builders are pure; `check` asks the chain, which answers
 * asynchronously, so an expression that checks must be evaluated with
 * `evaluateAsync` (deferred.ts); a decision is asked once per evaluation.
 * A chain that fails (rejects) gives a decision that errored.
 *
 * Costs (SPEC 8, upstream cost.go): `check` 350000 (two checks fit the
 * per-expression budget), the builders and accessors 1, the selectors a parse
 * of their text plus 50 per possible requirement (one per two characters).
 *
 * Fields that evaluate against an admission request also provide
 * `authorizer.requestResource` (`kubernetes.authorization.ResourceCheck`):
 * the request's own resource, as upstream's admission CEL declares it
 * (`requestResourceCheck`).
 */
import { actualSize } from './cost.ts';
import { awaited } from './deferred.ts';
import { add, byFactor, fixed, type CostEstimate, type SizeEstimate } from './estimate-math.ts';
import { nominalEstimate, traverse } from './estimate-standard.ts';
import type { CelLibrary } from './library.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../api/names.ts';
import { serviceAccountGroups, serviceAccountUsername, type UserInfo } from '../api/user.ts';

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';
export const PATH_CHECK_TYPE = 'kubernetes.authorization.PathCheck';
export const GROUP_CHECK_TYPE = 'kubernetes.authorization.GroupCheck';
export const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck';
export const DECISION_TYPE = 'kubernetes.authorization.Decision';

/** The variable fields with an authorizer declare (upstream's admission CEL: `authorizer`). */
export const AUTHORIZER_VARIABLE = 'authorizer';
/** The variable of the admission request's own resource (upstream RequestResourceAuthorizerVarName). */
export const REQUEST_RESOURCE_VARIABLE = 'authorizer.requestResource';

/** An authorization check's fixed cost (upstream cost.go: "set to allow for only two authorization checks per expression"). */
export const CHECK_COST = 350_000;
/** cel-go's common.ListCreateBaseCost and StructCreateBaseCost, which upstream's selector estimate uses. */
const SELECTOR_LIST_BASE = 10;
const SELECTOR_REQUIREMENT_COST = 10 + 40;

/**
 * A check as the library asks it (upstream's authorizer.AttributesRecord, as
 * authz.go fills it in), its selectors as the expression wrote them ('' for
 * none): the authorizer's side parses them.
 */
export interface CheckAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  fieldSelector: string;
  labelSelector: string;
}

/** The chain's answer (upstream's decision, reason and error); `error`: the chain could not decide. */
export interface CheckResult {
  decision: 'Allow' | 'Deny' | 'NoOpinion';
  reason: string;
  error?: string;
}

/** Whom the checks ask: the server's authorizer chain, as the layer that holds it lends it (authorizer-activation.ts). */
export interface CheckAuthorizer {
  authorize(check: CheckAttributes): Promise<CheckResult>;
}

/** `kubernetes.authorization.Authorizer`: who checks, against which chain. */
export class CelAuthorizer {
  readonly #user: UserInfo;
  readonly #authorizer: CheckAuthorizer;

  constructor(user: UserInfo, authorizer: CheckAuthorizer) {
    this.#user = user;
    this.#authorizer = authorizer;
  }

  get user(): UserInfo {
    return this.#user;
  }

  get authorizer(): CheckAuthorizer {
    return this.#authorizer;
  }
}

/** `kubernetes.authorization.PathCheck`. */
export class PathCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly path: string,
  ) {}
}

/** `kubernetes.authorization.GroupCheck`. */
export class GroupCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly group: string,
  ) {}
}

interface ResourceFields {
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector: string;
  labelSelector: string;
}

/** `kubernetes.authorization.ResourceCheck`: immutable, each builder returns a new one. */
export class ResourceCheck {
  constructor(
    readonly groupCheck: GroupCheck,
    readonly resource: string,
    readonly fields: Readonly<ResourceFields> = { subresource: '', namespace: '', name: '', fieldSelector: '', labelSelector: '' },
  ) {}

  with(change: Partial<ResourceFields>): ResourceCheck {
    return new ResourceCheck(this.groupCheck, this.resource, { ...this.fields, ...change });
  }
}

/** `kubernetes.authorization.Decision`: the chain's answer. */
export class CelDecision {
  constructor(
    readonly decision: CheckResult['decision'],
    readonly reason: string,
    /** Why the chain could not decide, if it could not. */
    readonly error?: string,
  ) {}
}

/** The admission request's own resource, as `authorizer.requestResource` checks it (upstream NewResourceAuthorizerVal). */
export interface RequestResource {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** upstream NewResourceAuthorizerVal: a ResourceCheck of the request's resource, as the request's user. */
export function requestResourceCheck(authz: CelAuthorizer, request: RequestResource): ResourceCheck {
  return new ResourceCheck(new GroupCheck(authz, request.group), request.resource, {
    subresource: request.subresource,
    namespace: request.namespace,
    name: request.name,
    fieldSelector: '',
    labelSelector: '',
  });
}

/**
 * The activation entries of an authorizer (`authorizer`, and with `request`
 * `authorizer.requestResource`) for `user` against `authorizer`.
 */
export function authorizerVariables(user: UserInfo, authorizer: CheckAuthorizer, request?: RequestResource): Record<string, unknown> {
  const authz = new CelAuthorizer(user, authorizer);
  const activation: Record<string, unknown> = { [AUTHORIZER_VARIABLE]: authz };
  if (request) activation[REQUEST_RESOURCE_VARIABLE] = requestResourceCheck(authz, request);
  return activation;
}

const blank = (s: string) => s.trim() === '';

function path(authz: CelAuthorizer, p: string): PathCheck {
  if (blank(p)) throw new Error('path must not be empty');
  return new PathCheck(authz, p);
}

function resource(group: GroupCheck, r: string): ResourceCheck {
  if (blank(r)) throw new Error('resource must not be empty');
  return new ResourceCheck(group, r);
}

/** upstream: the name must be a DNS subdomain, then the namespace a DNS label; the account's user info (no uid, no extra). */
function serviceAccount(authz: CelAuthorizer, namespace: string, name: string): CelAuthorizer {
  if (isDNS1123Subdomain(name).length) throw new Error('Invalid service account name');
  if (isDNS1123Label(namespace).length) throw new Error('Invalid service account namespace');
  return new CelAuthorizer({ name: serviceAccountUsername(namespace, name), groups: serviceAccountGroups(namespace) }, authz.authorizer);
}


/** Which chain an evaluation asked, so that two chains' answers are never confused. */
const chainIds = new WeakMap<CheckAuthorizer, number>();
let nextChainId = 0;
const chainId = (a: CheckAuthorizer) => chainIds.get(a) ?? (chainIds.set(a, ++nextChainId), nextChainId);

/** Asks the chain (once per evaluation: deferred.ts); a rejection is a decision that errored, with no opinion. */
function decide(authz: CelAuthorizer, attributes: CheckAttributes): CelDecision {
  const key = `authorization ${chainId(authz.authorizer)} ${JSON.stringify(attributes)}`;
  const result = awaited<CheckResult>(
    key,
    () => authz.authorizer.authorize(attributes).catch((err: unknown): CheckResult => ({ decision: 'NoOpinion', reason: '', error: (err as Error)?.message ?? String(err) })),
    'an authorization check',
  );
  return new CelDecision(result.decision, result.reason, result.error);
}

function checkPath(check: PathCheck, verb: string): CelDecision {
  return decide(check.authz, {
    user: check.authz.user,
    verb,
    isResourceRequest: false,
    path: check.path,
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    fieldSelector: '',
    labelSelector: '',
  });
}

function checkResource(check: ResourceCheck, verb: string): CelDecision {
  const { authz, group } = check.groupCheck;
  const { subresource, namespace, name, fieldSelector, labelSelector } = check.fields;
  return decide(authz, {
    user: authz.user,
    verb,
    isResourceRequest: true,
    path: '',
    group,
    // upstream checks every version of the resource.
    version: '*',
    namespace,
    resource: check.resource,
    subresource,
    name,
    // Set only through authzSelectorsLibrary, which is there only under AuthorizeWithSelectors.
    fieldSelector,
    labelSelector,
  });
}

const nominal = () => 1;

/** upstream selectorCostEstimate: a parse, plus a list of up to one requirement per two characters. */
export function selectorEstimate(length: SizeEstimate): CostEstimate {
  return add(add(fixed(SELECTOR_LIST_BASE), traverse(length)), byFactor(byFactor(length, 0.5), SELECTOR_REQUIREMENT_COST));
}

/** The runtime cost: selectorCostEstimate at the selector's actual length. */
export const selectorCost = (length: number): number => selectorEstimate(fixed(length)).max;

const BUILDERS_AND_ACCESSORS = ['serviceAccount', 'path', 'group', 'resource', 'subresource', 'namespace', 'name', 'allowed', 'reason', 'error', 'errored'];

const A = AUTHORIZER_TYPE;
const P = PATH_CHECK_TYPE;
const G = GROUP_CHECK_TYPE;
const R = RESOURCE_CHECK_TYPE;
const D = DECISION_TYPE;

/** The authorizer library, in every environment as in upstream's base environment (1.27+). */
export const authzLibrary: CelLibrary = {
  name: 'kubernetes.authz',
  types: [
    { name: A, ctor: CelAuthorizer },
    { name: P, ctor: PathCheck },
    { name: G, ctor: GroupCheck },
    { name: R, ctor: ResourceCheck },
    { name: D, ctor: CelDecision },
  ],
  functions: [
    { signature: `${A}.path(string): ${P}`, impl: path },
    { signature: `${A}.group(string): ${G}`, impl: (a: CelAuthorizer, g: string) => new GroupCheck(a, g) },
    { signature: `${A}.serviceAccount(string, string): ${A}`, impl: serviceAccount },
    { signature: `${G}.resource(string): ${R}`, impl: resource },
    { signature: `${R}.subresource(string): ${R}`, impl: (r: ResourceCheck, subresource: string) => r.with({ subresource }) },
    { signature: `${R}.namespace(string): ${R}`, impl: (r: ResourceCheck, namespace: string) => r.with({ namespace }) },
    { signature: `${R}.name(string): ${R}`, impl: (r: ResourceCheck, name: string) => r.with({ name }) },
    { signature: `${P}.check(string): ${D}`, impl: checkPath },
    { signature: `${R}.check(string): ${D}`, impl: checkResource },
    { signature: `${D}.allowed(): bool`, impl: (d: CelDecision) => d.decision === 'Allow' },
    { signature: `${D}.reason(): string`, impl: (d: CelDecision) => d.reason },
    { signature: `${D}.errored(): bool`, impl: (d: CelDecision) => Boolean(d.error) },
    { signature: `${D}.error(): string`, impl: (d: CelDecision) => d.error ?? '' },
  ],
  // upstream's receiver-only values compare with nothing: `==` type-checks, and fails when it runs.
  operators: [A, P, G, R, D].map((t) => ({
    signature: `${t} == ${t}`,
    impl: () => {
      throw new Error('no such overload');
    },
  })),
  costs: {
    check: () => CHECK_COST,
    ...Object.fromEntries(BUILDERS_AND_ACCESSORS.map((f) => [f, nominal])),
  },
  estimates: {
    check: () => ({ cost: fixed(CHECK_COST) }),
    ...Object.fromEntries(BUILDERS_AND_ACCESSORS.map((f) => [f, nominalEstimate])),
  },
};

/** The selectors of an authorization check (upstream AuthzSelectors), under the AuthorizeWithSelectors gate only. */
export const authzSelectorsLibrary: CelLibrary = {
  name: 'kubernetes.authzSelectors',
  functions: [
    { signature: `${R}.fieldSelector(string): ${R}`, impl: (r: ResourceCheck, fieldSelector: string) => r.with({ fieldSelector }) },
    { signature: `${R}.labelSelector(string): ${R}`, impl: (r: ResourceCheck, labelSelector: string) => r.with({ labelSelector }) },
  ],
  costs: {
    fieldSelector: (args) => selectorCost(actualSize(args[1])),
    labelSelector: (args) => selectorCost(actualSize(args[1])),
  },
  estimates: {
    fieldSelector: ({ args }) => (args.length === 1 ? { cost: selectorEstimate(args[0].size()) } : undefined),
    labelSelector: ({ args }) => (args.length === 1 ? { cost: selectorEstimate(args[0].size()) } : undefined),
  },
};
