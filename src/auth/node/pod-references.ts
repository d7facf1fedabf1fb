/**
 * The objects a pod's spec names (upstream pkg/api/v1/pod/util.go
 * VisitPodSecretNames and VisitPodConfigmapNames; the claim names of
 * plugin/pkg/auth/authorizer/node/graph.go AddPod): what a node running the
 * pod may read, and what NodeRestriction refuses in a node's own pods.
 * Transitive references (pod -> claim -> volume -> secret) are not followed.
 * Empty names are skipped: no request can name them.
 */

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** upstream VisitContainers(AllContainers): init, regular, then ephemeral containers. */
function containers(pod: any): any[] {
  const spec = pod?.spec ?? {};
  return [...arr(spec.initContainers), ...arr(spec.containers), ...arr(spec.ephemeralContainers)];
}

/** The volume source a volume uses: upstream's switch takes the first one set, in this order. */
const SECRET_VOLUME_SOURCES: Array<[string, (source: any) => unknown]> = [
  ['azureFile', (s) => s.secretName],
  ['cephfs', (s) => s.secretRef && s.secretRef.name],
  ['cinder', (s) => s.secretRef && s.secretRef.name],
  ['flexVolume', (s) => s.secretRef && s.secretRef.name],
  ['projected', () => undefined],
  ['rbd', (s) => s.secretRef && s.secretRef.name],
  ['secret', (s) => s.secretName],
  ['scaleIO', (s) => s.secretRef && s.secretRef.name],
  ['iscsi', (s) => s.secretRef && s.secretRef.name],
  ['storageos', (s) => s.secretRef && s.secretRef.name],
  ['csi', (s) => s.nodePublishSecretRef && s.nodePublishSecretRef.name],
];

/** Every secret name the pod references: image pull secrets, env and envFrom of every container, volumes. */
export function podSecretNames(pod: any): string[] {
  const names: string[] = [];
  const add = (name: unknown) => {
    if (str(name)) names.push(str(name));
  };
  for (const ref of arr(pod?.spec?.imagePullSecrets)) add(ref?.name);
  for (const c of containers(pod)) {
    for (const from of arr(c?.envFrom)) add(from?.secretRef?.name);
    for (const env of arr(c?.env)) add(env?.valueFrom?.secretKeyRef?.name);
  }
  for (const volume of arr(pod?.spec?.volumes)) {
    if (!volume || typeof volume !== 'object') continue;
    const match = SECRET_VOLUME_SOURCES.find(([field]) => volume[field] && typeof volume[field] === 'object');
    if (!match) continue;
    const [field, name] = match;
    if (field === 'projected') for (const source of arr(volume.projected.sources)) add(source?.secret?.name);
    else add(name(volume[field]));
  }
  return names;
}

/** Every config map name the pod references: env and envFrom of every container, configMap and projected volumes. */
export function podConfigMapNames(pod: any): string[] {
  const names: string[] = [];
  const add = (name: unknown) => {
    if (str(name)) names.push(str(name));
  };
  for (const c of containers(pod)) {
    for (const from of arr(c?.envFrom)) add(from?.configMapRef?.name);
    for (const env of arr(c?.env)) add(env?.valueFrom?.configMapKeyRef?.name);
  }
  for (const volume of arr(pod?.spec?.volumes)) {
    if (volume?.projected && typeof volume.projected === 'object') {
      for (const source of arr(volume.projected.sources)) add(source?.configMap?.name);
    } else if (volume?.configMap && typeof volume.configMap === 'object') add(volume.configMap.name);
  }
  return names;
}

/**
 * The persistent volume claims the pod uses: each persistentVolumeClaim
 * volume's claim, and `<pod>-<volume>` for a generic ephemeral volume
 * (upstream ephemeral.VolumeClaimName).
 */
export function podClaimNames(pod: any): string[] {
  const names: string[] = [];
  for (const volume of arr(pod?.spec?.volumes)) {
    if (volume?.persistentVolumeClaim) {
      if (str(volume.persistentVolumeClaim.claimName)) names.push(volume.persistentVolumeClaim.claimName);
    } else if (volume?.ephemeral) names.push(`${str(pod?.metadata?.name)}-${str(volume.name)}`);
  }
  return names;
}
