/**
 * The feature gates (SPEC 9.6): the catalog of every gate this server knows,
 * with its 1.31 stage and default, the `--feature-gates` parser, and the one
 * typed accessor every switch reads. Follows component-base featuregate
 * (`featureGate.Set`, `SetFromMap`, `Enabled`, `KnownFeatures`) and the 1.31
 * stages of kube_features.go / apiserver pkg/features.
 */
import { goParseBool } from '../api/query-values.ts';

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA';

interface FeatureSpec {
  stage: FeatureStage;
  default: boolean;
  /** GA gates kept only to be accepted: setting them otherwise is an error. */
  lockToDefault?: boolean;
  /** Said in the help after the gate: what it switches here, when that is not obvious. */
  note?: string;
}

/** Every gate, by name. Alpha gates are off, beta on, GA locked on (SPEC 9.6). */
export const FEATURE_GATES = {
  APIResponseCompression: { stage: 'BETA', default: true, note: 'gzip of responses over 128 KiB' },
  AnonymousAuthConfigurableEndpoints: { stage: 'ALPHA', default: false },
  AuthorizeWithSelectors: { stage: 'ALPHA', default: false },
  StructuredAuthorizationConfiguration: { stage: 'BETA', default: true },
  WatchList: { stage: 'ALPHA', default: false },
  APISelfSubjectReview: { stage: 'GA', default: true, lockToDefault: true },
  ProxyTerminatingEndpoints: { stage: 'GA', default: true, lockToDefault: true, note: 'no effect: this server has no Services or kube-proxy' },
  ServiceIPStaticSubrange: { stage: 'GA', default: true, lockToDefault: true, note: 'no effect: this server has no Services' },
} satisfies Record<string, FeatureSpec>;

export type FeatureGateName = keyof typeof FEATURE_GATES;

/** The settings `--feature-gates` gave, by name (AllAlpha and AllBeta included); unset gates take their default. */
export type FeatureGateSettings = Readonly<Record<string, boolean>>;

/** Upstream's two pseudo-gates: they set every alpha (beta) gate not named explicitly. */
const ALL_STAGE_GATES: Record<string, FeatureStage> = { AllAlpha: 'ALPHA', AllBeta: 'BETA' };

function specOf(name: string): FeatureSpec | undefined {
  return Object.hasOwn(FEATURE_GATES, name) ? (FEATURE_GATES as Record<string, FeatureSpec>)[name] : undefined;
}

/**
 * Whether a gate is on: locked gates at their default, then the explicit
 * setting, then AllAlpha/AllBeta for the gate's stage, then the default
 * (featureGate.Enabled with the allAlphaGate/allBetaGate setters).
 */
export function featureEnabled(settings: FeatureGateSettings | undefined, name: FeatureGateName): boolean {
  const spec: FeatureSpec = FEATURE_GATES[name];
  if (spec.lockToDefault) return spec.default;
  const explicit = settings?.[name];
  if (explicit !== undefined) return explicit;
  if (spec.stage === 'ALPHA' && settings?.AllAlpha !== undefined) return settings.AllAlpha;
  if (spec.stage === 'BETA' && settings?.AllBeta !== undefined) return settings.AllBeta;
  return spec.default;
}

/**
 * One `--feature-gates` value, `Name=bool` pairs, added to `into` (a repeated
 * flag adds). Errors are upstream's: `missing bool value for X`, `invalid value
 * of X=v, err: ...`, `unrecognized feature gate: X`, `cannot set feature gate X
 * to false, feature is locked to true` (featureGate.Set and SetFromMap).
 */
export function parseFeatureGates(text: string, into: Record<string, boolean> = {}): Record<string, boolean> {
  const given: Record<string, boolean> = {};
  for (const pair of text.split(',')) {
    if (pair.length === 0) continue;
    const at = pair.indexOf('=');
    const name = (at < 0 ? pair : pair.slice(0, at)).trim();
    if (at < 0) throw new Error(`missing bool value for ${name}`);
    const value = pair.slice(at + 1).trim();
    const enabled = goParseBool(value);
    if (enabled === undefined) throw new Error(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    given[name] = enabled;
  }
  for (const [name, enabled] of Object.entries(given)) {
    const spec = specOf(name);
    if (!spec && !(name in ALL_STAGE_GATES)) throw new Error(`unrecognized feature gate: ${name}`);
    if (spec?.lockToDefault && enabled !== spec.default) throw new Error(`cannot set feature gate ${name} to ${enabled}, feature is locked to ${spec.default}`);
    into[name] = enabled;
  }
  return into;
}

/**
 * The flag's help as upstream prints it (featureGate.AddFlag, KnownFeatures):
 * the settable gates sorted, `Name=true|false (STAGE - default=x)`, GA gates
 * left out of that list; here they follow, named, as accepted and locked.
 */
export function featureGatesHelp(): string {
  const known = [
    'AllAlpha=true|false (ALPHA - default=false)',
    'AllBeta=true|false (BETA - default=false)',
    ...Object.entries(FEATURE_GATES as Record<string, FeatureSpec>)
      .filter(([, spec]) => spec.stage !== 'GA')
      .map(([name, spec]) => `${name}=true|false (${spec.stage} - default=${spec.default})`),
  ].sort();
  const locked = Object.entries(FEATURE_GATES as Record<string, FeatureSpec>)
    .filter(([, spec]) => spec.stage === 'GA')
    .map(([name, spec]) => `${name}=true (GA - locked${spec.note ? `; ${spec.note}` : ''})`);
  return `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n${known.join('\n')}\nGA gates, accepted only as true: ${locked.join(', ')}.`;
}

/** Upstream's warning for a GA gate set explicitly (SetFromMap). */
export function featureGateWarnings(settings: FeatureGateSettings): string[] {
  return Object.keys(settings)
    .filter((name) => specOf(name)?.stage === 'GA')
    .map((name) => `Setting GA feature gate ${name}=${settings[name]}. It will be removed in a future release.`);
}
