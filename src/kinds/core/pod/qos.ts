/**
 * A pod's quality-of-service class (translated from upstream kubernetes
 * pkg/apis/core/helper/qos ComputePodQOS and GetPodQOS, 1.31): BestEffort
 * without cpu or memory requests and limits, Guaranteed when every container
 * limits both and requests equal limits, Burstable otherwise.
 */
import { type Quantity, addQuantities, compareQuantities, parseQuantity, zeroQuantity } from '../../../api/quantity.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const COMPUTE = ['cpu', 'memory'];

function positive(text: unknown): Quantity | undefined {
  if (typeof text !== 'string') return undefined;
  const q = parseQuantity(text);
  return compareQuantities(q, zeroQuantity()) > 0 ? q : undefined;
}

/** Upstream ComputePodQOS over regular and init containers (ephemeral ones carry no resources). */
export function computePodQOS(spec: any): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  for (const c of [...arr(spec?.containers), ...arr(spec?.initContainers)]) {
    for (const [name, text] of Object.entries(c?.resources?.requests ?? {})) {
      const q = COMPUTE.includes(name) ? positive(text) : undefined;
      if (q) requests.set(name, requests.has(name) ? addQuantities(q, requests.get(name)!) : q);
    }
    const found = new Set<string>();
    for (const [name, text] of Object.entries(c?.resources?.limits ?? {})) {
      const q = COMPUTE.includes(name) ? positive(text) : undefined;
      if (!q) continue;
      found.add(name);
      limits.set(name, limits.has(name) ? addQuantities(q, limits.get(name)!) : q);
    }
    if (!COMPUTE.every((n) => found.has(n))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, request] of requests) {
      const limit = limits.get(name);
      if (!limit || compareQuantities(limit, request) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** Upstream GetPodQOS: the class recorded in status, else the computed one. */
export function podQOS(pod: any): string {
  return typeof pod?.status?.qosClass === 'string' && pod.status.qosClass ? pod.status.qosClass : computePodQOS(pod?.spec);
}
