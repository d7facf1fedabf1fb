/**
 * Which upstream schemas the contract is made of: the closure, over `$ref`,
 * of the roots the overlays name. scripts/vendor-upstream.ts vendors exactly
 * this set; the merge reads exactly this set from what was vendored.
 */
import { isObject, type Json, type JsonObject } from './canonical-json.ts';
import type { KindOverlay, Overlays } from './overlays.ts';
import { isUpstreamName, upstreamNameOf } from './renaming.ts';

export const REF_PREFIX = '#/components/schemas/';

/** The schema names a node refers to (`#/components/schemas/<name>`). */
export function refsOf(node: Json, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => refsOf(n, out));
  else if (isObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') {
        if (!v.startsWith(REF_PREFIX)) throw new Error(`unexpected $ref ${v}: refs name #/components/schemas/<schema>`);
        out.add(v.slice(REF_PREFIX.length));
      } else refsOf(v, out);
    }
  }
  return out;
}

/**
 * The upstream schemas one overlay needs: each version's upstream schema (and
 * its `<Kind>List` when the kind is stored), and the upstream schemas its
 * inline schemas refer to by their contract names (`io.orch.X` is `io.k8s.X`).
 */
export function overlayRoots(overlay: KindOverlay, inlineNames: ReadonlySet<string>): string[] {
  const roots: string[] = [];
  for (const v of overlay.versions) {
    if (isUpstreamName(v.schema)) {
      roots.push(v.schema);
      if (overlay.resource?.stored) roots.push(v.schema + 'List');
    }
    for (const ref of refsOf(Object.values(v.inline))) {
      const upstream = !inlineNames.has(ref) && upstreamNameOf(ref);
      if (upstream) roots.push(upstream);
    }
  }
  return roots;
}

/** Every inline schema name of every overlay. */
export function inlineNamesOf(overlays: Overlays): Set<string> {
  return new Set(overlays.kinds.flatMap((o) => o.versions.flatMap((v) => Object.keys(v.inline))));
}

/** The roots of the whole contract: the meta overlay's and every kind overlay's. */
export function contractRoots(overlays: Overlays): string[] {
  const inline = inlineNamesOf(overlays);
  return [...overlays.meta.roots, ...overlays.kinds.flatMap((o) => overlayRoots(o, inline))];
}

/** The closure of `roots` in `pool`; `missing` says what to do about a name the pool lacks. */
export function closure(pool: ReadonlyMap<string, JsonObject>, roots: Iterable<string>, missing: (name: string) => string): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (seen.has(name)) continue;
    const schema = pool.get(name);
    if (!schema) throw new Error(missing(name));
    seen.add(name);
    stack.push(...refsOf(schema));
  }
  return seen;
}
