import { createHash } from 'node:crypto';

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

export interface PrinterColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  path: readonly string[];
  formatter?: string;
}

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
  decode: Decoder;
  decodeList?: Decoder;
  /** The PATCH media types accepted, when not all four (custom resources take no strategic merge patch: SPEC 4.5). */
  patchTypes?: readonly string[];
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
  /** ObjectMeta's decoder: custom resources decode their metadata as every kind does. */
  decodeObjectMeta: Decoder;
  openapiV3Paths: Record<string, string>;
  readPublishedOpenApi(file: string): Buffer;
}

/** Upstream discovery.StorageVersionHash: 8 bytes of sha256 over group/version/kind, base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

export function apiVersionOf(kind: { group: string; version: string }): string {
  return kind.group ? `${kind.group}/${kind.version}` : kind.version;
}
