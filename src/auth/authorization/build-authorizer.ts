/**
 * Builds the chain an entry list describes (SPEC 5.1 items 3, 5, 6):
 * system:masters first, as upstream's privileged-groups authorizer, then each
 * entry's authorizer in order. The composition root supplies how each type is
 * made, so this module knows no storage and no network.
 */
import { alwaysAllow, alwaysDeny, chain, privilegedGroups, type Authorizer } from './authorizer.ts';
import type { AuthorizerEntry } from './authorizer-entries.ts';

type EntryOf<T extends AuthorizerEntry['type']> = Extract<AuthorizerEntry, { type: T }>;

/** How each authorizer type is made; Node and RBAC are made once and shared by every chain built. */
export interface AuthorizerFactories {
  Node?: () => Authorizer;
  RBAC?: () => Authorizer;
  ABAC?: (entry: EntryOf<'ABAC'>) => Authorizer;
  Webhook?: (entry: EntryOf<'Webhook'>) => Authorizer;
}

export function buildAuthorizer(entries: AuthorizerEntry[], factories: AuthorizerFactories): Authorizer {
  const authorizers = entries.map((entry): Authorizer => {
    switch (entry.type) {
      case 'AlwaysAllow':
        return alwaysAllow;
      case 'AlwaysDeny':
        return alwaysDeny;
      case 'Node':
      case 'RBAC': {
        const make = factories[entry.type];
        if (!make) throw new Error(`authorizer type ${entry.type} is not available`);
        return make();
      }
      case 'ABAC':
        if (!factories.ABAC) throw new Error('authorizer type ABAC is not available');
        return factories.ABAC(entry);
      case 'Webhook':
        if (!factories.Webhook) throw new Error('authorizer type Webhook is not available');
        return factories.Webhook(entry);
    }
  });
  return chain([privilegedGroups, ...authorizers]);
}
