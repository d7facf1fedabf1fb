/**
 * The server's authorizer (SPEC 5.1): the chain the legacy flags describe, or
 * the one `--authorization-config` describes, reloaded as the file changes.
 * Webhook entries become webhook authorizers here; Node and RBAC are the
 * instances the composition root made once.
 */
import type { AuthorizerEntry } from '../auth/authorization/authorizer-entries.ts';
import type { Authorizer } from '../auth/authorization/authorizer.ts';
import { buildAuthorizer, type AuthorizerFactories } from '../auth/authorization/build-authorizer.ts';
import { loadAuthorizationConfig, readAuthorizationConfigFile } from '../auth/authorization/authorization-config.ts';
import { authorizationConfigReloads } from '../auth/authorization/reload-metrics.ts';
import { ReloadingAuthorizer } from '../auth/authorization/reloading-authorizer.ts';
import { webhookAuthorizer } from '../auth/authorization/webhook-authorizer.ts';

export interface AuthorizationConfigFile {
  file: string;
  data: string;
  entries: AuthorizerEntry[];
}

/** Reads and validates `--authorization-config` at start-up; its error is the start-up error. */
export function readAuthorizationConfiguration(file: string, selectors: boolean): AuthorizationConfigFile {
  const data = readAuthorizationConfigFile(file);
  return { file, data, entries: loadAuthorizationConfig(data, { selectors }) };
}

/** The authorizer every request, impersonation and access review asks; `stop` ends the file's watch. */
export function serverAuthorizer(
  entries: AuthorizerEntry[],
  config: AuthorizationConfigFile | undefined,
  shared: Pick<AuthorizerFactories, 'Node' | 'RBAC' | 'ABAC'>,
  selectors: boolean,
): { authorizer: Authorizer; stop(): void } {
  const factories: AuthorizerFactories = { ...shared, Webhook: (entry) => webhookAuthorizer(entry.webhook, { authorizeWithSelectors: selectors }) };
  if (!config) return { authorizer: buildAuthorizer(entries, factories), stop: () => {} };
  const reloading = new ReloadingAuthorizer({
    file: config.file,
    data: config.data,
    entries: config.entries,
    build: (next) => buildAuthorizer(next, factories),
    load: { selectors },
    metrics: authorizationConfigReloads,
  });
  reloading.start();
  return { authorizer: reloading, stop: () => reloading.stop() };
}
