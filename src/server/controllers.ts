/**
 * The controllers this server runs (SPEC 2.9, 3, 5.2) and who leads them: the
 * ones kube-controller-manager would run, wired to the stores, the watch cache
 * and the server's own CA, URL and signing key.
 */
import type { SigningKey } from '../auth/serviceaccount/keys.ts';
import { BootstrapSigner, clusterInfoOrchconfig } from '../controllers/bootstrap-signer.ts';
import { ControllerManager, parseControllerSelection, type ControllerFactory } from '../controllers/controller-manager.ts';
import { ClusterRoleAggregationController } from '../controllers/clusterrole-aggregation.ts';
import { GarbageCollector } from '../controllers/garbage-collector.ts';
import { LeaseLeadership, soleLeadership } from '../controllers/leader-election.ts';
import { LegacyTokenController } from '../controllers/legacy-token-controller.ts';
import { DEFAULT_SERVICE_ACCOUNT, NamespaceObjectController, rootCaPublisher } from '../controllers/namespace-object-controller.ts';
import { NamespaceController } from '../controllers/namespace-controller.ts';
import { TokenCleaner } from '../controllers/token-cleaner.ts';
import { EventExpiry } from '../controllers/event-expiry.ts';
import type { Storage } from '../storage/interface.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import type { ApiServer } from './api-server.ts';

export interface LeaderElectionSettings {
  enabled: boolean;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  resourceName?: string;
  resourceNamespace?: string;
}

export interface ControllerSettings {
  apiServer: ApiServer;
  /** Every resource's watch cache, whichever store holds it. */
  caches: ResourceCaches;
  /** The store of events (the event-ttl controller deletes from it). */
  eventStorage: Storage;
  /** --event-ttl; 0: events never expire. */
  eventTtlMs: number;
  /** --enable-garbage-collector: off, the garbage collector does not run (kube-controller-manager's flag of the same name). */
  garbageCollection: boolean;
  /** This server's URL and CA bundle, for cluster-info and orch-root-ca.crt. */
  url: string;
  caPem: string;
  signing: SigningKey;
  /** --controllers. */
  selection: string[];
  leaderElection: LeaderElectionSettings;
}

export function controllerManager(settings: ControllerSettings): ControllerManager {
  const { apiServer, caches, caPem } = settings;
  const store = (plural: string) => apiServer.store('', 'v1', plural);
  const [namespaces, configMaps, secrets, accounts] = ['namespaces', 'configmaps', 'secrets', 'serviceaccounts'].map(store);
  const controllers: ControllerFactory[] = [
    ...(settings.garbageCollection ? [{ name: 'garbage-collector-controller', create: () => new GarbageCollector(apiServer.allStores(), caches) }] : []),
    {
      name: 'namespace-controller',
      create: () =>
        new NamespaceController(
          namespaces,
          apiServer.subresourceStore('', 'v1', 'namespaces', 'finalize'),
          apiServer.allStores().filter((s) => s.kind.namespaced),
          caches,
        ),
    },
    { name: 'token-cleaner-controller', create: () => new TokenCleaner(secrets, caches) },
    { name: 'bootstrap-signer-controller', create: () => new BootstrapSigner(configMaps, secrets, caches, () => clusterInfoOrchconfig(settings.url, caPem)) },
    { name: 'serviceaccount-controller', create: () => new NamespaceObjectController(DEFAULT_SERVICE_ACCOUNT, namespaces, accounts, caches) },
    { name: 'root-ca-certificate-publisher-controller', create: () => new NamespaceObjectController(rootCaPublisher(caPem), namespaces, configMaps, caches) },
    { name: 'clusterrole-aggregation-controller', create: () => new ClusterRoleAggregationController(apiServer.store('rbac.authorization.orch.io', 'v1', 'clusterroles'), caches) },
    { name: 'serviceaccount-token-controller', create: () => new LegacyTokenController(secrets, accounts, caches, settings.signing, caPem) },
    ...(settings.eventTtlMs > 0 ? [{ name: 'event-ttl', storageDuty: true, create: () => new EventExpiry(settings.eventStorage, caches, settings.eventTtlMs) }] : []),
  ];
  const election = settings.leaderElection;
  const leadership = election.enabled
    ? new LeaseLeadership({
        leases: apiServer.store('coordination.orch.io', 'v1', 'leases'),
        namespace: election.resourceNamespace ?? 'orch-system',
        name: election.resourceName ?? 'orch-controller-manager',
        leaseDurationMs: election.leaseDurationMs ?? 15_000,
        renewDeadlineMs: election.renewDeadlineMs ?? 10_000,
        retryPeriodMs: election.retryPeriodMs ?? 2_000,
      })
    : soleLeadership;
  return new ControllerManager(controllers, parseControllerSelection(settings.selection), leadership);
}
