/**
 * HPACK (src/storage/etcd3/hpack.ts, hpack-huffman.ts): RFC 7541 Appendix C's
 * worked examples, the decoder's rejections, and a cross-check of our decoder
 * against an independent encoder: a loopback node:http2 server (nghttp2, which
 * Huffman-codes values and indexes fields in its dynamic table) sends headers
 * with every printable octet, long values and enough distinct fields to evict
 * entries, and our HTTP/2 connection must decode each block exactly.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { HpackDecoder, HpackError, encodeHeaderBlock, type HeaderList } from '../src/storage/etcd3/hpack.ts';
import { huffmanDecode } from '../src/storage/etcd3/hpack-huffman.ts';
import { Http2Connection, type StreamListener } from '../src/storage/etcd3/http2-connection.ts';
import { RequestHeaderBlocks } from '../src/storage/etcd3/grpc-unary-call.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

test('RFC 7541 C.4: three requests with Huffman coding share one dynamic table', () => {
  const decoder = new HpackDecoder();
  assert.deepEqual(decoder.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff')), [
    [':method', 'GET'],
    [':scheme', 'http'],
    [':path', '/'],
    [':authority', 'www.example.com'],
  ]);
  // 0xbe is dynamic entry 1: the :authority indexed by the first block.
  assert.deepEqual(decoder.decode(hex('8286 84be 5886 a8eb 1064 9cbf')), [
    [':method', 'GET'],
    [':scheme', 'http'],
    [':path', '/'],
    [':authority', 'www.example.com'],
    ['cache-control', 'no-cache'],
  ]);
  assert.deepEqual(decoder.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')), [
    [':method', 'GET'],
    [':scheme', 'https'],
    [':path', '/index.html'],
    [':authority', 'www.example.com'],
    ['custom-key', 'custom-value'],
  ]);
});

test('RFC 7541 C.6: responses in a 256-octet table evict their oldest entries', () => {
  const decoder = new HpackDecoder();
  // The first block shrinks the table to 256 octets (a size update, 0x3f e1 01).
  decoder.decode(hex('3fe1 01'));
  const first = decoder.decode(
    hex('4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3'),
  );
  assert.deepEqual(first, [
    [':status', '302'],
    ['cache-control', 'private'],
    ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
    ['location', 'https://www.example.com'],
  ]);
  // :status 307 pushes out :status 302; the other three are indexed from the table.
  assert.deepEqual(decoder.decode(hex('4883 640e ffc1 c0bf')), [
    [':status', '307'],
    ['cache-control', 'private'],
    ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
    ['location', 'https://www.example.com'],
  ]);
});

test('the decoder rejects what RFC 7541 forbids', () => {
  // Padding of 8 one-bits: longer than 7 bits (§5.2).
  assert.throws(() => huffmanDecode(hex('ff'), 0, 1), HpackError);
  // 'a' is 00011 (5 bits); padding 000 is not a prefix of EOS.
  assert.throws(() => huffmanDecode(Buffer.from([0b00011000]), 0, 1), HpackError);
  // EOS (30 one-bits) inside a string.
  assert.throws(() => huffmanDecode(hex('ffff fffc'), 0, 4), HpackError);
  assert.equal(huffmanDecode(Buffer.from([0b00011111]), 0, 1), 'a');
  assert.throws(() => new HpackDecoder().decode(hex('be')), /not in the table/);
  assert.throws(() => new HpackDecoder().decode(hex('82 3f e1 01')), /size update after a header field/);
  assert.throws(() => new HpackDecoder().decode(hex('3f e2 1f')), /exceeds the limit/);
  assert.throws(() => new HpackDecoder().decode(hex('0f')), /ends inside an integer/);
  assert.throws(() => new HpackDecoder().decode(hex('00 05 61')), /ends inside a string/);
});

test('the encoder writes static indexes and plain literals the decoder reads back', () => {
  const block = encodeHeaderBlock([3, [4, '/etcdserverpb.KV/Txn'], ['te', 'trailers'], [31, 'x'.repeat(300)]]);
  assert.deepEqual(new HpackDecoder().decode(block), [
    [':method', 'POST'],
    [':path', '/etcdserverpb.KV/Txn'],
    ['te', 'trailers'],
    ['content-type', 'x'.repeat(300)],
  ]);
});

/** The header blocks a request's answer brought, collected until its end. */
function fetchHeaders(connection: Http2Connection, headerBlock: Buffer): Promise<HeaderList[]> {
  return new Promise((resolve, reject) => {
    const blocks: HeaderList[] = [];
    const listener: StreamListener = {
      onHeaders: (fields) => blocks.push(fields),
      onData: () => {},
      onClose: (failure) => (failure ? reject(failure) : resolve(blocks)),
    };
    connection.request(headerBlock, Buffer.alloc(0), listener);
  });
}

describe('our decoder against nghttp2\'s encoder (a loopback node:http2 server)', () => {
  const printable = Array.from({ length: 0x7f - 0x21 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
  /** Response n's headers: the same few each time (indexed after the first) and fresh ones that evict older entries. */
  const headersOf = (n: number): Record<string, string> => {
    const headers: Record<string, string> = {
      'x-printable': printable,
      'x-spaces': `a b\tc ${printable.slice(0, 20)} end`,
      'x-long': `${n}:`.padEnd(3000, printable),
      'x-repeated': 'the same value every time',
    };
    for (let i = 0; i < 30; i++) headers[`x-fresh-${n}-${i}`] = `${printable.slice(i, i + 40)}-${n}-${i}`;
    return headers;
  };
  let server: http2.Http2Server;
  let connection: Http2Connection;
  let blocks: RequestHeaderBlocks;
  before(async () => {
    server = http2.createServer();
    server.on('stream', (stream, headers) => {
      const n = Number(String(headers[':path']).slice(1));
      stream.respond({ ':status': 200, ...headersOf(n), [http2.sensitiveHeaders]: ['x-repeated'] }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'x-trailer': `done ${n} ${printable}` }));
      stream.end('body');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const endpoint = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    connection = new Http2Connection(endpoint, { windowBytes: 65_535, keepaliveMs: 10_000, onRetired: () => {} });
    blocks = new RequestHeaderBlocks(endpoint);
  });
  after(async () => {
    connection?.close();
    await new Promise((r) => server.close(r));
  });

  test('twenty answers of Huffman-coded, indexed and evicted fields decode exactly', async () => {
    for (let n = 0; n < 20; n++) {
      const [headers, trailers] = await fetchHeaders(connection, blocks.get(`/${n}`, undefined));
      const received = Object.fromEntries(headers.filter(([name]) => !['date', ':status'].includes(name)));
      assert.deepEqual(received, headersOf(n), `answer ${n}`);
      assert.equal(Object.fromEntries(headers)[':status'], '200');
      assert.deepEqual(trailers, [['x-trailer', `done ${n} ${printable}`]]);
    }
  });
});
