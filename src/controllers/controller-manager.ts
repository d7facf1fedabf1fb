/**
 * The in-process controller manager (SPEC 2.9, 3, 5.2): the controllers
 * kube-controller-manager would run, chosen with its `--controllers` syntax and
 * run only while this replica holds the leader lease, so several replicas on
 * one etcd never do the same work twice.
 */

/** A controller the manager starts when this replica leads and stops when it no longer does. */
export interface Controller {
  /** kube-controller-manager's name for it (`serviceaccount-controller`, ...). */
  readonly name: string;
  start(): void | Promise<void>;
  stop(): void;
}

/**
 * Makes a fresh controller for each term of leadership: a controller stopped
 * when leadership is lost starts over from the caches when it is regained.
 */
export interface ControllerFactory {
  readonly name: string;
  create(): Controller;
  /**
   * Work upstream's storage does by itself (events expiring by lease), not a
   * kube-controller-manager controller: it runs while this replica leads,
   * whatever --controllers says.
   */
  readonly storageDuty?: boolean;
}

/** Who leads: the manager runs its controllers between `onLead` and `onLoss`. */
export interface Leadership {
  run(callbacks: { onLead(): void; onLoss(): void }): void;
  stop(): Promise<void>;
}

/**
 * Controllers as kube-controller-manager 1.31 names them, with the older names
 * it still accepts in `--controllers`. `*` turns every one on: upstream leaves
 * bootstrapsigner and tokencleaner off by default, the issue wants them on.
 */
export const KNOWN_CONTROLLERS: ReadonlyArray<{ name: string; aliases: string[] }> = [
  { name: 'bootstrap-signer-controller', aliases: ['bootstrapsigner'] },
  { name: 'clusterrole-aggregation-controller', aliases: ['clusterrole-aggregation'] },
  { name: 'garbage-collector-controller', aliases: ['garbagecollector'] },
  { name: 'namespace-controller', aliases: ['namespace'] },
  { name: 'root-ca-certificate-publisher-controller', aliases: ['root-ca-cert-publisher'] },
  { name: 'serviceaccount-controller', aliases: ['serviceaccount'] },
  { name: 'serviceaccount-token-controller', aliases: ['serviceaccount-token'] },
  { name: 'token-cleaner-controller', aliases: ['tokencleaner'] },
];

function canonicalName(name: string): string | undefined {
  return KNOWN_CONTROLLERS.find((c) => c.name === name || c.aliases.includes(name))?.name;
}

/**
 * `--controllers`: `*` enables every controller that is on by default, `foo`
 * enables foo, `-foo` disables it; an unknown name is a start-up error, as
 * kube-controller-manager's validation says it.
 */
export function parseControllerSelection(items: readonly string[]): (name: string) => boolean {
  const enabled = new Set<string>();
  const disabled = new Set<string>();
  let star = false;
  for (const item of items) {
    if (item === '*') {
      star = true;
      continue;
    }
    const negated = item.startsWith('-');
    const name = canonicalName(negated ? item.slice(1) : item);
    if (!name) throw new Error(`"${item}" is not in the list of known controllers`);
    (negated ? disabled : enabled).add(name);
  }
  return (name) => {
    const canonical = canonicalName(name) ?? name;
    if (disabled.has(canonical)) return false;
    return enabled.has(canonical) || star;
  };
}

export class ControllerManager {
  private running: Controller[] = [];

  constructor(
    private readonly factories: ControllerFactory[],
    private readonly enabled: (name: string) => boolean,
    private readonly leadership: Leadership,
  ) {}

  start(): void {
    this.leadership.run({
      onLead: () => {
        this.startAll();
        console.log(`controller manager: leading; running ${this.runningNames().join(', ') || 'no controllers'}`);
      },
      onLoss: () => {
        console.log('controller manager: lost the leader lease; controllers stopped');
        this.stopAll();
      },
    });
  }

  /** Stops the controllers, then gives up the lease so another replica takes over at once. */
  async stop(): Promise<void> {
    this.stopAll();
    await this.leadership.stop();
  }

  /** The names of the controllers running now. */
  runningNames(): string[] {
    return this.running.map((c) => c.name);
  }

  private startAll(): void {
    if (this.running.length) return;
    for (const factory of this.factories) {
      if (!factory.storageDuty && !this.enabled(factory.name)) continue;
      const controller = factory.create();
      this.running.push(controller);
      Promise.resolve()
        .then(() => controller.start())
        .catch((err) => console.error(`controller ${controller.name} failed to start:`, err));
    }
  }

  private stopAll(): void {
    for (const controller of this.running.splice(0)) {
      try {
        controller.stop();
      } catch (err) {
        console.error(`controller ${controller.name} failed to stop:`, err);
      }
    }
  }
}
