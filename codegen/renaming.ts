/**
 * The renaming rule (../shared/reference/FACTS.md §0) applied to upstream
 * material as it enters the contract: schema names `io.k8s.*` → `io.orch.*`,
 * API groups `*.k8s.io` → `*.orch.io`, identifiers inside descriptions.
 * `x-kubernetes-*` extension names, URLs and prose words ("Kubernetes",
 * "kubelet") stay, because tooling and readers rely on them.
 */

export const UPSTREAM_SCHEMA_PREFIX = 'io.k8s.';
export const ORCH_SCHEMA_PREFIX = 'io.orch.';

export const isUpstreamName = (name: string): boolean => name.startsWith(UPSTREAM_SCHEMA_PREFIX);

/** `io.k8s.api.core.v1.Pod` → `io.orch.api.core.v1.Pod`. */
export function renameSchemaName(name: string): string {
  if (!isUpstreamName(name)) throw new Error(`not an upstream schema name: ${name}`);
  return ORCH_SCHEMA_PREFIX + name.slice(UPSTREAM_SCHEMA_PREFIX.length);
}

/** The upstream name a contract name was renamed from (`io.orch.X` → `io.k8s.X`), or undefined. */
export function upstreamNameOf(contractName: string): string | undefined {
  return contractName.startsWith(ORCH_SCHEMA_PREFIX) ? UPSTREAM_SCHEMA_PREFIX + contractName.slice(ORCH_SCHEMA_PREFIX.length) : undefined;
}

/** API group rename: `x.k8s.io` → `x.orch.io`; the spec spells flowcontrol without `apiserver.`. */
export function renameGroup(group: string): string {
  if (group === 'flowcontrol.apiserver.k8s.io') return 'flowcontrol.orch.io';
  return group.replace(/(^|\.)k8s\.io$/, '$1orch.io').replace(/(^|\.)kubernetes\.io$/, '$1orch.io');
}

/**
 * Spans of description text that are references to upstream material and stay
 * byte-for-byte: URLs (https://git.k8s.io/..., https://kubernetes.io/docs/...)
 * and Go module paths of upstream projects (sigs.k8s.io/structured-merge-diff).
 */
const PROTECTED_SPANS = /(https?:\/\/[^\s"'<>()[\]]+|\bsigs\.k8s\.io\/[A-Za-z0-9._/-]+)/;

/** Identifier rule inside prose: rename identifiers, keep prose words ("Kubernetes", "kubelet") and URLs. */
export function renameText(text: string): string {
  return text
    .split(PROTECTED_SPANS)
    .map((part, i) => {
      if (i % 2 === 1) return part; // protected span (captured by the split regex)
      return part
        .replace(/\bflowcontrol\.apiserver\.k8s\.io\b/g, 'flowcontrol.orch.io')
        .replace(/\b((?:[a-z0-9-]+\.)*)k8s\.io\b/g, '$1orch.io')
        .replace(/\b((?:[a-z0-9-]+\.)*)kubernetes\.io\//g, '$1orch.io/')
        .replace(/\bvnd\.kubernetes\b/g, 'vnd.orch')
        .replace(/\bkube-(system|public|node-lease)\b/g, 'orch-$1');
    })
    .join('');
}

/** The Go package of a schema: its name without the last segment (`io.k8s.api.core.v1`). */
export function packageOf(schemaName: string): string {
  return schemaName.slice(0, schemaName.lastIndexOf('.'));
}
