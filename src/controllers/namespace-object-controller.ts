/**
 * Keeps one object in every namespace that is not terminating, re-creating it
 * when deleted and restoring what it must hold when edited: upstream's
 * serviceaccount controller (`default` ServiceAccount, SPEC 5.2) and
 * root-ca-cert-publisher (`orch-root-ca.crt` ConfigMap) share this shape.
 */
import { storedResourcePrefix } from '../registry/kind.ts';
import type { GenericStore } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import type { ResourceCaches } from '../storage/cacher/cacher.ts';
import type { Controller } from './controller-manager.ts';
import { WorkQueue } from './work-queue.ts';

export interface NamespaceObjectSpec {
  /** kube-controller-manager's name of the controller. */
  controller: string;
  objectName: string;
  /** The object to create in a namespace. */
  desired(namespace: string): ApiObject;
  /** The stored object corrected, or null when it is as it should be. */
  corrected?(current: ApiObject): ApiObject | null;
}

export class NamespaceObjectController implements Controller {
  readonly name: string;
  private readonly queue = new WorkQueue<string>((namespace) => this.sync(namespace));

  constructor(
    private readonly spec: NamespaceObjectSpec,
    private readonly namespaces: GenericStore,
    private readonly target: GenericStore,
    private readonly cacher: ResourceCaches,
  ) {
    this.name = spec.controller;
  }

  private cacheOf(store: GenericStore) {
    return this.cacher.cache(storedResourcePrefix(store.kind));
  }

  start(): void {
    for (const cached of this.cacheOf(this.namespaces).all()) this.enqueue(JSON.parse(cached.value).metadata.name);
    this.cacheOf(this.namespaces).listeners.add(this.onNamespace);
    this.cacheOf(this.target).listeners.add(this.onTarget);
  }

  stop(): void {
    this.cacheOf(this.namespaces).listeners.delete(this.onNamespace);
    this.cacheOf(this.target).listeners.delete(this.onTarget);
    this.queue.stop();
  }

  private enqueue(namespace: string): void {
    this.queue.add(namespace, namespace);
  }

  private readonly onNamespace = (event: { type: string; object: { parsed(): any } }) => {
    if (event.type !== 'DELETED') this.enqueue(event.object.parsed().metadata.name);
  };

  private readonly onTarget = (event: { type: string; object: { key: string } }) => {
    // The key names the namespace and the object: no need to parse it.
    const [namespace, name] = event.object.key.slice(this.target.prefix(undefined).length).split('/');
    if (name === this.spec.objectName && namespace) this.enqueue(namespace);
  };

  private terminating(namespace: string): boolean {
    const cached = this.cacheOf(this.namespaces).get(this.namespaces.key(undefined, namespace));
    if (!cached) return true;
    const ns = JSON.parse(cached.value);
    return !!ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating';
  }

  private async sync(namespace: string): Promise<void> {
    if (this.terminating(namespace)) return;
    const cached = this.cacheOf(this.target).get(this.target.key(namespace, this.spec.objectName));
    const options = { dryRun: false };
    try {
      if (!cached) {
        await this.target.create(namespace, this.spec.desired(namespace), options);
        return;
      }
      const current = JSON.parse(cached.value) as ApiObject;
      const corrected = this.spec.corrected?.(current);
      if (!corrected) return;
      await this.target.update(namespace, this.spec.objectName, () => ({ ...corrected, metadata: { ...corrected.metadata, resourceVersion: current.metadata.resourceVersion } }), options);
    } catch (err) {
      const { code, reason } = err as { code?: number; reason?: string };
      // Someone else made it, or the namespace started terminating, or went: nothing to do.
      if (reason === 'AlreadyExists' || code === 403 || (code === 404 && this.terminating(namespace))) return;
      throw err;
    }
  }
}

/** The `default` ServiceAccount of every namespace (SPEC 5.2). */
export const DEFAULT_SERVICE_ACCOUNT: NamespaceObjectSpec = {
  controller: 'serviceaccount-controller',
  objectName: 'default',
  desired: () => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }),
};

export const ROOT_CA_CONFIGMAP = 'orch-root-ca.crt';
const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the orch-apiserver when using internal endpoints such as the internal service IP or orch.default.svc. No other usage is guaranteed across distributions of orch clusters.';

/** The `orch-root-ca.crt` ConfigMap of every namespace: `ca.crt` is the bundle that verifies this server. */
export function rootCaPublisher(caPem: string): NamespaceObjectSpec {
  const desired = (): ApiObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: ROOT_CA_CONFIGMAP, annotations: { 'orch.io/description': ROOT_CA_DESCRIPTION } },
    data: { 'ca.crt': caPem },
  });
  return {
    controller: 'root-ca-certificate-publisher-controller',
    objectName: ROOT_CA_CONFIGMAP,
    desired,
    corrected(current) {
      const dataOk = current.data?.['ca.crt'] === caPem && Object.keys(current.data ?? {}).length === 1 && !current.binaryData;
      if (dataOk && current.metadata.annotations?.['orch.io/description'] === ROOT_CA_DESCRIPTION) return null;
      const { binaryData: _dropped, ...rest } = current;
      return { ...rest, data: { 'ca.crt': caPem }, metadata: { ...current.metadata, annotations: { ...(current.metadata.annotations ?? {}), 'orch.io/description': ROOT_CA_DESCRIPTION } } };
    },
  };
}
