/**
 * The cells of a kind's Table rows (SPEC 2.5, 4.7; upstream
 * pkg/printers/internalversion printers.go, one print function per kind). A
 * printer column of the contract names its cell by
 * `x-orch-resource.printerColumns[].formatter`: a generic cell of the Table
 * handlers (src/handlers/table-cells.ts) or one of the kind's own
 * (src/kinds/<group>/<kind>/cells.ts). Codegen resolves the name to the
 * function it names and fails on a name that names none.
 */

/**
 * A cell that is the same at any request time, from the value at the column's
 * path and the whole object: a row is encoded once per object version.
 */
export type Cell<T = any> = (value: unknown, obj: T) => unknown;

/**
 * A cell that depends on the request time (upstream's HumanDuration of now −
 * a timestamp). A row is encoded once per object version, so such a cell is
 * split in two: `prepare` reads the object when the row is made and keeps only
 * what the cell needs (a timestamp in ms), `render` makes the cell from that
 * at each request's time.
 */
export interface TimedCell<T = any> {
  prepare(value: unknown, obj: T): unknown;
  render(prepared: unknown, now: number): unknown;
}
