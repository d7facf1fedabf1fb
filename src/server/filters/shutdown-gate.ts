/**
 * What a graceful shutdown holds of the request path (upstream's
 * NotAcceptingNewRequest signal and NonLongRunningRequestWaitGroup): whether
 * new requests are refused, and the requests in flight that are not
 * long-running, which the shutdown waits for.
 */
export class ShutdownGate {
  /** Set once a shutdown with --shutdown-send-retry-after has begun: new requests get 429. */
  refusing = false;
  private inFlight = 0;
  private readonly drained: Array<() => void> = [];

  /** A request that is not long-running has begun. */
  add(): void {
    this.inFlight++;
  }

  /** A request counted by `add` is done; the last one lets the shutdown go on. */
  done(): void {
    if (--this.inFlight === 0) for (const resolve of this.drained.splice(0)) resolve();
  }

  /** Refuses new requests from now on; resolves once the requests counted now have finished. */
  refuseNewRequests(): Promise<void> {
    this.refusing = true;
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }
}
