/**
 * Huffman decoding of HPACK string literals (RFC 7541 §5.2), with the code of
 * Appendix B (hpack-tables.ts). Go's HPACK encoder in etcd Huffman-codes every
 * string shorter that way, so the headers and trailers of etcd's answers need it.
 */
import { HUFFMAN_CODE_LENGTHS, HUFFMAN_CODES } from './hpack-tables.ts';

const EOS = 256;

/** The HPACK failures that break the whole connection (COMPRESSION_ERROR, RFC 9113 §4.3). */
export class HpackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HpackError';
  }
}

/**
 * The code as a binary trie: `TRIE[node * 2 + bit]` is the next node, or a leaf
 * as -(symbol + 1). The code is complete, so every path ends in a leaf.
 */
const TRIE = buildTrie();

function buildTrie(): Int32Array {
  const trie = new Int32Array(2 * 512);
  let nodes = 1;
  for (let symbol = 0; symbol <= EOS; symbol++) {
    const length = HUFFMAN_CODE_LENGTHS[symbol];
    const code = HUFFMAN_CODES[symbol];
    let node = 0;
    for (let i = length - 1; i > 0; i--) {
      const slot = node * 2 + ((code >>> i) & 1);
      if (trie[slot] === 0) trie[slot] = nodes++;
      node = trie[slot];
    }
    trie[node * 2 + (code & 1)] = -(symbol + 1);
  }
  return trie;
}

/**
 * The octets coded in `input[start, end)`, as a latin1 string (one char per octet).
 * Rejects, as §5.2 requires, an EOS symbol, padding longer than 7 bits, and
 * padding that is not the most significant bits of EOS (all ones).
 */
export function huffmanDecode(input: Uint8Array, start: number, end: number): string {
  // The shortest code is 5 bits: at most 8/5 octets out per octet in.
  const out = Buffer.allocUnsafe(Math.ceil(((end - start) * 8) / 5));
  let written = 0;
  let node = 0;
  let pendingBits = 0;
  let pendingAllOnes = true;
  for (let i = start; i < end; i++) {
    const octet = input[i];
    for (let shift = 7; shift >= 0; shift--) {
      const bit = (octet >>> shift) & 1;
      const next = TRIE[node * 2 + bit];
      if (next < 0) {
        const symbol = -next - 1;
        if (symbol === EOS) throw new HpackError('Huffman-coded string contains EOS');
        out[written++] = symbol;
        node = 0;
        pendingBits = 0;
        pendingAllOnes = true;
      } else {
        node = next;
        pendingBits++;
        if (bit === 0) pendingAllOnes = false;
      }
    }
  }
  if (pendingBits > 7) throw new HpackError('Huffman padding longer than 7 bits');
  if (!pendingAllOnes) throw new HpackError('Huffman padding is not a prefix of EOS');
  return out.toString('latin1', 0, written);
}
