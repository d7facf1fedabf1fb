/**
 * A per-endpoint circuit breaker (issue 7, SPEC 4.10): after `failures`
 * consecutive failed calls the circuit opens and calls fail at once instead of
 * each waiting out a deadline against a dead or frozen etcd; after `halfOpenMs`
 * one trial call goes through, and calls made while it runs fail at once too.
 * The trial's success closes the circuit, its failure opens it again.
 */
export class BrokenCircuitError extends Error {
  constructor() {
    super('etcd is unavailable: too many failed calls, retrying shortly');
    this.name = 'BrokenCircuitError';
  }
}

export class CircuitBreaker {
  private readonly failures: number;
  private readonly halfOpenMs: number;
  /** Decides which errors count as the endpoint failing (an answer such as "compacted" does not). */
  private readonly isFailure: (err: unknown) => boolean;
  private consecutive = 0;
  private openedAt = 0;
  private trialRunning = false;

  constructor(options: { failures: number; halfOpenMs: number; isFailure: (err: unknown) => boolean }) {
    this.failures = options.failures;
    this.halfOpenMs = options.halfOpenMs;
    this.isFailure = options.isFailure;
  }

  /** Open, or half-open with its trial in flight: a call now would fail at once. */
  get rejecting(): boolean {
    if (this.trialRunning) return true;
    return this.consecutive >= this.failures && Date.now() - this.openedAt < this.halfOpenMs;
  }

  /** Runs `run` unless the circuit rejects; one promise step of its own (this sits on every etcd call). */
  execute<T>(run: () => Promise<T>): Promise<T> {
    if (this.rejecting) return Promise.reject(new BrokenCircuitError());
    const trial = this.consecutive >= this.failures;
    if (trial) this.trialRunning = true;
    let running: Promise<T>;
    try {
      running = run();
    } catch (err) {
      running = Promise.reject(err);
    }
    return running.then(
      (result) => {
        if (trial) this.trialRunning = false;
        this.consecutive = 0;
        return result;
      },
      (err: unknown) => {
        if (trial) this.trialRunning = false;
        if (!this.isFailure(err)) this.consecutive = 0;
        else if (++this.consecutive >= this.failures) this.openedAt = Date.now();
        throw err;
      },
    );
  }
}
