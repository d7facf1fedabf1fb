/**
 * Table representation (SPEC 2.5, 4.7; FACTS 5): columns from the contract's
 * printer columns, or the default Name / Created At pair.
 */
import * as errors from '../api/status-error.ts';
import { METADATA_DESCRIPTIONS, NAME_COLUMN, type KindDefinition, type PrinterColumnDefinition } from '../registry/kind.ts';
import type { ResourceRequest } from './context.ts';
import pod from '../kinds/core/pod/index.ts';
import node from '../kinds/core/node/index.ts';
import deployment from '../kinds/apps/deployment/index.ts';
import controllerRevision from '../kinds/apps/controller-revision/index.ts';
import job from '../kinds/batch/job/index.ts';
import resourceQuota from '../kinds/core/resource-quota/index.ts';
import persistentVolume from '../kinds/core/persistent-volume/index.ts';
import persistentVolumeClaim from '../kinds/core/persistent-volume-claim/index.ts';
import endpoints from '../kinds/core/endpoints/index.ts';
import endpointSlice from '../kinds/discovery.orch.io/endpoint-slice/index.ts';
import storageClass from '../kinds/storage.orch.io/storage-class/index.ts';
import csiDriver from '../kinds/storage.orch.io/csi-driver/index.ts';
import ingress from '../kinds/networking.orch.io/ingress/index.ts';
import ingressClass from '../kinds/networking.orch.io/ingress-class/index.ts';
import flowSchema from '../kinds/flowcontrol.orch.io/flow-schema/index.ts';
import priorityLevelConfiguration from '../kinds/flowcontrol.orch.io/priority-level-configuration/index.ts';
import horizontalPodAutoscaler from '../kinds/autoscaling/horizontal-pod-autoscaler/index.ts';
import type { TimedCell } from '../registry/printer-cells.ts';
import { genericCells, genericTimedCells } from './table-cells.ts';
import coreEvent from '../kinds/core/event/index.ts';
import roleBinding from '../kinds/rbac.authorization.orch.io/role-binding/index.ts';
import { findResults, JsonPathError } from '../util/jsonpath.ts';

const DEFAULT_COLUMNS: PrinterColumnDefinition[] = [
  NAME_COLUMN,
  { name: 'Created At', type: 'date', format: '', description: METADATA_DESCRIPTIONS.creationTimestamp, priority: 0, path: ['metadata', 'creationTimestamp'] },
];

type Formatter = (value: unknown, obj: any) => unknown;

/** Formatters whose cell is the same at any request time: encoded once per object version. */
const FORMATTERS: Record<string, Formatter> = {
  ...genericCells,
  ...coreEvent.cells,
  ...pod.cells,
  ...node.cells,
  ...deployment.cells,
  ...controllerRevision.cells,
  ...job.cells,
  ...resourceQuota.cells,
  ...persistentVolume.cells,
  ...persistentVolumeClaim.cells,
  ...endpoints.cells,
  ...endpointSlice.cells,
  ...storageClass.cells,
  ...csiDriver.cells,
  ...ingress.cells,
  ...ingressClass.cells,
  ...flowSchema.cells,
  ...priorityLevelConfiguration.cells,
  ...horizontalPodAutoscaler.cells,
  ...roleBinding.cells,
};

/** Formatters whose cell is an age at the request time (HumanDuration, FACTS 5). */
const TIMED_FORMATTERS: Record<string, TimedCell> = {
  ...genericTimedCells,
  ...coreEvent.timedCells,
  ...pod.timedCells,
  ...job.timedCells,
};

/** Row conditions (TableRow.conditions) a kind's printer sets, by `group/Kind`. */
const ROW_CONDITIONS: Record<string, (obj: any) => unknown[] | undefined> = {
  '/Pod': pod.rowConditions,
};

/** The kind's printer columns (SPEC 4.7), or the default Name / Created At pair. */
export function tableColumns(kind: Pick<KindDefinition, 'printerColumns'>): readonly PrinterColumnDefinition[] {
  return kind.printerColumns.length ? kind.printerColumns : DEFAULT_COLUMNS;
}

