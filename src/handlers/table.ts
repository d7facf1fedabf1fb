/**
 * Table representation (SPEC 2.5, 4.7; FACTS 5): columns from the contract's
 * printer columns, or the default Name / Created At pair.
 */
import * as errors from '../api/status-error.ts';
import { METADATA_DESCRIPTIONS, NAME_COLUMN, type KindDefinition, type PrinterColumnDefinition } from '../registry/kind.ts';
import type { TimedCell } from '../registry/printer-cells.ts';
import type { ResourceRequest } from './context.ts';
import { genericCellNamed, genericTimedCellNamed } from './table-cells.ts';
import { findResults, JsonPathError } from '../util/jsonpath.ts';

const DEFAULT_COLUMNS: PrinterColumnDefinition[] = [
  NAME_COLUMN,
  { name: 'Created At', type: 'date', format: '', description: METADATA_DESCRIPTIONS.creationTimestamp, priority: 0, path: ['metadata', 'creationTimestamp'] },
];

/** The kind's printer columns (SPEC 4.7), or the default Name / Created At pair. */
export function tableColumns(kind: Pick<KindDefinition, 'printerColumns'>): readonly PrinterColumnDefinition[] {
  return kind.printerColumns.length ? kind.printerColumns : DEFAULT_COLUMNS;
}

/** The row conditions of the kind's printer, if it sets any. */
export function rowConditionsOf(kind: Pick<KindDefinition, 'hooks'>): ((obj: any) => unknown[] | undefined) | undefined {
  return kind.hooks?.rowConditions;
}

/**
 * The column's cell when it depends on the request time: the one codegen
 * resolved, or (a custom resource's column) the generic one of that name.
 */
export function timedCellOf(column: PrinterColumnDefinition): TimedCell | undefined {
  if (column.timedCell) return column.timedCell;
  return column.formatter === undefined || column.cell ? undefined : genericTimedCellNamed(column.formatter);
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
    const format = column.cell ?? genericCellNamed(column.formatter);
    if (!format) throw errors.internalError(`unknown printer column formatter ${column.formatter}`);
    return format(value, obj);
  }
  if (column.type === 'date' && typeof value === 'string') return value;
  return value ?? (column.type === 'string' ? '' : null);
}

function cell(column: PrinterColumnDefinition, obj: any, now: number): unknown {
  const timed = timedCellOf(column);
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
  kind: Pick<KindDefinition, 'printerColumns' | 'hooks'>,
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
