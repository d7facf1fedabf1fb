/**
 * What one kind needs beyond its contract (ARCHITECTURE, module map and
 * "Adding a kind"): the hooks of its writes, the cells of its printer
 * columns, the row conditions of its printer and its conversions between
 * served versions.
 * Each src/kinds/<group>/<kind>/index.ts default-exports one, made by
 * defineKind; codegen imports it into the generated kind table as the kind's
 * `hooks` (KindDefinition.hooks), so nothing below src/kinds finds a kind's
 * code by its name and a name that does not exist fails the build.
 */
import type { KindConversion } from './kind-conversion.ts';
import type { Cell, TimedCell } from './printer-cells.ts';
import type { Strategy } from './strategy.ts';

/** `T`: the kind's object as its generated type, where the folder states it (src/generated/types). */
export interface KindHooks<T extends object = any> {
  /** The hooks of its writes; without them a kind gets schema decoding and ObjectMeta validation only. */
  strategy?: Strategy<T>;
  /** Its own cells, by the formatter names of its printer columns; a generic cell's name is never reused. */
  cells?: Readonly<Record<string, Cell<T>>>;
  /** Its own cells that depend on the request time (ages), named in the same way. */
  timedCells?: Readonly<Record<string, TimedCell<T>>>;
  /** The conditions of a row (TableRow.conditions), as upstream's printPod marks a finished pod's. */
  rowConditions?(obj: T): unknown[] | undefined;
  /**
   * Its conversions between served versions, through its internal form: a
   * version the contract stores at another (`storageVersion`) converts through
   * them (builtin-conversion.ts).
   */
  conversion?: KindConversion;
}

/**
 * A kind's definition: the hooks as given, their type kept whole (codegen
 * refers to `definition.cells.<name>`, so a cell that is not there fails the
 * typecheck too), and a key KindHooks does not know refused.
 */
export function defineKind<H extends KindHooks>(hooks: H & Record<Exclude<keyof H, keyof KindHooks>, never>): H {
  return hooks;
}
