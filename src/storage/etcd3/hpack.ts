/**
 * HPACK (RFC 7541) for our HTTP/2 client connection: a full decoder of the
 * peer's header blocks (static and dynamic table, size updates, Huffman), and
 * an encoder of fixed request header blocks that uses only static-table
 * indexes and literals without indexing, so it keeps no state.
 */
import { HpackError, huffmanDecode } from './hpack-huffman.ts';
import { STATIC_TABLE } from './hpack-tables.ts';

export { HpackError } from './hpack-huffman.ts';

/** SETTINGS_HEADER_TABLE_SIZE's initial value (RFC 9113 §6.5.2), which we never change. */
export const DEFAULT_TABLE_SIZE = 4096;
/** §4.1: an entry's size is its name's and value's octets plus 32. */
const ENTRY_OVERHEAD = 32;

/** A decoded header list, in order; names are lowercase as HTTP/2 requires. */
export type HeaderList = Array<[name: string, value: string]>;

/** Decodes the header blocks of one connection, in the order they arrived (the dynamic table is shared). */
export class HpackDecoder {
  /** Newest first, as §2.3.3 numbers them. */
  private readonly dynamic: Array<[string, string]> = [];
  private size = 0;
  private maxSize: number;
  private readonly limit: number;
  private pos = 0;

  constructor(limit = DEFAULT_TABLE_SIZE) {
    this.limit = limit;
    this.maxSize = limit;
  }

  decode(block: Uint8Array): HeaderList {
    const fields: HeaderList = [];
    this.pos = 0;
    while (this.pos < block.length) {
      const first = block[this.pos];
      if (first & 0x80) {
        fields.push(this.entry(this.integer(block, 7)));
      } else if (first & 0x40) {
        const field = this.literal(block, 6);
        this.insert(field);
        fields.push(field);
      } else if (first & 0x20) {
        // §4.2: size updates come only before the block's first field.
        if (fields.length > 0) throw new HpackError('dynamic table size update after a header field');
        const size = this.integer(block, 5);
        if (size > this.limit) throw new HpackError(`dynamic table size ${size} exceeds the limit ${this.limit}`);
        this.maxSize = size;
        this.evict(0);
      } else {
        // Without indexing (0000) or never indexed (0001): both leave the table alone.
        fields.push(this.literal(block, 4));
      }
    }
    return fields;
  }

  /** §5.1: an integer with an N-bit prefix. */
  private integer(block: Uint8Array, prefixBits: number): number {
    const mask = (1 << prefixBits) - 1;
    let value = block[this.pos++] & mask;
    if (value < mask) return value;
    let shift = 0;
    for (;;) {
      if (this.pos >= block.length) throw new HpackError('header block ends inside an integer');
      if (shift > 28) throw new HpackError('HPACK integer too large');
      const octet = block[this.pos++];
      value += (octet & 0x7f) * 2 ** shift;
      shift += 7;
      if ((octet & 0x80) === 0) return value;
    }
  }

  /** §5.2: a string, Huffman-coded when its first bit says so. */
  private string(block: Uint8Array): string {
    if (this.pos >= block.length) throw new HpackError('header block ends before a string');
    const huffman = (block[this.pos] & 0x80) !== 0;
    const length = this.integer(block, 7);
    const start = this.pos;
    const end = start + length;
    if (end > block.length) throw new HpackError('header block ends inside a string');
    this.pos = end;
    return huffman ? huffmanDecode(block, start, end) : Buffer.from(block.buffer, block.byteOffset + start, length).toString('latin1');
  }

  /** §6.2: a literal field whose name is an index (non-zero) or a string. */
  private literal(block: Uint8Array, prefixBits: number): [string, string] {
    const nameIndex = this.integer(block, prefixBits);
    const name = nameIndex === 0 ? this.string(block) : this.entry(nameIndex)[0];
    return [name, this.string(block)];
  }

  /** §2.3.3: index 1..61 is the static table, then the dynamic table newest first. */
  private entry(index: number): [string, string] {
    if (index >= 1 && index <= STATIC_TABLE.length) {
      const [name, value] = STATIC_TABLE[index - 1];
      return [name, value];
    }
    const entry = this.dynamic[index - STATIC_TABLE.length - 1];
    if (!entry) throw new HpackError(`HPACK index ${index} is not in the table`);
    return [entry[0], entry[1]];
  }

  /** §4.4: an entry larger than the whole table empties it and is not added. */
  private insert(field: [string, string]): void {
    const entrySize = field[0].length + field[1].length + ENTRY_OVERHEAD;
    this.evict(entrySize);
    if (entrySize > this.maxSize) return;
    this.dynamic.unshift([field[0], field[1]]);
    this.size += entrySize;
  }

  /** §4.3-4.4: drops the oldest entries until `room` more octets fit. */
  private evict(room: number): void {
    while (this.dynamic.length > 0 && this.size + room > this.maxSize) {
      const [name, value] = this.dynamic.pop()!;
      this.size -= name.length + value.length + ENTRY_OVERHEAD;
    }
  }
}

/** A field to encode: a static-table index for the whole field, or a name (index or string) and a value. */
export type FieldToEncode = number | [name: number | string, value: string];

/**
 * A header block of static-table indexes and literals without indexing (§6.1,
 * §6.2.2), strings not Huffman-coded: what a fixed request header needs.
 */
export function encodeHeaderBlock(fields: FieldToEncode[]): Buffer {
  const out: number[] = [];
  for (const field of fields) {
    if (typeof field === 'number') {
      pushInteger(out, 0x80, 7, field);
      continue;
    }
    const [name, value] = field;
    if (typeof name === 'number') {
      pushInteger(out, 0x00, 4, name);
    } else {
      out.push(0x00);
      pushString(out, name);
    }
    pushString(out, value);
  }
  return Buffer.from(out);
}

function pushInteger(out: number[], flags: number, prefixBits: number, value: number): void {
  const mask = (1 << prefixBits) - 1;
  if (value < mask) {
    out.push(flags | value);
    return;
  }
  out.push(flags | mask);
  let rest = value - mask;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

function pushString(out: number[], value: string): void {
  const octets = Buffer.from(value, 'latin1');
  pushInteger(out, 0x00, 7, octets.length);
  for (const octet of octets) out.push(octet);
}
