import { createHash } from 'node:crypto';
import type { JsonPath } from '../util/jsonpath.ts';
import type { KindHooks } from './kind-hooks.ts';
import type { Cell, TimedCell } from './printer-cells.ts';
import type { ApiObject, Strategy } from './strategy.ts';
import type { ProtobufTable } from '../api/protobuf/schema.ts';
import type { ContractValidationTable } from './schema/contract-table.ts';
import { resourcePrefix } from '../storage/keys.ts';

/**
 * The shape of one kind as codegen emits it into src/generated/kinds.ts
 * (SPEC 2.1, 4.1): identity, scope, verbs and the contract-driven behaviour.
 */

export interface DecodeContext {
  /** false: leave absent fields absent (an apply intent); otherwise schema defaults are filled in. */
  defaults?: boolean;
  /** Records a field the schema does not know; the decoder drops it (SPEC 4.9). */
  unknown(path: string): void;
  /** A value of the wrong JSON type: throws, as Go's decoder stops at the first one. */
  fail(path: string, value: unknown, struct: string, goType: string): never;
  /** A value of the right type that cannot be decoded (bad base64, bad timestamp). */
  invalidValue(path: string, message: string): never;
}

export type Decoder = (value: unknown, path: string, context: DecodeContext, struct?: string) => any;

/** Upstream swaggerMetadataDescriptions: the descriptions of the Name and creation-time Table columns. */
export const METADATA_DESCRIPTIONS = {
  name: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  creationTimestamp: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
};

export interface PrinterColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  path: readonly string[];
  /** The name of the column's cell (the contract's `formatter`): a generic cell, or one of the kind's own. */
  formatter?: string;
  /**
   * The cell `formatter` names, as codegen resolved it (a generated kind's
   * column); a custom resource's columns name generic cells only, found by name.
   */
  cell?: Cell;
  /** The cell `formatter` names when it depends on the request time (an age). */
  timedCell?: TimedCell;
  /** A custom resource's column: its value is the first the JSONPath finds (then `path` is unused). */
  compiledJsonPath?: JsonPath;
}

/** The Name column every Table starts with (upstream tableconvertor, and the default Table). */
export const NAME_COLUMN: PrinterColumnDefinition = { name: 'Name', type: 'string', format: 'name', description: METADATA_DESCRIPTIONS.name, priority: 0, path: ['metadata', 'name'] };

export interface KindDefinition extends BodyKind {
  group: string;
  version: string;
  kind: string;
  /** The contract schema of the kind; its shape is `GeneratedApi.structure[schemaName]`. */
  schemaName: string;
  /** '' when the kind is not stored. */
  listKind: string;
  /** false: a review computed on create and never stored (SPEC 2.8, 4.11). */
  stored: boolean;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  categories: readonly string[];
  namespaced: boolean;
  verbs: readonly string[];
  /** group/version/kind name the subresource's body when it is another kind (serviceaccounts/token: TokenRequest). */
  subresources: ReadonlyArray<{ name: string; verbs: readonly string[]; group?: string; version?: string; kind?: string }>;
  allowCreateOnUpdate: boolean;
  allowUnconditionalUpdate: boolean;
  /** A key of nameValidators (registry/validation/names.ts). */
  nameValidation: string;
  /** A field's value is read at `path`; when empty, at `fallbackPath`; when absent, it is `default` (or ''). */
  fieldSelectors: ReadonlyArray<{ name: string; path: readonly string[]; fallbackPath?: readonly string[]; default?: string }>;
  printerColumns: readonly PrinterColumnDefinition[];
  /** '' when the kind is not stored. */
  storageVersionHash: string;
  /**
   * The version objects are written at, when it may be another than `version`
   * (a custom resource's storage version, SPEC 2.1): reads rewrite them to this
   * version, writes store them at that one. Undefined: always `version`.
   */
  storageVersion?: string;
  /**
   * A conversion between versions that is more than renaming the version (a
   * custom resource's conversion webhook, SPEC 2.1): the object as version
   * `apiVersion` serves it. Fails with a 500 StatusError. Undefined: a stored
   * object is served at another version by renaming its apiVersion.
   */
  convert?: (object: ApiObject, apiVersion: string) => Promise<ApiObject>;
  /**
   * Set when the version is deprecated (a CustomResourceDefinition version with
   * `deprecated: true`, or a built-in deprecated version): its requests carry the
   * audit annotation `orch.io/deprecated`, and `orch.io/removed-release` when known,
   * and set apiserver_requested_deprecated_apis (removed_release '' when unknown).
   */
  deprecated?: { removedRelease?: string; warning?: string };
  /**
   * Table cells are printed from the stored form, whatever version is served:
   * a built-in kind's storage version holds its internal form, which upstream's
   * printers read (a v1 HorizontalPodAutoscaler's metrics live in annotations).
   */
  printsStoredForm?: boolean;
  /**
   * The group whose key space and watch cache hold the objects, when another
   * than `group` (events.orch.io/v1 Events are core Events, SPEC 9.7; upstream
   * serves both from one storage). Undefined: `group`.
   */
  storageGroup?: string;

