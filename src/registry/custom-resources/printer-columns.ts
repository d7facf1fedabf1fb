/**
 * The Table columns of a custom resource version (SPEC 2.5, 4.7; upstream
 * apiextensions-apiserver pkg/registry/customresource/tableconvertor New and
 * apihelpers GetColumnsForVersion): the implicit Name, then the version's
 * additionalPrinterColumns, or Age when it declares none. A column whose
 * JSONPath does not parse ends the list there, as upstream keeps the columns
 * it made before the error ("falling back to default printing").
 */
import { JsonPathError, parseJsonPath } from '../../util/jsonpath.ts';
import { METADATA_DESCRIPTIONS, NAME_COLUMN, type PrinterColumnDefinition } from '../kind.ts';

/** Upstream serveDefaultColumnsIfEmpty: a version without columns shows its age. */
const DEFAULT_COLUMNS = [{ name: 'Age', type: 'date', description: METADATA_DESCRIPTIONS.creationTimestamp, jsonPath: '.metadata.creationTimestamp' }];

/** The Table formatter (handlers/table.ts) of each column type, as upstream's cellForJSONValue tells them apart. */
const FORMATTER_BY_TYPE: Record<string, string> = {
  integer: 'crdInteger',
  number: 'crdNumber',
  boolean: 'crdBoolean',
  string: 'crdString',
  date: 'crdDate',
};

/** The columns of one version from its `additionalPrinterColumns` (CustomResourceColumnDefinition). */
export function customPrinterColumns(additionalPrinterColumns: unknown): PrinterColumnDefinition[] {
  const declared = Array.isArray(additionalPrinterColumns) && additionalPrinterColumns.length ? additionalPrinterColumns : DEFAULT_COLUMNS;
  const columns: PrinterColumnDefinition[] = [NAME_COLUMN];
  for (const column of declared) {
    const jsonPathText = String(column?.jsonPath ?? '');
    let jsonPath;
    try {
      jsonPath = parseJsonPath(`{${jsonPathText}}`);
    } catch (err) {
      if (err instanceof JsonPathError) break;
      throw err;
    }
    columns.push({
      name: String(column.name ?? ''),
      type: String(column.type ?? ''),
      format: String(column.format ?? ''),
      description: column.description ? String(column.description) : `Custom resource definition column (in JSONPath format): ${jsonPathText}`,
      priority: Number(column.priority ?? 0),
      path: [],
      formatter: FORMATTER_BY_TYPE[column.type] ?? 'crdOtherType',
      compiledJsonPath: jsonPath,
    });
  }
  return columns;
}
