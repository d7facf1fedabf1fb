/**
 * Values kept under increasing integer ids while their operations are in
 * flight, such as calls whose answers arrive by id.
 *
 * Not a Map: V8 replaces a Map's table as entries come and go, the replaced
 * table keeps its entries and a link to its successor, and a table that was
 * old when replaced gets an old successor. Once one had been promoted, the
 * young generation's collections took every later table, and whatever their
 * entries held (a call's resolve, so the whole waiting request), as live:
 * every request in flight across a collection was copied into the old
 * generation. Here the entries sit in two arrays in id order: finished ones at
 * the front are dropped at once, and the holes behind an entry still in flight
 * are swept out once they outnumber the live entries.
 */
export class InFlightTable<V extends NonNullable<unknown>> {
  private ids: number[] = [];
  private slots: Array<V | undefined> = [];
  private live = 0;
  private lastId = -Infinity;

  get size(): number {
    return this.live;
  }

  /** Adds `value` under `id`, which must be above every id added before. */
  set(id: number, value: V): void {
    if (!(id > this.lastId)) throw new RangeError(`in-flight id ${id} is not above the last one, ${this.lastId}`);
    this.lastId = id;
    this.ids.push(id);
    this.slots.push(value);
    this.live++;
  }

  get(id: number): V | undefined {
    const at = this.indexOf(id);
    return at < 0 ? undefined : this.slots[at];
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  delete(id: number): boolean {
    const at = this.indexOf(id);
    if (at < 0 || this.slots[at] === undefined) return false;
    this.slots[at] = undefined;
    this.live--;
    this.sweep();
    return true;
  }

  /** Drops every entry; later ids still have to be above those dropped. */
  clear(): void {
    this.ids = [];
    this.slots = [];
    this.live = 0;
  }

  /** The values in flight, in id order (a copy: deleting while walking it is safe). */
  values(): V[] {
    return this.slots.filter((value): value is V => value !== undefined);
  }

  private indexOf(id: number): number {
    const { ids } = this;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = ids[mid];
      if (at === id) return mid;
      if (at < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private sweep(): void {
    const { slots } = this;
    if (this.live === 0) {
      this.ids = [];
      this.slots = [];
      return;
    }
    let finished = 0;
    while (slots[finished] === undefined) finished++;
    if (finished > 0) {
      this.ids.splice(0, finished);
      slots.splice(0, finished);
    }
    const holes = slots.length - this.live;
    if (holes > 32 && holes > this.live) {
      const ids: number[] = [];
      const kept: V[] = [];
      slots.forEach((value, i) => {
        if (value === undefined) return;
        ids.push(this.ids[i]);
        kept.push(value);
      });
      this.ids = ids;
      this.slots = kept;
    }
  }
}