/** The row conditions of the kind's printer, if it sets any. */
export function rowConditionsOf(kind: Pick<KindDefinition, 'group' | 'kind'>): ((obj: any) => unknown[] | undefined) | undefined {
  return ROW_CONDITIONS[`${kind.group}/${kind.kind}`];
}

/** The column's formatter when its cell depends on the request time. */
export function timedFormatterOf(column: PrinterColumnDefinition): TimedCell | undefined {
  return column.formatter ? TIMED_FORMATTERS[column.formatter] : undefined;
}

/**
 * The value at the column's path; for a JSONPath column, the first value it
 * finds, or undefined when it finds none or fails (upstream tableconvertor).
 */
export function columnValue(column: PrinterColumnDefinition, obj: any): unknown {
  if (column.compiledJsonPath) {
    try {
      return findResults(column.compiledJsonPath, obj)[0]?.[0];
    } catch (err) {
      if (err instanceof JsonPathError) return undefined;
      throw err;
    }
  }
  let value: any = obj;
  for (const segment of column.path) value = value?.[segment];
  return value;
}

/** A cell that is the same at any request time (the column is not timed). */
export function fixedCell(column: PrinterColumnDefinition, obj: any): unknown {
  const value: any = columnValue(column, obj);
  if (column.formatter) {
    const format = FORMATTERS[column.formatter];
    if (!format) throw errors.internalError(`unknown printer column formatter ${column.formatter}`);
    return format(value, obj);
  }
  if (column.type === 'date' && typeof value === 'string') return value;
  return value ?? (column.type === 'string' ? '' : null);
}

function cell(column: PrinterColumnDefinition, obj: any, now: number): unknown {
  const timed = timedFormatterOf(column);
  return timed ? timed.render(timed.prepare(columnValue(column, obj), obj), now) : fixedCell(column, obj);
}

/** The column definitions of a Table (TableColumnDefinition: the printer column without its path and formatter). */
export function columnDefinitions(columns: readonly PrinterColumnDefinition[]): unknown[] {
  return columns.map(({ name, type, format, description, priority }) => ({ name, type, format, description, priority }));
}

export type IncludeObject = 'Metadata' | 'Object' | 'None';

/** `includeObject` (FACTS 5): Metadata unless asked; anything else is a 400. */
export function includeObjectOf(ctx: ResourceRequest): IncludeObject {
  const includeObject = ctx.query.get('includeObject') || 'Metadata';
  if (includeObject !== 'Metadata' && includeObject !== 'Object' && includeObject !== 'None') {
    throw errors.badRequest(`unrecognized includeObject value: ${JSON.stringify(includeObject)}`);
  }
  return includeObject;
}

/**
 * Builds the Table for parsed objects of one kind, honouring `includeObject`
 * (FACTS 5): the object form, for pretty output. Compact JSON is written from
 * rows encoded once per object version (table-rows.ts), with the same bytes.
 */
export function toTable(
  kind: Pick<KindDefinition, 'printerColumns' | 'group' | 'kind'>,
  objects: any[],
  listMetadata: Record<string, unknown>,
  includeObject: IncludeObject,
  tableApiVersion: string,
  now: number,
  /** What the cells read, when not the objects themselves (KindDefinition.printsStoredForm). */
  printed: readonly any[] = objects,
): unknown {
  const columns = tableColumns(kind);
  const rowConditions = rowConditionsOf(kind);
  return {
    kind: 'Table',
    apiVersion: tableApiVersion,
    metadata: listMetadata,
    columnDefinitions: columnDefinitions(columns),
    rows: objects.map((obj, i) => {
      const row: Record<string, unknown> = { cells: columns.map((c) => cell(c, printed[i], now)) };
      const conditions = rowConditions?.(printed[i]);
      if (conditions) row.conditions = conditions;
      if (includeObject === 'Object') row.object = obj;
      else if (includeObject === 'Metadata') row.object = { kind: 'PartialObjectMetadata', apiVersion: tableApiVersion, metadata: obj.metadata };
      return row;
    }),
  };
}
