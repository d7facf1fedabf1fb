/**
 * Our HTTP/2 client connection (src/storage/etcd3/http2-connection.ts) and the
 * unary gRPC calls on it (grpc-unary-call.ts via GrpcSession.unary): against
 * loopback node:http2 servers for flow control, GOAWAY, RST_STREAM, the peer's
 * stream limit, deadlines, a silent peer and a peer that hangs up; against a
 * real etcd for a freeze (SIGSTOP/SIGCONT) and a SIGKILL with restart.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import { EtcdClient, isEndpointFailure } from '../src/storage/etcd3/etcd-client.ts';
import { RequestHeaderBlocks } from '../src/storage/etcd3/grpc-unary-call.ts';
import { GrpcCode, GrpcError, GrpcSession, frame } from '../src/storage/etcd3/grpc-session.ts';
import { Http2Connection, StreamFailure, type StreamListener } from '../src/storage/etcd3/http2-connection.ts';
import type { HeaderList } from '../src/storage/etcd3/hpack.ts';
import { eventually } from './helpers/eventually.ts';
import { etcdAvailable, freePort, freeze, startEtcd, type TestEtcd } from './helpers/etcd.ts';

interface Answer {
  blocks: HeaderList[];
  body: Buffer;
}

/** One request on `connection`, to its end. */
function call(connection: Http2Connection, path: string, body: Buffer = Buffer.alloc(0)): Promise<Answer> {
  const headerBlock = new RequestHeaderBlocks(new URL(`http://${connection.authority}`)).get(path, undefined);
  return new Promise((resolve, reject) => {
    const blocks: HeaderList[] = [];
    const chunks: Buffer[] = [];
    const listener: StreamListener = {
      onHeaders: (fields) => blocks.push(fields),
      onData: (chunk) => chunks.push(Buffer.from(chunk)),
      onClose: (failure) => (failure ? reject(failure) : resolve({ blocks, body: Buffer.concat(chunks) })),
    };
    connection.request(headerBlock, body, listener);
  });
}

