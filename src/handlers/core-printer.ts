/**
 * The Table cells of the core/v1 kinds of SPEC 9.7 that need code (SPEC 2.5,
 * 4.7; translated from upstream kubernetes pkg/printers/internalversion/printers.go
 * 1.31: printResourceQuota, printPersistentVolume, printPersistentVolumeClaim,
 * formatEndpoints, and pkg/apis/core/helper GetAccessModesAsString,
 * GetPersistentVolumeClass). ReplicationController and PodTemplate cells are
 * the workload printer's (integer, labels, container names and images).
 */
import { formatQuantity, quantityFromJson } from '../registry/validation/quantity.ts';
import { BETA_STORAGE_CLASS } from '../registry/validation/storage-volumes.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

type Formatter = (value: unknown, obj: any) => unknown;


/** resource.Quantity String(): the canonical form; an absent entry is the zero Quantity, "0". */
function quantityText(value: unknown): string {
  if (value === undefined || value === null) return '0';
  try {
    return formatQuantity(quantityFromJson(value));
  } catch {
    return String(value);
  }
}

/** GetAccessModesAsString: each mode once, in the order RWO, ROX, RWX, RWOP, comma-joined. */
function accessModes(modes: unknown): string {
  const present = new Set(arr(modes));
  return [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ]
    .filter(([mode]) => present.has(mode))
    .map(([, short]) => short)
    .join(',');
}

/**
 * printResourceQuota's Request or Limit cell: `name: used/hard` for each hard
 * resource in name order, the `limits.*` ones in the Limit cell, the rest in
 * the Request cell.
 */
function quotaCell(status: unknown, limits: boolean): string {
  const hard = isObj(status) && isObj(status.hard) ? status.hard : {};
  const used = isObj(status) && isObj(status.used) ? status.used : {};
  return Object.keys(hard)
    .sort()
    .filter((name) => {
      const pieces = name.split('.');
      return (pieces.length > 1 && pieces[0] === 'limits') === limits;
    })
    .map((name) => `${name}: ${quantityText(used[name])}/${quantityText(hard[name])}`)
    .join(', ');
}

/** net.JoinHostPort: an IPv6 address in brackets. */
const hostPort = (ip: string, port: unknown): string => `${ip.includes(':') ? `[${ip}]` : ip}:${port ?? 0}`;

/**
 * formatEndpoints with every port: the first three `ip:port` (or bare IPs of a
 * subset without ports), then ` + N more...`; `<none>` without subsets.
 */
function formatEndpoints(subsets: unknown): string {
  const list = arr(subsets);
  if (list.length === 0) return '<none>';
  const max = 3;
  const shown: string[] = [];
  let count = 0;
  let more = false;
  const add = (text: string): void => {
    if (shown.length === max) more = true;
    else shown.push(text);
  };
  for (const subset of list) {
    const addresses = arr(subset?.addresses);
    const ports = arr(subset?.ports);
    if (ports.length === 0) {
      count += addresses.length;
      for (const address of addresses) add(String(address?.ip ?? ''));
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const address of addresses) add(hostPort(String(address?.ip ?? ''), port?.port));
    }
  }
  const text = shown.join(',');
  if (more) return `${text} + ${count - max} more...`;
  return text || '<none>';
}

/** The core/v1 formatters of this module (all independent of the request time). */
export const coreFormatters: Record<string, Formatter> = {
  quotaRequests: (status) => quotaCell(status, false),
  quotaLimits: (status) => quotaCell(status, true),
  // printPersistentVolume's Capacity: the storage entry of spec.capacity
  storageQuantity: (capacity) => quantityText(isObj(capacity) ? capacity.storage : undefined),
  accessModes: (modes) => accessModes(modes),
  // a volume or claim being deleted prints Terminating
  volumePhase: (phase, obj) => (obj.metadata?.deletionTimestamp ? 'Terminating' : (phase ?? '')),
  claimRef: (ref) => (isObj(ref) ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : ''),
  // GetPersistentVolumeClass / GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName
  storageClass: (className, obj) => obj.metadata?.annotations?.[BETA_STORAGE_CLASS] ?? className ?? '',
  // printPersistentVolumeClaim: capacity and access modes only once the claim names a volume
  boundCapacity: (capacity, obj) => (obj.spec?.volumeName ? quantityText(isObj(capacity) ? capacity.storage : undefined) : ''),
  boundAccessModes: (modes, obj) => (obj.spec?.volumeName ? accessModes(modes) : ''),
  endpoints: (subsets) => formatEndpoints(subsets),
};
