/**
 * Pod defaulting as kube-apiserver 1.31 applies it on every decode of a v1 Pod
 * (K pkg/apis/core/v1/defaults.go SetDefaults_Pod, _PodSpec, _Container,
 * _Volume, _Probe, _HTTPGetAction, _ObjectFieldSelector, _*VolumeSource,
 * _ServiceAccountTokenProjection, _PersistentVolumeClaimSpec, _ResourceList),
 * quantities read as upstream's decoder reads them, and the v1 status IP
 * conversion (K pkg/apis/core/v1/conversion.go). Defaults the contract states
 * as OpenAPI `default` (ContainerPort.protocol TCP, RBD, ISCSI, ScaleIO and
 * AzureDisk fields) are applied by the generated decoder already.
 */
import { imageTag } from '../../../registry/validation/image-reference.ts';
import { canonicalQuantity, canonicalResourceList } from '../../../registry/validation/resource-list.ts';
import type { ApiObject } from '../../../registry/strategy.ts';

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** The container lists of a pod spec, in upstream's VisitContainers order. */
export function containerLists(spec: any): any[][] {
  return [arr(spec?.initContainers), arr(spec?.containers), arr(spec?.ephemeralContainers)];
}

/** Upstream v1 defaults SecretVolumeSourceDefaultMode and friends: 0644. */
const DEFAULT_MODE = 0o644;

function canonicalRequirements(resources: unknown, kind: string): void {
  if (!isObj(resources)) return;
  canonicalResourceList(resources.limits, kind);
  canonicalResourceList(resources.requests, kind);
}

function canonicalDivisor(ref: unknown, kind: string): void {
  if (isObj(ref)) canonicalQuantity(ref, 'divisor', false, kind);
}

/** Every quantity of a pod spec in canonical form (the decoder's part of upstream's work); `kind` names the object in errors. */
function canonicalizeSpecQuantities(spec: any, kind: string): void {
  for (const list of containerLists(spec)) {
    for (const c of list) {
      if (!isObj(c)) continue;
      canonicalRequirements(c.resources, kind);
      for (const env of arr(c.env)) canonicalDivisor(env?.valueFrom?.resourceFieldRef, kind);
    }
  }
  canonicalResourceList(spec.overhead, kind);
  for (const v of arr(spec.volumes)) {
    if (!isObj(v)) continue;
    if (isObj(v.emptyDir)) canonicalQuantity(v.emptyDir, 'sizeLimit', false, kind);
    for (const item of arr(v.downwardAPI?.items)) canonicalDivisor(item?.resourceFieldRef, kind);
    for (const source of arr(v.projected?.sources)) for (const item of arr(source?.downwardAPI?.items)) canonicalDivisor(item?.resourceFieldRef, kind);
    canonicalRequirements(v.ephemeral?.volumeClaimTemplate?.spec?.resources, kind);
  }
}

/** Every quantity of a pod, spec and status, in canonical form. */
function canonicalizeQuantities(pod: ApiObject): void {
  canonicalizeSpecQuantities(pod.spec ?? {}, 'Pod');
  for (const key of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    for (const s of arr(pod.status?.[key])) {
      if (!isObj(s)) continue;
      canonicalResourceList(s.allocatedResources, 'Pod');
      canonicalRequirements(s.resources, 'Pod');
    }
  }
}

/** SetDefaults_Probe and SetDefaults_HTTPGetAction. */
function defaultProbe(probe: unknown): void {
  if (!isObj(probe)) return;
  probe.timeoutSeconds ||= 1;
  probe.periodSeconds ||= 10;
  probe.successThreshold ||= 1;
  probe.failureThreshold ||= 3;
  defaultHttpGet(probe.httpGet);
}

function defaultHttpGet(action: unknown): void {
  if (!isObj(action)) return;
  action.path ||= '/';
  action.scheme ||= 'HTTP';
}

/** SetDefaults_ObjectFieldSelector: apiVersion v1. */
function defaultFieldRef(ref: unknown): void {
  if (isObj(ref)) ref.apiVersion ||= 'v1';
}

