/**
 * The etcd v3 calls the storage makes (KV.Range, KV.Txn, KV.Put, KV.Compact,
 * Maintenance.Status), over our own gRPC sessions (grpc-session.ts) in place of
 * the etcd3 npm package and grpc-js, whose per-call machinery (call
 * credentials, metadata, async hooks, Long conversions) cost about as much CPU
 * as the rest of a create.
 *
 * Every call has a deadline and is sent once. Each endpoint has its own circuit
 * breaker; a call goes to the endpoint that last answered, and moves on to the
 * next one when that endpoint's circuit is open or its connection could not be
 * made (the call never reached it, so nothing is sent twice). Probes skip the
 * breakers so each asks etcd itself.
 */
import { BrokenCircuitError, CircuitBreaker } from './circuit-breaker.ts';
import {
  decodeHeaderOnly,
  decodeRangeResponse,
  decodeTxnResponse,
  encodeCompactionRequest,
  encodePutRequest,
  encodeRangeRequest,
  encodeTxnRequest,
  type RangeRequest,
  type RangeResponse,
  type TxnRequest,
  type TxnResponse,
} from './etcd-codec.ts';
import { GrpcCode, GrpcError, GrpcSession, type TlsFiles } from './grpc-session.ts';

export interface EtcdClientOptions {
  servers: string[];
  /** Deadline of every unary call. */
  callTimeoutMs: number;
  tls?: TlsFiles;
  /** The sessions' keepalive PING interval (grpc-session.ts's default when absent). */
  keepaliveMs?: number;
}

/** Consecutive failed calls that open an endpoint's circuit. */
const BREAKER_FAILURES = 3;
/** An open circuit lets one trial call through after this long; its success closes the circuit. */
const BREAKER_HALF_OPEN_MS = 1_000;
/**
 * HTTP/2's default 64 KiB window lets a busy moment of ours stall etcd's watch
 * sender; etcd then treats the watch as slow and delivers late, in batches.
 * A 16 MiB window absorbs seconds of events instead (and a large list page's answer).
 */
const WINDOW_BYTES = 16 * 1024 * 1024;

/** The failures that say an endpoint is down or frozen, as opposed to an answer it gave. */
export function isEndpointFailure(err: unknown): boolean {
  return err instanceof GrpcError && (err.code === GrpcCode.UNAVAILABLE || err.code === GrpcCode.DEADLINE_EXCEEDED);
}

interface Endpoint {
  session: GrpcSession;
  /** Watches get their own session: on a shared one a busy moment of the unary calls could stall etcd's watch sender. */
  watchSession: GrpcSession;
  breaker: CircuitBreaker;
}

export class EtcdClient {
  private readonly endpoints: Endpoint[];
  private readonly callTimeoutMs: number;
  /** The endpoint that answered last; calls start there. */
  private preferred = 0;

  constructor(options: EtcdClientOptions) {
    if (options.servers.length === 0) throw new Error('etcd client: no servers');
    this.callTimeoutMs = options.callTimeoutMs;
    const sessionOptions = { tls: options.tls, windowBytes: WINDOW_BYTES, keepaliveMs: options.keepaliveMs };
    this.endpoints = options.servers.map((server) => ({
      session: new GrpcSession(server, sessionOptions),
      watchSession: new GrpcSession(server, sessionOptions),
      breaker: new CircuitBreaker({ failures: BREAKER_FAILURES, halfOpenMs: BREAKER_HALF_OPEN_MS, isFailure: isEndpointFailure }),
    }));
  }

  /**
   * One unary call on the first endpoint that takes it: endpoints whose circuit
   * is open, or that cannot be connected to, are passed over.
   */
  private async call(path: string, message: Uint8Array, options: { timeoutMs?: number; breaker?: boolean } = {}): Promise<Buffer> {
    const timeoutMs = options.timeoutMs ?? this.callTimeoutMs;
    // Made only when needed: an Error's stack trace costs more than the rest of the call's bookkeeping.
    let lastError: unknown;
    for (let i = 0; i < this.endpoints.length; i++) {
      const index = (this.preferred + i) % this.endpoints.length;
      const { session, breaker } = this.endpoints[index];
      if (options.breaker !== false && breaker.rejecting) continue;
      try {
        const send = () => session.unary(path, message, timeoutMs);
        const answer = await (options.breaker === false ? send() : breaker.execute(send));
        this.preferred = index;
        return answer;
      } catch (err) {
        lastError = err;
        if (!(err instanceof GrpcError && err.unsent)) throw err;
      }
    }
    throw lastError ?? new BrokenCircuitError();
  }

  async range(request: RangeRequest): Promise<RangeResponse> {
    return decodeRangeResponse(await this.call('/etcdserverpb.KV/Range', encodeRangeRequest(request)));
  }

  async txn(request: TxnRequest): Promise<TxnResponse> {
    return decodeTxnResponse(await this.call('/etcdserverpb.KV/Txn', encodeTxnRequest(request)));
  }

  /** Returns the store's revision after the put. */
  async put(key: Buffer, value: Buffer): Promise<number> {
    return decodeHeaderOnly(await this.call('/etcdserverpb.KV/Put', encodePutRequest(key, value))).revision;
  }

  async compact(revision: number): Promise<void> {
    await this.call('/etcdserverpb.KV/Compact', encodeCompactionRequest(revision));
  }

  /** Maintenance.Status within `timeoutMs`, past the circuit breakers (upstream's etcd prober). */
  async status(timeoutMs: number): Promise<void> {
    await this.call('/etcdserverpb.Maintenance/Status', new Uint8Array(0), { timeoutMs, breaker: false });
  }

  /** The watch session to (re)open a watch on: the preferred endpoint's, or the one after it on a retry. */
  watchSession(attempt: number): GrpcSession {
    return this.endpoints[(this.preferred + attempt) % this.endpoints.length].watchSession;
  }

  close(): void {
    for (const endpoint of this.endpoints) {
      endpoint.session.close();
      endpoint.watchSession.close();
    }
  }
}
