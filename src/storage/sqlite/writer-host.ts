/**
 * The SQLite writer's side of the worker channels (issue 10): takes every
 * worker's writes into the one group commit, and after each commit sends each
 * worker one message with the commit's events and its own answers. The
 * writer's fsync never runs on a worker's event loop.
 */
import { DeadlineExceededError, type Storage, type StorageEvent, type Watch } from '../interface.ts';
import { DeadlineAbort } from '../../util/deadline-signal.ts';
import { InFlightTable } from '../../util/in-flight-table.ts';
import { toWire, type Answer, type ReplicaChannel, type ToWriter } from './write-channel.ts';

interface Attached {
  channel: ReplicaChannel;
  answers: Answer[];
  /** Writes not yet answered, by id, so a cancel can drop them. */
  inflight: InFlightTable<DeadlineAbort>;
  detach: () => void;
}

export class WriterHost {
  private readonly attached = new Set<Attached>();
  private events: StorageEvent[] = [];
  private scheduled = false;
  private watch: Watch | undefined;

  constructor(private readonly storage: Storage) {}

  /** Follows every committed write from the store's current revision. */
  async start(): Promise<void> {
    const from = await this.storage.currentRevision();
    this.watch = this.storage.watch(
      '',
      from,
      (event) => {
        this.events.push(event);
        this.schedule();
      },
      (err) => console.error('sqlite writer: the commit feed failed:', err),
    );
  }

  stop(): void {
    this.watch?.stop();
    for (const worker of [...this.attached]) worker.detach();
  }

  attach(channel: ReplicaChannel): void {
    const worker: Attached = { channel, answers: [], inflight: new InFlightTable(), detach: () => {} };
    const unsubscribe = channel.onMessage((message) => this.onMessage(worker, message));
    worker.detach = () => {
      unsubscribe();
      for (const controller of worker.inflight.values()) controller.abort(new DeadlineExceededError());
      this.attached.delete(worker);
    };
    channel.onClose(() => worker.detach());
    this.attached.add(worker);
  }

  private onMessage(worker: Attached, message: ToWriter): void {
    switch (message.t) {
      case 'write': {
        const controller = new DeadlineAbort();
        worker.inflight.set(message.id, controller);
        const control = { signal: controller };
        const write =
          message.op === 'create'
            ? this.storage.create(message.key, message.value, control)
            : message.op === 'update'
              ? this.storage.update(message.key, message.value ?? '', message.expected, control)
              : this.storage.delete(message.key, message.expected, control);
        write.then(
          (revision) => this.answer(worker, { id: message.id, revision }),
          (err) => this.answer(worker, { id: message.id, error: toWire(err) }),
        );
        return;
      }
      case 'cancel':
        worker.inflight.get(message.id)?.abort(new DeadlineExceededError());
        return;
      case 'ready':
        this.settle(worker, message.id, this.storage.ping(5_000, true));
        return;
      case 'compact':
        this.settle(worker, message.id, this.storage.compact(message.revision));
        return;
    }
  }

  private settle(worker: Attached, id: number, done: Promise<void>): void {
    done.then(
      () => this.answer(worker, { id }),
      (err) => this.answer(worker, { id, error: toWire(err) }),
    );
  }

  private answer(worker: Attached, answer: Answer): void {
    worker.inflight.delete(answer.id);
    if (!this.attached.has(worker)) return;
    worker.answers.push(answer);
    this.schedule();
  }

  /**
   * A commit's events reach the store's watch in the same turn its writes
   * settle, so each message carries the events before the answers of the
   * writes that made them. Sent in a microtask of that turn, before the
   * primary's own responses to those writes are written: a client that reads
   * after its write, on a new connection the other process accepts, finds the
   * write there (an RBAC grant or revocation holds at once) once that process
   * has read this message. It reads its channel and its sockets in the order
   * the loop finds them ready, so under load a request can come first: an RBAC
   * check does not wait for the store's revision as a consistent read does
   * (seen once in a loaded test run). Two microtasks
   * late, so that the answers to the workers' writes of the same commit, one
   * `then` behind their settling, go in the same message.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => queueMicrotask(() => this.send()));
  }

  private send(): void {
    this.scheduled = false;
    const events = this.events;
    this.events = [];
    for (const worker of this.attached) {
      if (!events.length && !worker.answers.length) continue;
      const answers = worker.answers;
      worker.answers = [];
      try {
        worker.channel.send({ t: 'batch', events, answers });
      } catch (err) {
        console.error('sqlite writer: a worker could not be told:', err);
        worker.detach();
      }
    }
  }
}