function connect(port: number, options: { windowBytes?: number; keepaliveMs?: number; onRetired?: () => void } = {}): Http2Connection {
  return new Http2Connection(new URL(`http://127.0.0.1:${port}`), {
    windowBytes: options.windowBytes ?? 65_536,
    keepaliveMs: options.keepaliveMs ?? 10_000,
    onRetired: options.onRetired ?? (() => {}),
  });
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** Answers in gRPC form: one message, then `grpc-status` trailers. */
function grpcAnswer(stream: http2.ServerHttp2Stream, message: Buffer, status = 0, grpcMessage?: string): void {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': String(status), ...(grpcMessage ? { 'grpc-message': grpcMessage } : {}) }));
  stream.end(frame(message));
}

describe('against a loopback node:http2 server', () => {
  let server: http2.Http2Server;
  let port: number;
  const held: http2.ServerHttp2Stream[] = [];
  const cancelled: number[] = [];
  let refusedOnce = false;
  /** The goaway-second calls each session received: the first session takes one and turns the other away. */
  const goawayCalls = new Map<http2.Http2Session, http2.ServerHttp2Stream[]>();
  before(async () => {
    server = http2.createServer();
    server.on('stream', (stream, headers) => {
      const path = String(headers[':path']);
      stream.on('error', () => {});
      if (path === '/echo') {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          stream.respond({ ':status': 200 });
          stream.end(Buffer.concat(chunks));
        });
      } else if (path === '/hold') {
        held.push(stream);
        stream.resume();
      } else if (path.startsWith('/reset/')) {
        stream.close(Number(path.slice('/reset/'.length)));
      } else if (path === '/grpc/never') {
        stream.on('close', () => cancelled.push(stream.rstCode));
      } else if (path === '/grpc/refused-once') {
        if (refusedOnce) return grpcAnswer(stream, Buffer.from('second time'));
        refusedOnce = true;
        stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      } else if (path === '/grpc/goaway-second') {
        const calls = goawayCalls.get(stream.session!) ?? [];
        goawayCalls.set(stream.session!, calls);
        calls.push(stream);
        if (goawayCalls.size > 1) return grpcAnswer(stream, Buffer.from(`on session ${goawayCalls.size}`));
        if (calls.length < 2) return;
        stream.session!.goaway(http2.constants.NGHTTP2_NO_ERROR, calls[0].id!);
        grpcAnswer(calls[0], Buffer.from('on session 1'));
      } else if (path === '/grpc/failed') {
        grpcAnswer(stream, Buffer.alloc(0), 9, encodeURIComponent('etcdserver: requested lease not found, 100% sure'));
      } else if (path === '/grpc/trailers-only') {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '11', 'grpc-message': 'out of range' }, { endStream: true });
      } else {
        grpcAnswer(stream, Buffer.from(`answer to ${path}`));
      }
    });
    port = await listen(server);
  });
  after(async () => {
    for (const stream of held) stream.destroy();
    server.close();
  });

  test('a 3 MiB request and a 3 MiB answer pass 64 KiB windows both ways', async () => {
    const connection = connect(port, { windowBytes: 65_536 });
    const body = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < body.length; i++) body[i] = (i * 7 + (i >> 12)) & 0xff;
    const [one, two] = await Promise.all([call(connection, '/echo', body), call(connection, '/echo', body.subarray(0, 100_000))]);
    assert.ok(one.body.equals(body));
    assert.ok(two.body.equals(body.subarray(0, 100_000)));
    connection.close();
  });

  test('GOAWAY mid-flight: streams up to its last id finish, later ones fail unsent and the connection retires', async () => {
    let retired = 0;
    const connection = connect(port, { onRetired: () => retired++ });
    held.length = 0;
    const calls = [1, 2, 3].map(() => call(connection, '/hold').then((a) => a, (e: unknown) => e));
    await eventually('three held streams', async () => (held.length === 3 ? true : undefined));
    held[0].session!.goaway(http2.constants.NGHTTP2_NO_ERROR, held[1].id!);
    for (const stream of held.slice(0, 2)) {
      stream.respond({ ':status': 200 });
      stream.end(`stream ${stream.id}`);
    }
    const [one, two, three] = await Promise.all(calls);
    assert.equal((one as Answer).body.toString(), 'stream 1');
    assert.equal((two as Answer).body.toString(), 'stream 3');
    assert.ok(three instanceof StreamFailure);
    assert.equal(three.unsent, true);
    assert.equal(three.refused, true);
    assert.equal(retired, 1);
    assert.equal(connection.takesStreams, false);
    held[2].destroy();
  });

  test('RST_STREAM from the server fails the call (unsent only for REFUSED_STREAM); the connection lives on', async () => {
    const connection = connect(port);
    const internal = await call(connection, `/reset/${http2.constants.NGHTTP2_INTERNAL_ERROR}`).catch((e: unknown) => e);
    assert.ok(internal instanceof StreamFailure);
    assert.match(internal.message, /reset the stream \(HTTP\/2 error 2\)/);
    assert.equal(internal.unsent, false);
    const refused = await call(connection, `/reset/${http2.constants.NGHTTP2_REFUSED_STREAM}`).catch((e: unknown) => e);
    assert.ok(refused instanceof StreamFailure);
    assert.equal(refused.unsent, true);
    assert.equal((await call(connection, '/echo', Buffer.from('still here'))).body.toString(), 'still here');
    connection.close();
  });

  test('gRPC over the connection: answers, statuses with percent-decoded messages, trailers-only answers, refused calls started once more', async () => {
    const session = new GrpcSession(`http://127.0.0.1:${port}`, { keepaliveMs: 10_000 });
    try {
      assert.equal((await session.unary('/grpc/refused-once', Buffer.from('x'), 5_000)).toString(), 'second time');
      const twoCalls = [session.unary('/grpc/goaway-second', Buffer.from('x'), 5_000), session.unary('/grpc/goaway-second', Buffer.from('x'), 5_000)];
      const answers = (await Promise.all(twoCalls)).map(String);
      assert.deepEqual(answers, ['on session 1', 'on session 2'], 'the call above the GOAWAY\'s last stream went to a new connection');
      assert.equal((await session.unary('/grpc/hello', Buffer.from('x'), 5_000)).toString(), 'answer to /grpc/hello');
      const failed = await session.unary('/grpc/failed', Buffer.from('x'), 5_000).catch((e: unknown) => e);
      assert.ok(failed instanceof GrpcError);
      assert.equal(failed.code, 9);
      assert.equal(failed.message, 'etcdserver: requested lease not found, 100% sure');
      const trailersOnly = await session.unary('/grpc/trailers-only', Buffer.from('x'), 5_000).catch((e: unknown) => e);
      assert.ok(trailersOnly instanceof GrpcError);
      assert.equal(trailersOnly.code, GrpcCode.OUT_OF_RANGE);
      assert.equal(trailersOnly.message, 'out of range');
    } finally {
      session.close();
    }
  });

  test('a call past its deadline fails DEADLINE_EXCEEDED and its stream is cancelled with RST_STREAM CANCEL', async () => {
    const session = new GrpcSession(`http://127.0.0.1:${port}`);
    try {
      const late = await session.unary('/grpc/never', Buffer.from('x'), 100).catch((e: unknown) => e);
      assert.ok(late instanceof GrpcError);
      assert.equal(late.code, GrpcCode.DEADLINE_EXCEEDED);
      assert.equal(late.unsent, false);
      const rstCode = await eventually('the server to see the stream cancelled', async () => cancelled[0]);
      assert.equal(rstCode, http2.constants.NGHTTP2_CANCEL);
    } finally {
      session.close();
    }
  });
});

