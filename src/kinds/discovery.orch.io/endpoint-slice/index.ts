/**
 * discovery.orch.io/v1 EndpointSlice (SPEC 9.7; upstream
 * pkg/registry/discovery/endpointslice/strategy.go, 1.31): generation 1, +1
 * when anything beyond metadata or the labels change; the v1 API drops
 * deprecatedTopology; validated on create and update; its printer's cells.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy, type ApiObject } from '../../../registry/strategy.ts';
import { isDNS1123Subdomain } from '../../../api/names.ts';
import { cells } from './cells.ts';
import { validateEndpointSlice } from './validate.ts';

/** corev1.LabelHostname, renamed by FACTS §0. */
const HOSTNAME_LABEL = 'orch.io/hostname';

/**
 * dropTopologyOnV1: the v1 API drops writes to endpoints' deprecatedTopology,
 * keeping a node name it held before (when the endpoints changed; unchanged
 * endpoints keep theirs).
 */
function dropTopology(obj: ApiObject, old?: ApiObject): void {
  if (!Array.isArray(obj.endpoints)) return;
  if (old && JSON.stringify(old.endpoints ?? null) === JSON.stringify(obj.endpoints)) return;
  const previous = new Set<string>();
  for (const ep of Array.isArray(old?.endpoints) ? old.endpoints : []) {
    const name = ep?.deprecatedTopology?.[HOSTNAME_LABEL];
    if (typeof name === 'string' && name !== '') previous.add(name);
  }
  for (const ep of obj.endpoints) {
    if (!ep || typeof ep !== 'object') continue;
    const name = ep.deprecatedTopology?.[HOSTNAME_LABEL];
    if (ep.nodeName === undefined && typeof name === 'string' && previous.has(name) && isDNS1123Subdomain(name).length === 0) ep.nodeName = name;
    delete ep.deprecatedTopology;
  }
}

export default defineKind({
  strategy: {
    ...validatedBy(validateEndpointSlice),
    prepareForCreate(obj) {
      obj.metadata.generation = 1;
      dropTopology(obj);
    },
    prepareForUpdate(obj, old) {
      const { metadata: _n, ...rest } = obj;
      const { metadata: _o, ...oldRest } = old;
      const changed = JSON.stringify(rest) !== JSON.stringify(oldRest) || JSON.stringify(obj.metadata.labels ?? {}) !== JSON.stringify(old.metadata.labels ?? {});
      obj.metadata.generation = (old.metadata.generation ?? 0) + (changed ? 1 : 0);
      dropTopology(obj, old);
    },
  },
  cells,
});
