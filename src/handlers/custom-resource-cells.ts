/**
 * The cells of custom resources' printer columns (SPEC 4.7; upstream
 * apiextensions-apiserver tableconvertor ConvertToTable and cellForJSONValue):
 * the first value the column's JSONPath finds, shown by the column's type. A
 * value of another type, or none, is a null cell; a string column prints any
 * value as Go's fmt does; a date column is the age of an RFC 3339 timestamp.
 */
import { goPrint } from '../util/go-print.ts';
import type { Cell, TimedCell } from '../registry/printer-cells.ts';
import { humanDuration } from '../registry/table-time.ts';

/** By the column type; `value` is undefined when the JSONPath found nothing (a JSON null is a value found). */
export const customResourceCells = {
  // int64(float64): a fraction is cut toward zero.
  crdInteger: (value) => (typeof value === 'number' ? Math.trunc(value) : null),
  crdNumber: (value) => (typeof value === 'number' ? value : null),
  crdBoolean: (value) => (typeof value === 'boolean' ? value : null),
  // jsonpath PrintResults of the one value: text/template's printableValue makes a nil `<no value>`.
  crdString: (value) => (value === undefined ? null : value === null ? '<no value>' : goPrint(value)),
  // A type validation would have refused: cellForJSONValue shows nothing for it.
  crdOtherType: () => null,
} satisfies Record<string, Cell>;

/** Go's time.Parse(time.RFC3339, ...): a full date, a time with optional fraction, and Z or an offset. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  return Date.parse(text.toUpperCase());
}

/**
 * A date column (metav1.Time UnmarshalQueryParameter, ConvertToHumanReadableDateType):
 * '' or "null" is the zero time, `<unknown>`; an unparsable string `<invalid>`;
 * anything but a string a null cell. The row keeps the timestamp, or the fixed cell.
 */
export const customDate: TimedCell = {
  prepare: (value) => {
    if (typeof value !== 'string') return null;
    if (value === '' || value === 'null') return '<unknown>';
    return parseRfc3339(value) ?? '<invalid>';
  },
  render: (prepared, now) => (typeof prepared === 'number' ? humanDuration(now - prepared) : prepared),
};
