/**
 * Values a library function can only get asynchronously (an authorization
 * decision, SPEC 2.11) while evaluation itself is synchronous, as cel-js's
 * and the cost meter's are.
 *
 * An evaluation runs in rounds. A function that needs such a value asks
 * `awaited(key, start)`: a value the evaluation already knows comes back at
 * once; otherwise the call is recorded and the round halts there (through
 * the cost meter, so that `||`, `&&` and the quantifiers, which absorb
 * errors, cannot swallow the halt). The caller then awaits the recorded call
 * and runs the expression again with what it learned. Expressions are
 * deterministic, so the next round takes the same path up to that call, gets
 * its value and goes on; the round that completes without halting is the
 * evaluation, and its meter the cost. Each round thus asks for exactly the
 * calls, in the order, a synchronous implementation would make.
 *
 * A synchronous evaluation knows no values: the first such call halts it
 * with an error that says so, rather than letting it decide without the value.
 */
import type { CostMeter } from './cost.ts';

/** What an asynchronous call gave: its value, or the error it failed with (thrown again where the value is asked). */
export type Outcome = { value: unknown } | { error: Error };

/** A call a round halted at. */
export interface PendingCall {
  key: string;
  start: () => Promise<unknown>;
}

/** Thrown where a round halts to wait for a call. */
export class AwaitingCall extends Error {
  constructor(readonly key: string) {
    super(`evaluation halted: waiting for ${key}`);
  }
}

/** Thrown where a synchronous evaluation meets a call only an asynchronous one can make. */
export class AsynchronousCallRequired extends Error {
  constructor(what: string) {
    super(`${what} is asynchronous: the expression must be evaluated with evaluateAsync`);
  }
}

/** One run of an expression. */
export class Round {
  /** The call this round halted at, if it did. */
  pending?: PendingCall;

  constructor(
    readonly meter: CostMeter,
    /** What earlier rounds learned; undefined for a synchronous evaluation, which can learn nothing. */
    readonly known: ReadonlyMap<string, Outcome> | undefined,
  ) {}
}

let current: Round | undefined;

/** Runs `run` (one synchronous evaluation) as `round`. */
export function inRound<T>(round: Round, run: () => T): T {
  const outer = current;
  current = round;
  try {
    return run();
  } finally {
    current = outer;
  }
}

/**
 * The value of the asynchronous call `key` (which `start` makes): known from
 * an earlier round, or the round halts here. `what` names the call for the
 * error a synchronous evaluation gets.
 */
export function awaited<T>(key: string, start: () => Promise<T>, what: string): T {
  const round = current;
  if (!round) throw new AsynchronousCallRequired(what);
  const known = round.known?.get(key);
  if (known) {
    if ('error' in known) throw known.error;
    return known.value as T;
  }
  if (round.meter.halted) throw round.meter.halted;
  if (!round.known) {
    const error = new AsynchronousCallRequired(what);
    round.meter.halt(error);
    throw error;
  }
  round.pending = { key, start };
  const halt = new AwaitingCall(key);
  round.meter.halt(halt);
  throw halt;
}

/** Awaits a recorded call; a rejection becomes the error its caller gets. */
export async function settle(call: PendingCall): Promise<Outcome> {
  try {
    return { value: await call.start() };
  } catch (err) {
    return { error: err instanceof Error ? err : new Error(String(err)) };
  }
}