  /** Where the scale subresource reads and writes replicas (a custom resource's subresources.scale, or a built-in kind's overlay `scale`, openapi/kinds/). */
  scale?: ScalePaths;
  decode: Decoder;
  decodeList?: Decoder;
  /** The PATCH media types accepted, when not all four (custom resources take no strategic merge patch: SPEC 4.5). */
  patchTypes?: readonly string[];
  /**
   * What the kind needs beyond its contract: the definition of its folder
   * src/kinds/<group>/<kind>/ (kind-hooks.ts), attached by codegen to every
   * version of the kind. Undefined: the contract alone describes it.
   */
  hooks?: KindHooks;
}

/** A custom resource version's subresources.scale (CustomResourceSubresourceScale, SPEC 2.1). */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
  /**
   * A built-in kind's LabelSelector object, served as Scale status.selector in
   * its string form (upstream's scaleFromDeployment and friends:
   * LabelSelectorAsSelector(spec.selector).String()).
   */
  selectorObjectPath?: string;
  /** A built-in kind's plain label map (ReplicationController spec.selector), served in its string form (labels.SelectorFromSet). */
  selectorMapPath?: string;
}

/** What a request body is decoded as: a served kind, or a kind that is only a subresource's body. */
export interface BodyKind {
  group: string;
  version: string;
  kind: string;
  schemaName: string;
  decode: Decoder;
}

/** What codegen's index.ts exports; the server is built from one of these. */
export interface GeneratedApi {
  kinds: readonly KindDefinition[];
  /** Kinds that are only a subresource's body (serviceaccounts/token: TokenRequest). */
  bodyKinds: readonly BodyKind[];
  /** Schema name -> structure node (codegen/structure.ts StructureNode). */
  structure: Record<string, any>;
  /** Every schema's protobuf message and the schema of each apiVersion/Kind (SPEC 4.7). */
  protobuf: ProtobufTable;
  /** The contract's rules the validator enforces (registry/contract-validation.ts). */
  validation: ContractValidationTable;
  /** ObjectMeta's decoder: custom resources decode their metadata as every kind does. */
  decodeObjectMeta: Decoder;
  openapiV3Paths: Record<string, string>;
  readPublishedOpenApi(file: string): Buffer;
}

/** Upstream discovery.StorageVersionHash: 8 bytes of sha256 over group/version/kind, base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/**
 * The Warning a request to a deprecated built-in version carries (SPEC 9.5;
 * upstream endpoints/deprecation WarningMessage): `g/v Kind is deprecated in
 * v1.29+, unavailable in v1.32+; use g/v Kind`.
 */
export function deprecationWarning(
  group: string,
  version: string,
  kind: string,
  lifecycle: { deprecatedIn: string; removedIn?: string; replacement?: { group: string; version: string; kind: string } },
): string {
  let text = `${apiVersionOf({ group, version })} ${kind} is deprecated in v${lifecycle.deprecatedIn}+`;
  if (lifecycle.removedIn) text += `, unavailable in v${lifecycle.removedIn}+`;
  if (lifecycle.replacement) text += `; use ${apiVersionOf(lifecycle.replacement)} ${lifecycle.replacement.kind}`;
  return text;
}

/** The strategy of the kind's writes: its definition's (KindDefinition.hooks), else the default one: schema decoding and ObjectMeta validation only (SPEC 2.6). */
export function strategyOf(kind: KindDefinition): Strategy {
  return kind.hooks?.strategy ?? {};
}

/** The group whose key space holds the kind's objects (KindDefinition.storageGroup). */
export function storageGroupOf(kind: { group: string; storageGroup?: string }): string {
  return kind.storageGroup ?? kind.group;
}

/** The key prefix, and watch cache, of the kind's objects: its storage group's (KindDefinition.storageGroup). */
export function storedResourcePrefix(kind: { group: string; storageGroup?: string; plural: string }): string {
  return resourcePrefix(storageGroupOf(kind), kind.plural);
}

export function apiVersionOf(kind: { group: string; version: string }): string {
  return kind.group ? `${kind.group}/${kind.version}` : kind.version;
}

/** The apiVersion reads of the kind rewrite stored objects to, for a kind whose objects may be stored at another version. */
export function readApiVersion(kind: KindDefinition): string | undefined {
  return kind.storageVersion === undefined ? undefined : apiVersionOf(kind);
}
