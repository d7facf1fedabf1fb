/**
 * `--runtime-config` (SPEC 9.2, 9.3, 9.8): which built-in group-versions and
 * resources are served. Follows apiserver's APIEnablementOptions (Validate),
 * kube-apiserver's ConvertLegacyGroup, resourceconfig.MergeAPIResourceConfigs
 * and serverstore.ResourceConfig, and kube-apiserver's
 * DefaultAPIResourceConfigSource for the defaults: stable versions on, alpha
 * versions off, beta versions off but for upstream's list of legacy betas.
 * Custom resources are not built-in APIs: the flag never names them (a key of
 * their group is an unknown group, as upstream's registries do not hold it).
 */
import { goParseBool } from '../api/query-values.ts';

/** A built-in resource, as the kind registry describes it. */
export interface RegisteredResource {
  group: string;
  version: string;
  plural: string;
}

export type VersionLevel = 'alpha' | 'beta' | 'ga';

/** A version's level from its name (SPEC 9.2; resourceconfig's gaPattern, betaPattern, alphaPattern); other names have none. */
export function versionLevel(version: string): VersionLevel | undefined {
  if (/^v\d+$/.test(version)) return 'ga';
  if (/^v\d+beta\d+$/.test(version)) return 'beta';
  if (/^v\d+alpha\d+$/.test(version)) return 'alpha';
  return undefined;
}

/**
 * Beta resources served by default (kube-apiserver's
 * legacyBetaEnabledByDefaultResources in 1.31): betas from before the
 * off-by-default rule (SPEC 9.2) that upstream still serves.
 */
const LEGACY_BETAS_ENABLED_BY_DEFAULT = new Set(['flowcontrol.orch.io/v1beta3/flowschemas', 'flowcontrol.orch.io/v1beta3/prioritylevelconfigurations']);

const MATCHERS: Array<[string, (version: string) => boolean]> = [
  ['api/all', () => true],
  ['api/ga', (v) => versionLevel(v) === 'ga'],
  ['api/beta', (v) => versionLevel(v) === 'beta'],
  ['api/alpha', (v) => versionLevel(v) === 'alpha'],
];

/** One `--runtime-config` value into `into` (cliflag.ConfigurationMap.Set: `key[=value]` pairs, trimmed; a repeated flag adds). */
export function parseConfigurationMap(text: string, into: Record<string, string> = {}): Record<string, string> {
  for (const pair of text.split(',')) {
    if (pair.length === 0) continue;
    const at = pair.indexOf('=');
    if (at < 0) into[pair.trim()] = '';
    else into[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return into;
}

/** ConvertLegacyGroup: `api/legacy` is dropped (deprecated, no effect); `v1`, `api/v1` and their resources name the core group. */
function convertLegacyGroup(overrides: Record<string, string>): Map<string, string> {
  const converted = new Map<string, string>();
  for (const [key, value] of Object.entries(overrides)) {
    if (key === 'api/legacy') continue;
    if (key === 'v1' || key.startsWith('v1/')) converted.set(`/${key}`, value);
    else if (key === 'api/v1') converted.set('/v1', value);
    else if (key.startsWith('api/v1/') && key.split('/').length === 3) converted.set(`/v1/${key.split('/')[2]}`, value);
    else converted.set(key, value);
  }
  return converted;
}

/** Which built-in resources are served. */
export interface ApiEnablement {
  resourceEnabled(group: string, version: string, resource: string): boolean;
}

/**
 * Resolves the flag against the registered resources, with upstream's errors
 * (thrown): `invalid runtime-config with only api/all=false`, `runtime-config
 * invalid key K`, `unknown api groups G/V`, `group version G/V that has not
 * been registered`, `invalid value api/all=x`, `invalid value of K: x, err:
 * ...`, and the lower-case rule of a resource key. A resource key naming no
 * resource of a registered version is accepted and changes nothing, as upstream.
 */
export function resolveRuntimeConfig(overrides: Record<string, string>, registered: readonly RegisteredResource[]): ApiEnablement {
  const keys = Object.keys(overrides);
  if (overrides['api/all'] === 'false' && keys.length === 1) throw new Error('invalid runtime-config with only api/all=false');
  const config = convertLegacyGroup(overrides);
  const groups = new Set(registered.map((r) => r.group));
  const versions = new Set(registered.map((r) => `${r.group}/${r.version}`));
  const unknown = new Set<string>();
  for (const key of config.keys()) {
    if (MATCHERS.some(([name]) => name === key)) continue;
    const tokens = key.split('/');
    if ((tokens.length !== 2 && tokens.length !== 3) || tokens[1] === '') throw new Error(`runtime-config invalid key ${key}`);
    if (!groups.has(tokens[0])) unknown.add(`${tokens[0] ? `${tokens[0]}/` : ''}${tokens[1]}`);
  }
  if (unknown.size) throw new Error(`unknown api groups ${[...unknown].sort().join(',')}`);

  // The defaults, then api/all, api/ga, api/beta, api/alpha in that order.
  const versionEnabled = new Map<string, boolean>([...versions].map((gv) => [gv, versionLevel(gv.slice(gv.indexOf('/') + 1)) === 'ga']));
  const resourceEnabled = new Map<string, boolean>();
  for (const r of registered) {
    const key = `${r.group}/${r.version}/${r.plural}`;
    if (LEGACY_BETAS_ENABLED_BY_DEFAULT.has(key)) resourceEnabled.set(key, true);
  }
  const dropResourcesOf = (gv: string) => {
    for (const key of resourceEnabled.keys()) if (key.startsWith(`${gv}/`)) resourceEnabled.delete(key);
  };
  for (const [name, matches] of MATCHERS) {
    const value = config.get(name);
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false') throw new Error(`invalid value ${name}=${value}`);
    for (const gv of versionEnabled.keys()) {
      if (!matches(gv.slice(gv.indexOf('/') + 1))) continue;
      versionEnabled.set(gv, value === 'true');
      dropResourcesOf(gv);
    }
  }
  const versionPreferences: Array<[string, boolean]> = [];
  const resourcePreferences: Array<[string, boolean]> = [];
  for (const [key, value] of config) {
    if (MATCHERS.some(([name]) => name === key)) continue;
    const tokens = key.split('/');
    const gv = `${tokens[0]}/${tokens[1]}`;
    if (!versions.has(gv)) throw new Error(`group version ${tokens[0] ? gv : tokens[1]} that has not been registered`);
    const enabled = value === '' ? true : goParseBool(value);
    if (enabled === undefined) throw new Error(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    if (tokens.length === 2) versionPreferences.push([gv, enabled]);
    else if (tokens[2].toLowerCase() !== tokens[2]) {
      throw new Error(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(tokens[2])}`);
    } else resourcePreferences.push([key, enabled]);
  }
  // Versions first, dropping the defaults of their resources; resources last, the highest priority.
  for (const [gv, enabled] of versionPreferences) {
    versionEnabled.set(gv, enabled);
    dropResourcesOf(gv);
  }
  for (const [key, enabled] of resourcePreferences) resourceEnabled.set(key, enabled);
  return {
    resourceEnabled(group, version, resource) {
      return resourceEnabled.get(`${group}/${version}/${resource}`) ?? versionEnabled.get(`${group}/${version}`) ?? false;
    },
  };
}
