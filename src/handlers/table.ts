/**
 * Table representation (SPEC 2.5, 4.7; FACTS 5): columns from the contract's
 * printer columns, or the default Name / Created At pair.
 */
import * as errors from '../api/status-error.ts';
import type { KindDefinition, PrinterColumnDefinition } from '../registry/kind.ts';
import { formatLabelSelector } from '../registry/selectors/label-selector.ts';
import type { ResourceRequest } from './context.ts';
import { podFormatters, podRowConditions } from './pod-printer.ts';
import { nodeFormatters } from './node-printer.ts';

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATED_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const DEFAULT_COLUMNS: PrinterColumnDefinition[] = [
  { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0, path: ['metadata', 'name'] },
  { name: 'Created At', type: 'date', format: '', description: CREATED_DESCRIPTION, priority: 0, path: ['metadata', 'creationTimestamp'] },
];

/** FACTS 5: upstream's HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 192) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  const years = Math.floor(days / 365);
  if (years < 2) return `${days}d`;
  if (years < 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

function age(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string') return '<unknown>';
  return humanDuration(now - Date.parse(timestamp));
}

function count(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (value && typeof value === 'object') return Object.keys(value).length;
  return 0;
}

type Formatter = (value: unknown, obj: any, now: number) => unknown;

const FORMATTERS: Record<string, Formatter> = {
  age: (value, _obj, now) => age(value, now),
  count,
  dataCount: (_value, obj) => count(obj.data) + count(obj.binaryData),
  labelSelector: (value) => formatLabelSelector(value as any),
  trimSpace: (value) => (typeof value === 'string' ? value.trim() : value ?? ''),
  eventFirstSeen: (_v, obj, now) => age(obj.firstTimestamp ?? obj.eventTime, now),
  eventLastSeen: (_v, obj, now) => {
    const last = obj.series?.lastObservedTime ?? obj.lastTimestamp ?? obj.eventTime;
    return age(last, now);
  },
  eventCount: (_v, obj) => obj.series?.count ?? obj.count ?? 1,
  eventObject: (_v, obj) => `${(obj.involvedObject?.kind ?? '').toLowerCase()}/${obj.involvedObject?.name ?? ''}`,
  eventSource: (_v, obj) => {
    const component = obj.source?.component || obj.reportingComponent || '';
    const host = obj.source?.host || obj.reportingInstance || '';
    return host ? `${component}, ${host}` : component;
  },
  ...podFormatters(age),
  ...nodeFormatters,
  // K printers.go printRoleBinding: `Kind/name`, and the subjects of each kind joined by ", ".
  roleRef: (value: any) => `${value?.kind ?? ''}/${value?.name ?? ''}`,
  subjectUsers: (value) => subjectsOf(value, 'User'),
  subjectGroups: (value) => subjectsOf(value, 'Group'),
  subjectServiceAccounts: (value) => subjectsOf(value, 'ServiceAccount'),
};

function subjectsOf(subjects: unknown, kind: string): string {
  if (!Array.isArray(subjects)) return '';
  return subjects
    .filter((s) => s?.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name ?? ''}` : String(s.name ?? '')))
    .join(', ');
}

/** Row conditions (TableRow.conditions) a kind's printer sets, by `group/Kind`. */
const ROW_CONDITIONS: Record<string, (obj: any) => unknown[] | undefined> = {
  '/Pod': podRowConditions,
};

function cell(column: PrinterColumnDefinition, obj: any, now: number): unknown {
  let value: any = obj;
  for (const segment of column.path) value = value?.[segment];
  if (column.formatter) {
    const format = FORMATTERS[column.formatter];
    if (!format) throw errors.internalError(`unknown printer column formatter ${column.formatter}`);
    return format(value, obj, now);
  }
  if (column.type === 'date' && typeof value === 'string') return value;
  return value ?? (column.type === 'string' ? '' : null);
}

/** Builds the Table for objects of one kind, honouring `includeObject` (FACTS 5). */
export function toTable(kind: KindDefinition, objects: any[], listMetadata: Record<string, unknown>, ctx: ResourceRequest): unknown {
  const includeObject = ctx.query.get('includeObject') || 'Metadata';
  if (!['Metadata', 'Object', 'None'].includes(includeObject)) throw errors.badRequest(`unrecognized includeObject value: ${JSON.stringify(includeObject)}`);
  const tableVersion = ctx.table?.version ?? 'v1';
  const columns = kind.printerColumns.length ? kind.printerColumns : DEFAULT_COLUMNS;
  const now = Date.now();
  const rowConditions = ROW_CONDITIONS[`${kind.group}/${kind.kind}`];
  return {
    kind: 'Table',
    apiVersion: `meta.orch.io/${tableVersion}`,
    metadata: listMetadata,
    columnDefinitions: columns.map(({ name, type, format, description, priority }) => ({ name, type, format, description, priority })),
    rows: objects.map((obj) => {
      const row: Record<string, unknown> = { cells: columns.map((c) => cell(c, obj, now)) };
      const conditions = rowConditions?.(obj);
      if (conditions) row.conditions = conditions;
      if (includeObject === 'Object') row.object = obj;
      else if (includeObject === 'Metadata') row.object = { kind: 'PartialObjectMetadata', apiVersion: `meta.orch.io/${tableVersion}`, metadata: obj.metadata };
      return row;
    }),
  };
}
