/**
 * ClusterRole aggregation (SPEC 5.5; upstream
 * pkg/controller/clusterroleaggregation): a ClusterRole with an
 * aggregationRule holds the union of the rules of every other ClusterRole its
 * selectors match, gathered in name order without repeats. Any ClusterRole
 * change re-syncs every aggregated role, so `admin`, `edit` and `view` follow
 * the roles labelled to aggregate into them.
 */
import type { GenericStore } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { labelSelectorToRequirements, matchesLabels } from '../registry/selectors/label-selector.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import { resourcePrefix } from '../storage/keys.ts';
import type { Controller } from './controller-manager.ts';
import { WorkQueue } from './work-queue.ts';

/** equality.Semantic.DeepEqual as the controller compares rules: empty and absent lists are equal. */
function sameRule(a: any, b: any): boolean {
  const lists = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'];
  return lists.every((k) => JSON.stringify(a?.[k] ?? []) === JSON.stringify(b?.[k] ?? []));
}

function sameRules(a: any[], b: any[]): boolean {
  return a.length === b.length && a.every((rule, i) => sameRule(rule, b[i]));
}

/** The rules an aggregated role should hold, given every ClusterRole. */
export function aggregatedRules(role: ApiObject, all: ApiObject[]): any[] {
  const rules: any[] = [];
  const byName = [...all].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  for (const selector of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const requirements = labelSelectorToRequirements(selector);
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name || !matchesLabels(requirements, other.metadata.labels)) continue;
      for (const rule of other.rules ?? []) if (!rules.some((r) => sameRule(r, rule))) rules.push(rule);
    }
  }
  return rules;
}

export class ClusterRoleAggregationController implements Controller {
  readonly name = 'clusterrole-aggregation-controller';
  private readonly queue = new WorkQueue<string>((name) => this.sync(name));

  constructor(
    private readonly clusterRoles: GenericStore,
    private readonly cacher: ResourceCaches,
  ) {}

  private cache() {
    return this.cacher.cache(resourcePrefix(this.clusterRoles.kind.group, this.clusterRoles.kind.plural));
  }

  private roles(): ApiObject[] {
    return [...this.cache().all()].map((cached) => cached.parsed());
  }

  start(): void {
    this.cache().listeners.add(this.enqueueAggregated);
    this.enqueueAggregated();
  }

  stop(): void {
    this.cache().listeners.delete(this.enqueueAggregated);
    this.queue.stop();
  }

  private readonly enqueueAggregated = () => {
    for (const role of this.roles()) if (role.aggregationRule) this.queue.add(role.metadata.name, role.metadata.name);
  };

  private async sync(name: string): Promise<void> {
    const cached = this.cache().get(this.clusterRoles.key(undefined, name));
    if (!cached) return;
    const role = cached.parsed();
    if (!role.aggregationRule) return;
    const rules = aggregatedRules(role, this.roles());
    if (sameRules(rules, role.rules ?? [])) return;
    try {
      await this.clusterRoles.update(undefined, name, (current) => (current?.aggregationRule ? { ...current, rules: aggregatedRules(current, this.roles()) } : current!), { dryRun: false });
    } catch (err) {
      // Deleted meanwhile: nothing to aggregate into.
      if ((err as { code?: number }).code !== 404) throw err;
    }
  }
}
