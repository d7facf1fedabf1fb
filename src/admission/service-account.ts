/**
 * ServiceAccount admission for pods (SPEC 5.2; upstream
 * plugin/pkg/admission/serviceaccount): a pod without serviceAccountName runs
 * as `default`; its account must exist; unless the pod or the account turns
 * automountServiceAccountToken off, every container and init container gets
 * the projected token volume (a 3607 s service-account token, the
 * `orch-root-ca.crt` CA bundle, the namespace) at
 * /var/run/secrets/orch.io/serviceaccount; the account's imagePullSecrets are
 * copied to a pod that has none; an account annotated
 * `orch.io/enforce-mountable-secrets: "true"` limits the Secrets the pod uses.
 */
import { randomBytes } from 'node:crypto';
import * as errors from '../api/status-error.ts';
import type { ObjectReader } from '../registry/object-reader.ts';
import type { AdmissionAttributes } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';

export const TOKEN_MOUNT_PATH = '/var/run/secrets/orch.io/serviceaccount';
const VOLUME_PREFIX = 'orch-api-access-';
const MIRROR_ANNOTATION = 'orch.io/config.mirror';
const ENFORCE_ANNOTATION = 'orch.io/enforce-mountable-secrets';
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

const isPodCreate = (a: AdmissionAttributes) => a.kind.group === '' && a.kind.plural === 'pods' && a.subresource === '' && a.operation === 'CREATE' && !!a.object;

function forbidden(a: AdmissionAttributes, message: string): errors.StatusError {
  return errors.forbidden({ group: '', resource: 'pods' }, a.name, message);
}

/** upstream TokenVolumeSource, with the defaults its caller must set itself since defaulting already ran. */
function tokenVolume(name: string): ApiObject {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
        { configMap: { name: 'orch-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  } as unknown as ApiObject;
}

function mountToken(pod: ApiObject): void {
  const spec = pod.spec;
  spec.volumes ??= [];
  const existing = spec.volumes.find((v: { name?: string }) => typeof v.name === 'string' && v.name.startsWith(VOLUME_PREFIX));
  const volumeName: string = existing?.name ?? `${VOLUME_PREFIX}${[...randomBytes(5)].map((b) => ALPHANUMS[b % ALPHANUMS.length]).join('')}`;
  let needed = false;
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    container.volumeMounts ??= [];
    // A mount of its own at that path wins, as upstream lets it.
    if (container.volumeMounts.some((m: { mountPath?: string }) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
    container.volumeMounts.push({ name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH });
    needed = true;
  }
  if (needed && !existing) spec.volumes.push(tokenVolume(volumeName));
  if (spec.volumes.length === 0) delete spec.volumes;
}

/** Secret names a pod uses: volumes, env and envFrom of every container (upstream's enforce-mountable-secrets checks). */
function usedSecrets(pod: ApiObject): Array<{ what: string; name: string }> {
  const used: Array<{ what: string; name: string }> = [];
  for (const volume of pod.spec?.volumes ?? []) if (volume.secret?.secretName) used.push({ what: `volume with secret.secretName="${volume.secret.secretName}"`, name: volume.secret.secretName });
  for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])]) {
    for (const env of container.env ?? []) {
      const name = env.valueFrom?.secretKeyRef?.name;
      if (name) used.push({ what: `container ${container.name} with envVar ${env.name} referencing secret.secretName="${name}"`, name });
    }
    for (const from of container.envFrom ?? []) {
      if (from.secretRef?.name) used.push({ what: `container ${container.name} with envFrom referencing secret.secretName="${from.secretRef.name}"`, name: from.secretRef.name });
    }
  }
  return used;
}

export function serviceAccountAdmission(accounts: ObjectReader) {
  return {
    async mutate(a: AdmissionAttributes): Promise<void> {
      if (!isPodCreate(a)) return;
      const pod = a.object!;
      if (pod.metadata.annotations?.[MIRROR_ANNOTATION] !== undefined) return;
      pod.spec ??= {};
      if (!pod.spec.serviceAccountName) pod.spec.serviceAccountName = 'default';
      const account = await accounts.get(a.namespace, pod.spec.serviceAccountName);
      if (!account) {
        throw forbidden(a, `error looking up service account ${a.namespace}/${pod.spec.serviceAccountName}: serviceaccount "${pod.spec.serviceAccountName}" not found`);
      }
      // The pod's preference wins, then the account's.
      const automount = pod.spec.automountServiceAccountToken ?? account.automountServiceAccountToken ?? true;
      if (automount) mountToken(pod);
      if (!(pod.spec.imagePullSecrets?.length > 0) && account.imagePullSecrets?.length > 0) {
        pod.spec.imagePullSecrets = account.imagePullSecrets.map((s: { name?: string }) => ({ name: s.name }));
      }
    },
    async validate(a: AdmissionAttributes): Promise<void> {
      if (!isPodCreate(a)) return;
      const pod = a.object!;
      if (pod.metadata.annotations?.[MIRROR_ANNOTATION] !== undefined) return;
      if (!pod.spec?.serviceAccountName) throw forbidden(a, `no service account specified for pod ${a.namespace}/${a.name}`);
      const account = await accounts.get(a.namespace, pod.spec.serviceAccountName);
      if (account?.metadata.annotations?.[ENFORCE_ANNOTATION] !== 'true') return;
      const allowed = new Set((account.secrets ?? []).map((s: { name?: string }) => s.name));
      for (const { what, name } of usedSecrets(pod)) {
        if (!allowed.has(name)) throw forbidden(a, `${what} is not allowed because service account ${account.metadata.name} does not reference that secret`);
      }
    },
  };
}