/** SetDefaults_Container (and the nested probe, handler and field-selector defaults). */
function defaultContainer(c: Record<string, any>): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(typeof c.image === 'string' ? c.image : '') === 'latest' ? 'Always' : 'IfNotPresent';
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[probe]);
  for (const hook of ['postStart', 'preStop']) defaultHttpGet(c.lifecycle?.[hook]?.httpGet);
  for (const env of arr(c.env)) defaultFieldRef(env?.valueFrom?.fieldRef);
}

function defaultDownwardApiItems(items: unknown): void {
  for (const item of arr(items)) defaultFieldRef(item?.fieldRef);
}

/** SetDefaults_Volume and the volume sources' defaults. */
function defaultVolume(v: Record<string, any>): void {
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (sources.length === 0) v.emptyDir = {};
  for (const key of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    if (isObj(v[key])) v[key].defaultMode ??= DEFAULT_MODE;
  }
  if (isObj(v.hostPath)) v.hostPath.type ??= '';
  defaultDownwardApiItems(v.downwardAPI?.items);
  for (const source of arr(v.projected?.sources)) {
    if (isObj(source?.serviceAccountToken)) source.serviceAccountToken.expirationSeconds ??= 3600;
    defaultDownwardApiItems(source?.downwardAPI?.items);
  }
  const claimSpec = v.ephemeral?.volumeClaimTemplate?.spec;
  if (isObj(claimSpec)) claimSpec.volumeMode ??= 'Filesystem';
}

/** SetDefaults_Pod: requests default to limits, key by key, for regular and init containers. */
function defaultRequestsFromLimits(c: Record<string, any>): void {
  const limits = c.resources?.limits;
  if (!isObj(limits)) return;
  c.resources.requests = isObj(c.resources.requests) ? c.resources.requests : {};
  for (const [name, value] of Object.entries(limits)) {
    if (!Object.hasOwn(c.resources.requests, name)) c.resources.requests[name] = value;
  }
}

/**
 * The v1 status carries podIP beside podIPs (hostIP beside hostIPs); upstream's
 * conversion makes the singular field authoritative and the first entry of the list.
 */
function convertStatusIPs(status: unknown): void {
  if (!isObj(status)) return;
  for (const [one, many] of [['podIP', 'podIPs'], ['hostIP', 'hostIPs']] as const) {
    const list = arr(status[many]);
    if (status[one]) {
      if (list.length === 0 || list[0]?.ip !== status[one]) status[many] = [{ ip: status[one] }];
    } else if (list.length > 0) {
      status[one] = list[0]?.ip ?? '';
      if (!status[one]) delete status[one];
    }
  }
}

/**
 * SetDefaults_PodSpec and the defaults of everything in a pod spec, as the
 * generated defaulters apply them to a pod template's spec too (Deployment,
 * Job, ...): not SetDefaults_Pod's, which upstream keeps to v1.Pod.
 */
function defaultPodSpecFields(spec: Record<string, any>): void {
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  if (!isObj(spec.securityContext)) spec.securityContext = {};
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ||= 'default-scheduler';
  for (const v of arr(spec.volumes)) if (isObj(v)) defaultVolume(v);
  for (const list of containerLists(spec)) for (const c of list) if (isObj(c)) defaultContainer(c);
}

/** Every default upstream gives a decoded v1 Pod (spec and status). */
export function defaultPod(pod: ApiObject): void {
  canonicalizeQuantities(pod);
  if (!isObj(pod.spec)) pod.spec = {};
  const spec = pod.spec;
  for (const c of [...arr(spec.containers), ...arr(spec.initContainers)]) if (isObj(c)) defaultRequestsFromLimits(c);
  spec.enableServiceLinks ??= true;
  if (spec.hostNetwork === true) {
    for (const c of [...arr(spec.containers), ...arr(spec.initContainers)]) {
      for (const port of arr(c?.ports)) if (isObj(port) && !port.hostPort) port.hostPort = port.containerPort;
    }
  }
  defaultPodSpecFields(spec);
  convertStatusIPs(pod.status);
}

/**
 * The defaults of a pod template (a workload's spec.template, SPEC 9.7):
 * quantities in canonical form (errors name `kind`, the object decoded) and
 * the pod spec defaults.
 */
export function defaultPodTemplate(template: unknown, kind: string): void {
  if (!isObj(template)) return;
  if (!isObj(template.spec)) template.spec = {};
  canonicalizeSpecQuantities(template.spec, kind);
  defaultPodSpecFields(template.spec);
}

