/**
 * `x-orch-resource` (openapi/README.md): a kind overlay's registry, discovery
 * and Table data as one served version carries it in the merged contract.
 * Lists the format keeps sorted (verbs, subresources, field selectors) are
 * sorted here, so an overlay may list them in any order; printer columns keep
 * their order (it is the Table's).
 */
import { isObject, type JsonObject } from './canonical-json.ts';
import type { DocText, KindOverlay, KindVersion, ResourceSpec } from './overlays.ts';

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Resolves a description reference against the merged schemas (`schemaNamed` maps an overlay's spelling of a name to the schema). */
function resolveDocText(text: DocText, schemaNamed: (name: string) => JsonObject | undefined, where: string): string {
  if (typeof text === 'string') return text;
  const schema = schemaNamed(text.schema);
  if (!schema) throw new Error(`${where}: column description: schema ${text.schema} is not in the contract`);
  const property = isObject(schema.properties) ? schema.properties[text.property] : undefined;
  const description = isObject(property) ? property.description : undefined;
  if (typeof description !== 'string') throw new Error(`${where}: column description: ${text.schema}.${text.property} has no description`);
  return description;
}

/** The `x-orch-resource` of one version of a kind. */
export function resourceExtension(overlay: KindOverlay, version: KindVersion, spec: ResourceSpec, schemaNamed: (name: string) => JsonObject | undefined): JsonObject {
  const storage = overlay.storage;
  const storedElsewhere = storage && (storage.group !== overlay.group || storage.version !== version.version);
  return {
    plural: spec.plural,
    singular: spec.singular,
    shortNames: spec.shortNames,
    categories: spec.categories,
    namespaced: spec.namespaced,
    verbs: [...spec.verbs].sort(),
    ...(spec.stored ? { listKind: `${overlay.kind}List` } : { stored: false }),
    subresources: [...spec.subresources].sort(byName).map((s) => ({ ...s, verbs: [...s.verbs].sort() })),
    allowCreateOnUpdate: spec.allowCreateOnUpdate,
    allowUnconditionalUpdate: spec.allowUnconditionalUpdate,
    nameValidation: spec.nameValidation,
    fieldSelectors: [...spec.fieldSelectors].sort(byName) as unknown as JsonObject[],
    ...(storedElsewhere ? { storageVersion: storage.version } : {}),
    ...(storedElsewhere && storage.group !== overlay.group ? { storageGroup: storage.group } : {}),
    ...(version.deprecated ? { deprecated: version.deprecated as unknown as JsonObject } : {}),
    ...(spec.scale ? { scale: spec.scale as unknown as JsonObject } : {}),
    printerColumns: spec.printerColumns.map((c) => ({ ...c, description: resolveDocText(c.description, schemaNamed, overlay.file) })) as unknown as JsonObject[],
  };
}