describe('a server that allows two concurrent streams', () => {
  let server: http2.Http2Server;
  let port: number;
  let active = 0;
  let mostActive = 0;
  before(async () => {
    server = http2.createServer({ settings: { maxConcurrentStreams: 2 } });
    server.on('stream', (stream) => {
      active++;
      mostActive = Math.max(mostActive, active);
      stream.on('close', () => active--);
      setTimeout(() => {
        stream.respond({ ':status': 200 });
        stream.end(`stream ${stream.id}`);
      }, 5);
    });
    port = await listen(server);
  });
  after(() => server.close());

  test('twenty calls queue behind the limit and all complete', async () => {
    const connection = connect(port);
    await call(connection, '/first'); // the server's SETTINGS have arrived
    mostActive = 0;
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(connection, '/next')));
    assert.equal(new Set(answers.map((a) => a.body.toString())).size, 20);
    assert.equal(mostActive, 2);
    connection.close();
  });
});

describe('peers that fail', () => {
  test('a peer that stops answering PINGs: the connection ends, its call fails (sent), the connection retires', async () => {
    const silent = net.createServer((socket) => socket.resume());
    const port = await listen(silent);
    let retired = false;
    const connection = connect(port, { keepaliveMs: 100, onRetired: () => (retired = true) });
    const failure = await call(connection, '/anything').catch((e: unknown) => e);
    assert.ok(failure instanceof StreamFailure);
    assert.match(failure.message, /did not answer a keepalive ping within 100 ms/);
    assert.equal(failure.unsent, false);
    assert.equal(retired, true);
    silent.close();
  });

  test('a peer that closes the socket fails the calls in flight; a GrpcSession then opens a new connection', async () => {
    let accepted = 0;
    const hangUp = net.createServer((socket) => {
      accepted++;
      socket.once('data', () => socket.destroy());
    });
    const port = await listen(hangUp);
    const session = new GrpcSession(`http://127.0.0.1:${port}`);
    try {
      for (const attempt of [1, 2]) {
        const failure = await session.unary('/x', Buffer.from('x'), 5_000).catch((e: unknown) => e);
        assert.ok(failure instanceof GrpcError, `attempt ${attempt}`);
        assert.equal(failure.code, GrpcCode.UNAVAILABLE);
        assert.equal(failure.unsent, false);
      }
      assert.equal(accepted, 2);
    } finally {
      session.close();
      hangUp.close();
    }
  });

  test('a peer that breaks the protocol gets a GOAWAY with the error code; its calls fail', async () => {
    let received = Buffer.alloc(0);
    const broken = net.createServer((socket) => {
      socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
      // A SETTINGS frame of 5 octets: not a multiple of 6 (RFC 9113 §6.5, FRAME_SIZE_ERROR).
      socket.write(Buffer.from([0, 0, 5, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
    });
    const port = await listen(broken);
    const connection = connect(port);
    const failure = await call(connection, '/x').catch((e: unknown) => e);
    assert.ok(failure instanceof StreamFailure);
    assert.match(failure.message, /SETTINGS length not a multiple of 6/);
    const goaway = await eventually('our GOAWAY at the peer', async () => {
      // Frames after the 24-octet preface: find the GOAWAY (type 7) and read its error code.
      for (let pos = 24; pos + 9 <= received.length; pos += 9 + received.readUIntBE(pos, 3)) {
        if (received[pos + 3] === 7) return received.readUInt32BE(pos + 9 + 4);
      }
      return undefined;
    });
    assert.equal(goaway, http2.constants.NGHTTP2_FRAME_SIZE_ERROR);
    broken.close();
  });

  test('a refused connection fails the call as unsent', async () => {
    const session = new GrpcSession(`http://127.0.0.1:${await freePort()}`);
    const failure = await session.unary('/x', Buffer.from('x'), 5_000).catch((e: unknown) => e);
    assert.ok(failure instanceof GrpcError);
    assert.equal(failure.code, GrpcCode.UNAVAILABLE);
    assert.equal(failure.unsent, true);
    session.close();
  });
});

describe('against a real etcd', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let etcd: TestEtcd;
  let client: EtcdClient;
  const key = (s: string) => Buffer.from(s);
  before(async () => {
    etcd = await startEtcd();
    client = new EtcdClient({ servers: [etcd.endpoint], callTimeoutMs: 1_000, keepaliveMs: 200 });
  });
  after(async () => {
    client?.close();
    await etcd?.stop();
  });

  test('SIGSTOP fails calls at their deadline or keepalive; after SIGCONT calls succeed on a new connection', async () => {
    await client.put(key('/h2/frozen'), Buffer.from('before'));
    await freeze(etcd);
    try {
      // Its own key: a put that failed at its deadline may still be applied once etcd runs again,
      // after the put below on a new connection, so its outcome is unknown, as etcd's clients know.
      const failure = await client.put(key('/h2/frozen-during'), Buffer.from('during')).catch((e: unknown) => e);
      assert.ok(isEndpointFailure(failure), String(failure));
    } finally {
      etcd.process.kill('SIGCONT');
    }
    await eventually('a put after SIGCONT', () => client.put(key('/h2/frozen'), Buffer.from('after')).then(() => true, () => undefined));
    const res = await client.range({ key: key('/h2/frozen') });
    assert.equal(res.kvs[0].value.toString(), 'after');
  });

  test('SIGKILL fails calls UNAVAILABLE; after a restart calls succeed and see what was written before', async () => {
    await client.put(key('/h2/killed'), Buffer.from('kept'));
    etcd.process.kill('SIGKILL');
    await eventually('a call to fail on the killed etcd', () =>
      client.range({ key: key('/h2/killed') }).then(
        () => undefined,
        (err: unknown) => (err instanceof GrpcError && err.code === GrpcCode.UNAVAILABLE ? true : undefined),
      ),
    );
    await etcd.restart();
    const res = await eventually('a range after the restart', () => client.range({ key: key('/h2/killed') }).then((r) => r, () => undefined));
    assert.equal(res.kvs[0].value.toString(), 'kept');
  });
});
