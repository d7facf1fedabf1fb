/**
 * The generic Table cells (SPEC 2.5, 4.7; upstream kubernetes
 * pkg/printers/internalversion/printers.go 1.31 and its helpers): the
 * formatters any kind's printer column may name, each made from the column's
 * value alone (dataCount, ConfigMap's and Secret's, reads the two data maps),
 * and the cells of custom resources' columns by their type. A cell that knows
 * one kind's fields is that kind's (src/kinds/<group>/<kind>/cells.ts).
 * Codegen refers to these by name (`genericCells.age`) and refuses a kind's
 * cell of the same name.
 */
import type { Cell, TimedCell } from '../registry/printer-cells.ts';
import { formatLabelSelector } from '../registry/selectors/label-selector.ts';
import { customDate, customResourceCells } from './custom-resource-cells.ts';
import { ageAt, ageCell, timestampMs } from '../registry/table-time.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** len() of a list or map; anything else counts 0. */
function count(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (value && typeof value === 'object') return Object.keys(value).length;
  return 0;
}

/** labels.FormatLabels: `k=v` sorted by key and comma-joined, `<none>` when empty. */
function formatLabels(labels: unknown): string {
  if (!labels || typeof labels !== 'object') return '<none>';
  const keys = Object.keys(labels).sort();
  return keys.length ? keys.map((k) => `${k}=${(labels as Record<string, unknown>)[k]}`).join(',') : '<none>';
}

/** Cells that are the same at any request time: encoded once per object version. */
export const genericCells = {
  count,
  // printConfigMap / printSecret: the entries of data and binaryData
  dataCount: (_value, obj) => count(obj.data) + count(obj.binaryData),
  labelSelector: (value) => formatLabelSelector(value as any),
  trimSpace: (value) => (typeof value === 'string' ? value.trim() : value ?? ''),
  // int64 fields of a status: an absent count is 0
  integer: (value) => int(value),
  labels: (value) => formatLabels(value),
  // layoutContainerCells: a pod template's container names and images, comma-joined
  containerNames: (value) => arr(value).map((c) => c?.name ?? '').join(','),
  containerImages: (value) => arr(value).map((c) => c?.image ?? '').join(','),
  // printBoolPtr
  boolPtr: (value) => (typeof value === 'boolean' ? (value ? 'True' : 'False') : '<unset>'),
  // *bool fields printed with their Go default
  falseIfUnset: (value) => value === true,
  trueIfUnset: (value) => value !== false,
  joinedOrNone: (value) => (arr(value).length ? arr(value).join(',') : '<none>'),
  // A pointer field: `<unset>` when absent.
  unsetIfAbsent: (value) => (value === undefined || value === null ? '<unset>' : String(value)),
  noneIfUnset: (value) => (typeof value === 'string' ? value : '<none>'),
  noneIfEmpty: (value) => (typeof value === 'string' && value !== '' ? value : '<none>'),
  unknownIfEmpty: (value) => (typeof value === 'string' && value !== '' ? value : '<unknown>'),
  // IntOrString.String(), `N/A` when unset
  intOrStringOrNA: (value) => (typeof value === 'number' || typeof value === 'string' ? String(value) : 'N/A'),
  ...customResourceCells,
} satisfies Record<string, Cell>;

/** Cells that are an age at the request time (HumanDuration, FACTS 5). */
export const genericTimedCells = {
  age: ageCell((value) => value),
  // printCronJob's Last Schedule: `<none>` before the first schedule
  ageOrNone: { prepare: (value) => timestampMs(value), render: (ms, now) => (ms === undefined ? '<none>' : ageAt(ms as number, now)) },
  crdDate: customDate,
} satisfies Record<string, TimedCell>;

/** A generic cell by its name: a custom resource's columns name theirs at run time (registry/custom-resources/printer-columns.ts). */
export function genericCellNamed(name: string): Cell | undefined {
  return Object.hasOwn(genericCells, name) ? (genericCells as Record<string, Cell>)[name] : undefined;
}

/** A generic timed cell by its name. */
export function genericTimedCellNamed(name: string): TimedCell | undefined {
  return Object.hasOwn(genericTimedCells, name) ? (genericTimedCells as Record<string, TimedCell>)[name] : undefined;
}
