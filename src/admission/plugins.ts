/**
 * The admission plugins this server has, in upstream's recommended order
 * (kube-apiserver AllOrderedPlugins), and kube-apiserver's
 * `--enable-admission-plugins` / `--disable-admission-plugins` over them
 * (k8s.io/apiserver pkg/server/options/admission.go: Validate and
 * enabledPluginNames, their messages word for word).
 *
 * Upstream leaves NodeRestriction off unless enabled; here every plugin is on
 * by default, NodeRestriction included, because the Node authorizer it
 * completes is part of the intended default chain (Node,RBAC): without it a
 * node could write every node and every pod's status.
 */
import type { AdmissionAttributes, AdmissionHook } from '../registry/store.ts';
import { goQuote } from '../util/go-print.ts';

export const ADMISSION_PLUGINS = ['NamespaceLifecycle', 'ServiceAccount', 'NodeRestriction', 'DefaultIngressClass'] as const;
export type AdmissionPluginName = (typeof ADMISSION_PLUGINS)[number];

/** Plugins off unless enabled (upstream DefaultOffAdmissionPlugins); none here. */
export const DEFAULT_OFF_PLUGINS: readonly string[] = [];

export interface AdmissionPluginFlags {
  enable: string[];
  disable: string[];
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** upstream AdmissionOptions.Validate: unknown names, and a plugin both enabled and disabled. */
export function validateAdmissionFlags(flags: AdmissionPluginFlags): string[] {
  const registered = new Set<string>(ADMISSION_PLUGINS);
  const errors: string[] = [];
  for (const name of flags.enable) if (!registered.has(name)) errors.push(`enable-admission-plugins plugin ${goQuote(name)} is unknown`);
  for (const name of flags.disable) if (!registered.has(name)) errors.push(`disable-admission-plugins plugin ${goQuote(name)} is unknown`);
  const overlap = sorted(flags.enable.filter((name) => flags.disable.includes(name)));
  // Go's %v of a []string: [a b]
  if (overlap.length) errors.push(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  return errors;
}

/** upstream enabledPluginNames: the default-on plugins and the enabled ones, minus the disabled, in the recommended order. */
export function enabledAdmissionPlugins(flags: AdmissionPluginFlags): AdmissionPluginName[] {
  const disabled = new Set([...DEFAULT_OFF_PLUGINS, ...flags.disable].filter((name) => !flags.enable.includes(name)));
  return ADMISSION_PLUGINS.filter((name) => !disabled.has(name));
}

/** Runs hooks one after another, as upstream's chain admission handler does. */
export function chainHooks(hooks: AdmissionHook[]): AdmissionHook {
  if (hooks.length === 1) return hooks[0];
  return async (attributes: AdmissionAttributes) => {
    for (const hook of hooks) await hook(attributes);
  };
}
