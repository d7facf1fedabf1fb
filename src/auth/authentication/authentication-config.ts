/**
 * `--authentication-config` (SPEC 5.3): an AuthenticationConfiguration
 * (`apiserver.config.orch.io/v1alpha1` or `v1beta1`). This server builds its
 * `anonymous` section, under the AnonymousAuthConfigurableEndpoints gate as
 * upstream 1.31; `jwt` authenticators are not built, so a file naming any is
 * refused at start rather than half-honoured.
 */
import { readFileSync } from 'node:fs';
import { yaml } from '../../util/lazy-packages.ts';

export interface AnonymousConfig {
  enabled: boolean;
  /** Paths that accept anonymous requests; empty: every path. */
  paths: string[];
}

const VERSIONS = ['apiserver.config.orch.io/v1alpha1', 'apiserver.config.orch.io/v1beta1'];

/** Reads the file; errors name the file and the field as upstream's validation words them. */
export function loadAuthenticationConfig(
  file: string,
  gates: { anonymousConfigurable: boolean },
  anonymousFlagSet: boolean,
): { anonymous?: AnonymousConfig } {
  let doc: any;
  try {
    doc = yaml().parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`failed to load AuthenticationConfiguration from file "${file}": ${(err as Error).message}`);
  }
  const fail = (message: string): never => {
    throw new Error(`failed to load AuthenticationConfiguration from file "${file}": ${message}`);
  };
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) fail('not an object');
  if (doc.kind !== 'AuthenticationConfiguration') fail(`kind ${JSON.stringify(doc.kind)} is not AuthenticationConfiguration`);
  if (!VERSIONS.includes(doc.apiVersion)) fail(`apiVersion ${JSON.stringify(doc.apiVersion)} is not one of ${VERSIONS.join(', ')}`);
  for (const key of Object.keys(doc)) {
    if (!['apiVersion', 'kind', 'jwt', 'anonymous'].includes(key)) fail(`strict decoding error: unknown field "${key}"`);
  }
  if (Array.isArray(doc.jwt) ? doc.jwt.length > 0 : doc.jwt != null) {
    fail('jwt: Forbidden: JWT authenticators are not supported by this server');
  }
  if (doc.anonymous == null) return {};
  if (!gates.anonymousConfigurable) fail('anonymous is not supported when AnonymousAuthConfigurableEnpoints feature gate is disabled');
  if (anonymousFlagSet) fail('anonymous is not supported when --anonymous-auth is set');
  const { enabled, conditions = [], ...rest } = doc.anonymous;
  if (Object.keys(rest).length) fail(`strict decoding error: unknown field "anonymous.${Object.keys(rest)[0]}"`);
  if (typeof enabled !== 'boolean') fail('anonymous.enabled: Required value: must be true or false');
  if (!Array.isArray(conditions)) fail('anonymous.conditions: Invalid value: must be a list');
  if (!enabled && conditions.length) fail('anonymous.conditions: Invalid value: anonymous is not enabled, conditions must not be set');
  const paths: string[] = [];
  conditions.forEach((c: any, i: number) => {
    const path = c?.path;
    if (typeof path !== 'string' || path === '') fail(`anonymous.conditions[${i}].path: Required value`);
    if (paths.includes(path)) fail(`anonymous.conditions[${i}].path: Duplicate value: ${JSON.stringify(path)}`);
    paths.push(path);
  });
  return { anonymous: { enabled, paths } };
}
