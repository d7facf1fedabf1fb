/**
 * Pruning of unknown fields (SPEC 9.7; upstream apiextensions-apiserver
 * pkg/apiserver/schema/pruning/algorithm.go): removes, in place, every object
 * field the structural schema does not specify, except under
 * x-kubernetes-preserve-unknown-fields and the apiVersion/kind/metadata of an
 * embedded resource (or of the root). Returns the removed fields' paths, sorted.
 */
import { asResourceRoot, type Structural } from './structural.ts';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Upstream PruneWithOptions: prunes `obj` in place and returns the unknown field paths. */
export function prune(obj: unknown, s: Structural | undefined, isResourceRoot: boolean): string[] {
  const unknown: string[] = [];
  pruneNode(obj, isResourceRoot ? asResourceRoot(s) : s, '', unknown);
  return unknown.sort();
}

const keyPath = (parent: string, k: string): string => (parent ? `${parent}.${k}` : k);

function pruneNode(x: unknown, s: Structural | undefined, path: string, unknown: string[]): void {
  if (s?.extensions.xPreserveUnknownFields) {
    skipPrune(x, s, path, unknown);
    return;
  }
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s && s.extensions.xEmbeddedResource && META_FIELDS.has(k)) continue;
      const prop = s?.properties?.[k];
      if (prop) pruneNode(x[k], prop, keyPath(path, k), unknown);
      else if (s?.additionalProperties) pruneNode(x[k], s.additionalProperties.structural, keyPath(path, k), unknown);
      else {
        if (!s || !META_FIELDS.has(k) || path) unknown.push(keyPath(path, k));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => pruneNode(v, s?.items, `${path}[${i}]`, unknown));
  }
}

function skipPrune(x: unknown, s: Structural | undefined, path: string, unknown: string[]): void {
  if (!s) return;
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s.extensions.xEmbeddedResource && META_FIELDS.has(k)) continue;
      const prop = s.properties?.[k];
      if (prop) pruneNode(x[k], prop, keyPath(path, k), unknown);
      else if (s.additionalProperties) pruneNode(x[k], s.additionalProperties.structural, keyPath(path, k), unknown);
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => skipPrune(v, s.items, `${path}[${i}]`, unknown));
  }
}
