/**
 * Protobuf for the built-in kinds (SPEC 4.7): objects, lists and Status in
 * their envelope, bodies read back to their JSON form. Kinds without a
 * message in the generated table (custom resources) have no protobuf.
 */
import { envelope, envelopeFrame, messageField, openEnvelope, summarizeData } from './envelope.ts';
import { MessageDecoder, ProtobufDecodeError } from './message-decoder.ts';
import { MessageEncoder } from './message-encoder.ts';
import type { ProtobufTable, ProtoSchema } from './schema.ts';

const META = 'io.orch.apimachinery.pkg.apis.meta.v1.';
const LIST_META = `${META}ListMeta`;
const ITEM_TAG = 0x12;

/**
 * meta/v1 PartialObjectMetadata {metadata = 1} and PartialObjectMetadataList
 * {metadata = 1; items = 2} (apimachinery generated.proto): the forms the
 * metadata transform answers in any media type, for every kind, custom ones
 * too (apiserver AllowsMediaTypeTransform), under the meta group-version the
 * client asked. Not in the contract, which holds only kinds endpoints serve.
 */
const PARTIAL_SCHEMAS: Record<string, ProtoSchema> = {
  [`${META}PartialObjectMetadata`]: {
    message: 'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata',
    fields: [{ name: 'metadata', number: 1, value: { ref: `${META}ObjectMeta` } }],
  },
  [`${META}PartialObjectMetadataList`]: {
    message: 'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList',
    fields: [
      { name: 'metadata', number: 1, value: { ref: LIST_META } },
      { name: 'items', number: 2, value: { ref: `${META}PartialObjectMetadata` }, repeated: true },
    ],
  },
};

/** The meta group-versions a metadata-only answer may be asked in (SPEC 4.7, and meta.k8s.io as kubectl and client-go send it). */
export const PARTIAL_API_VERSIONS = ['meta.orch.io/v1', 'meta.orch.io/v1beta1', 'meta.k8s.io/v1', 'meta.k8s.io/v1beta1'];

function withPartialMetadata(table: ProtobufTable): ProtobufTable {
  const kinds = { ...table.kinds };
  for (const apiVersion of PARTIAL_API_VERSIONS) {
    for (const kind of ['PartialObjectMetadata', 'PartialObjectMetadataList']) kinds[`${apiVersion}/${kind}`] = `${META}${kind}`;
  }
  return { schemas: { ...table.schemas, ...PARTIAL_SCHEMAS }, kinds };
}

/** Why a protobuf body could not be read, and whether its envelope was (upstream then knows the kind it names). */
export class ProtobufBodyError extends Error {
  constructor(
    message: string,
    /** false: not even the envelope was readable; the error then shows the body's start. */
    readonly envelopeRead: boolean,
    readonly summary: string,
  ) {
    super(message);
    this.name = 'ProtobufBodyError';
  }
}

/**
 * The server's protobuf (SPEC 4.7): the generated table's encoder and decoder
 * behind upstream's envelope (protobuf.Serializer Encode/Decode).
 */
export class ProtobufCodec {
  private readonly encoder: MessageEncoder;
  private readonly decoder: MessageDecoder;

  private readonly table: ProtobufTable;

  constructor(generated: ProtobufTable) {
    this.table = withPartialMetadata(generated);
    this.encoder = new MessageEncoder(this.table.schemas);
    this.decoder = new MessageDecoder(this.table.schemas);
  }

  /** Whether `apiVersion`/`kind` has a protobuf message (the built-in kinds and their lists, Status). */
  supports(apiVersion: string, kind: string): boolean {
    return this.table.kinds[`${apiVersion}/${kind}`] !== undefined;
  }

  private schemaOf(apiVersion: string, kind: string): string {
    const schema = this.table.kinds[`${apiVersion}/${kind}`];
    if (!schema) throw new Error(`no protobuf message for ${apiVersion} ${kind}`);
    return schema;
  }

  /** The message of an object (its JSON form) without envelope: a list's item, or an envelope's raw. */
  message(apiVersion: string, kind: string, object: unknown): Uint8Array {
    return this.encoder.encode(this.schemaOf(apiVersion, kind), object);
  }

  /** A whole protobuf body of one object. */
  encodeObject(apiVersion: string, kind: string, object: unknown): Buffer {
    return envelope(apiVersion, kind, [this.message(apiVersion, kind, object)]);
  }

  /** A list body from its metadata and its items' messages (each encoded once, shared: the items are not re-encoded). */
  encodeList(apiVersion: string, listKind: string, metadata: Record<string, unknown>, items: readonly Uint8Array[]): Buffer {
    const { head, items: encoded, tail } = this.encodeListAround(apiVersion, listKind, metadata, encodeListItems(items));
    return Buffer.concat([head, encoded, tail]);
  }

  /**
   * A list body around its items already encoded by `encodeListItems`: what
   * only this answer has (the envelope's head with the length, the list
   * metadata; the envelope's tail) is encoded here, and the items are passed
   * on as they are, so readers of one collection share them whatever the revision.
   */
  encodeListAround(apiVersion: string, listKind: string, metadata: Record<string, unknown>, items: Buffer): { head: Buffer; items: Buffer; tail: Buffer } {
    // Only a kind with a List message gets a list body (throws otherwise).
    this.schemaOf(apiVersion, listKind);
    const listMeta = messageField(0x0a, this.encoder.encode(LIST_META, metadata));
    const { head, tail } = envelopeFrame(apiVersion, listKind, listMeta.reduce((n, part) => n + part.length, 0) + items.length);
    return { head: Buffer.concat([head, ...listMeta]), items, tail };
  }

  /**
   * The JSON form of a protobuf body, with the envelope's apiVersion and kind
   * (empty ones left out: upstream then takes the endpoint's), for the JSON
   * path's checks. Throws ProtobufBodyError.
   */
  decodeObject(body: Buffer, apiVersion: string, kind: string): Record<string, unknown> {
    let unknown;
    try {
      unknown = openEnvelope(body);
    } catch (err) {
      if (err instanceof ProtobufDecodeError) throw new ProtobufBodyError(err.message, false, summarizeData(body));
      throw err;
    }
    // A body may name another kind of the group: it is read as the kind the endpoint takes, whose checks then refuse it.
    let object: Record<string, unknown>;
    try {
      object = this.decoder.decode(this.schemaOf(apiVersion, kind), unknown.raw);
    } catch (err) {
      if (err instanceof ProtobufDecodeError) throw new ProtobufBodyError(err.message, true, summarizeData(body));
      throw err;
    }
    const typeMeta: Record<string, unknown> = {};
    if (unknown.apiVersion) typeMeta.apiVersion = unknown.apiVersion;
    if (unknown.kind) typeMeta.kind = unknown.kind;
    return { ...typeMeta, ...object };
  }

  /** The JSON form of a message of `apiVersion`/`kind` without envelope (a watch event's object once unwrapped, a list's item). */
  decodeMessage(apiVersion: string, kind: string, bytes: Uint8Array): any {
    return this.decoder.decode(this.schemaOf(apiVersion, kind), bytes);
  }
}

/** A List message's items field (repeated, tag 2), each item's message given: the part `encodeListAround` wraps. */
export function encodeListItems(items: readonly Uint8Array[]): Buffer {
  return Buffer.concat(items.flatMap((item) => messageField(ITEM_TAG, item)));
}
