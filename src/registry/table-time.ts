/**
 * What the cells of a Table that depend on the request time are made of (SPEC
 * 4.7; FACTS 5): upstream's HumanDuration of now − a timestamp, and the age
 * cell built from it (a TimedCell, printer-cells.ts). The generic cells
 * (handlers/table-cells.ts) and the kinds' own (src/kinds) are built of them.
 */
import type { TimedCell } from './printer-cells.ts';

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

/** A timestamp as ms since the epoch (NaN when unparsable, as Date.parse), undefined when it is not a string. */
export function timestampMs(timestamp: unknown): number | undefined {
  return typeof timestamp === 'string' ? Date.parse(timestamp) : undefined;
}

/** The Age of a timestamp prepared by `timestampMs`: `<unknown>` without one. */
export function ageAt(ms: number | undefined, now: number): string {
  return ms === undefined ? '<unknown>' : humanDuration(now - ms);
}

/** An age column of the timestamp `pick` finds in the object. */
export function ageCell(pick: (value: unknown, obj: any) => unknown): TimedCell {
  return { prepare: (value, obj) => timestampMs(pick(value, obj)), render: (ms, now) => ageAt(ms as number | undefined, now) };
}
