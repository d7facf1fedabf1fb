/**
 * An error that is an expected outcome rather than a fault: a Status the
 * client gets (401, 403, 404, 409 ...), a lost compare-and-swap, a refused
 * body. It carries no stack trace. Capturing one walks every frame of the
 * async request path: it was 13-17 % of the CPU of a flood of refused
 * requests, and nobody reads it, since the response names the cause.
 */
export class OutcomeError extends Error {
  constructor(message?: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}
