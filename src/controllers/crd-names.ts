/**
 * The names and the Established condition of CustomResourceDefinitions
 * (SPEC 2.1; upstream apiextensions-apiserver pkg/controller/status
 * naming_controller.go and pkg/controller/establish): a definition's requested
 * names are accepted unless another definition of its group already holds
 * them; once NamesAccepted, it becomes Established, and from then on every
 * replica serves it. Like upstream's, this runs on every server: its writes
 * are compare-and-swap status updates, so replicas never undo each other.
 */
import type { GenericStore } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import { resourcePrefix } from '../storage/keys.ts';
import { WorkQueue } from './work-queue.ts';

interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** Upstream SetCRDCondition: the transition time moves only when the status does. */
export function setCondition(crd: ApiObject, condition: Condition): void {
  crd.status ??= {};
  const conditions: Condition[] = (crd.status.conditions ??= []);
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    conditions.push({ ...condition, lastTransitionTime: now() });
    return;
  }
  if (existing.status !== condition.status || !existing.lastTransitionTime) existing.lastTransitionTime = now();
  Object.assign(existing, { status: condition.status, reason: condition.reason, message: condition.message });
}

export const findCondition = (crd: ApiObject, type: string): Condition | undefined => (crd.status?.conditions ?? []).find((c: Condition) => c.type === type);

const sameCondition = (a: Condition, b: Condition | undefined) => !!b && a.status === b.status && a.reason === b.reason && a.message === b.message;

/** upstream equalToAcceptedOrFresh. */
function conflict(requested: string, accepted: string | undefined, used: Set<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `"${requested}" is already in use`;
}

/** upstream calculateNamesAndConditions: the names to accept and the two conditions, given every definition. */
export function namesAndConditions(crd: ApiObject, all: ApiObject[]): { names: Record<string, any>; namesAccepted: Condition; established: Condition } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const other of all) {
    if (other.spec?.group !== crd.spec?.group) continue;
    const a = other.status?.acceptedNames ?? {};
    for (const n of [a.plural, a.singular, ...(a.shortNames ?? [])]) resources.add(n ?? '');
    kinds.add(a.kind ?? '');
    kinds.add(a.listKind ?? '');
  }
  const requested = crd.spec?.names ?? {};
  const accepted = crd.status?.acceptedNames ?? {};
  const names: Record<string, any> = { ...accepted };
  const namesAccepted: Condition = { type: 'NamesAccepted', status: 'Unknown' };
  const refuse = (reason: string, message: string) => Object.assign(namesAccepted, { status: 'False', reason, message });
  for (const [field, reason, used] of [
    ['plural', 'PluralConflict', resources],
    ['singular', 'SingularConflict', resources],
  ] as const) {
    const problem = conflict(requested[field] ?? '', accepted[field], used);
    if (problem) refuse(reason, problem);
    else names[field] = requested[field];
  }
  if (JSON.stringify(requested.shortNames ?? []) !== JSON.stringify(accepted.shortNames ?? [])) {
    const own = new Set<string>(accepted.shortNames ?? []);
    const problems = (requested.shortNames ?? []).filter((s: string) => !own.has(s)).flatMap((s: string) => conflict(s, '', resources) ?? []);
    if (problems.length) refuse('ShortNamesConflict', problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`);
    else names.shortNames = requested.shortNames;
  }
  for (const [field, reason] of [
    ['kind', 'KindConflict'],
    ['listKind', 'ListKindConflict'],
  ] as const) {
    const problem = conflict(requested[field] ?? '', accepted[field], kinds);
    if (problem) refuse(reason, problem);
    else names[field] = requested[field];
  }
  names.categories = requested.categories;
  if (names.categories === undefined) delete names.categories;
  if (namesAccepted.status === 'Unknown') Object.assign(namesAccepted, { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
  let established: Condition = findCondition(crd, 'Established') ?? { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { names, namesAccepted, established };
}

export class CrdNamesController {
  readonly name = 'crd-names-controller';
  private readonly queue = new WorkQueue<string>((name) => this.sync(name));
  private readonly onEvent = (event: { object: { parsed(): ApiObject } }) => {
    const crd = event.object.parsed();
    this.queue.add(crd.metadata.name, crd.metadata.name);
    // A definition that changed or went may free names another one of its group waits for.
    for (const other of this.all()) if (other.spec?.group === crd.spec?.group && other.metadata.name !== crd.metadata.name) this.queue.add(other.metadata.name, other.metadata.name);
  };

  constructor(
    private readonly status: GenericStore,
    private readonly cacher: ResourceCaches,
  ) {}

  private cache() {
    return this.cacher.cache(resourcePrefix(this.status.kind.group, this.status.kind.plural));
  }

  private all(): ApiObject[] {
    return [...this.cache().all()].map((c) => c.parsed());
  }

  start(): void {
    this.cache().listeners.add(this.onEvent);
    for (const crd of this.all()) this.queue.add(crd.metadata.name, crd.metadata.name);
  }

  stop(): void {
    this.cache().listeners.delete(this.onEvent);
    this.queue.stop();
  }

  /**
   * The definition with its names and conditions brought up to date, or
   * undefined when nothing changes. Computed from the object being written
   * (not a cached copy), so a replica with a stale view never undoes
   * another's Established (upstream gets this from UpdateStatus's
   * resourceVersion precondition and a retry).
   */
  private nextStatus(crd: ApiObject): ApiObject | undefined {
    const { names, namesAccepted, established } = namesAndConditions(crd, this.all());
    const namesChanged = JSON.stringify(names) !== JSON.stringify(crd.status?.acceptedNames ?? {}) || !sameCondition(namesAccepted, findCondition(crd, 'NamesAccepted'));
    const establish = !namesChanged && namesAccepted.status === 'True' && findCondition(crd, 'Established')?.status !== 'True';
    if (!namesChanged && !establish) return undefined;
    const next = structuredClone(crd);
    if (namesChanged) {
      next.status = { ...(next.status ?? {}), acceptedNames: names };
      setCondition(next, namesAccepted);
      setCondition(next, established);
    } else {
      // upstream's establishing controller: names accepted, now served.
      setCondition(next, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    }
    return next;
  }

  private async sync(name: string): Promise<void> {
    const crd = this.cache().get(this.status.key(undefined, name))?.parsed();
    if (!crd || !this.nextStatus(crd)) return;
    try {
      await this.status.update(
        undefined,
        name,
        (current) => (current && current.metadata.uid === crd.metadata.uid ? (this.nextStatus(current) ?? current) : current!),
        { dryRun: false },
      );
    } catch (err) {
      // Deleted or changed meanwhile: the change's own event queues it again.
      const code = (err as { code?: number }).code;
      if (code !== 404 && code !== 409) throw err;
    }
  }
}
