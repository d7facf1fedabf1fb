// The table of calls in flight (src/util/in-flight-table.ts): lookups by id,
// ids only ever increasing, and storage that stays proportional to the
// entries in flight even behind one that never finishes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InFlightTable } from '../src/util/in-flight-table.ts';

test('entries are found by id until deleted, in any order, and ids must increase', () => {
  const table = new InFlightTable<string>();
  for (const id of [1, 3, 5, 7, 9]) table.set(id, `call ${id}`);
  assert.equal(table.size, 5);
  assert.equal(table.get(5), 'call 5');
  assert.equal(table.get(4), undefined);
  assert.equal(table.has(4), false);
  assert.equal(table.delete(5), true);
  assert.equal(table.delete(5), false);
  assert.equal(table.delete(1), true);
  assert.equal(table.get(5), undefined);
  assert.deepEqual(table.values(), ['call 3', 'call 7', 'call 9']);
  assert.equal(table.size, 3);
  assert.throws(() => table.set(9, 'again'), RangeError);
  assert.throws(() => table.set(8, 'lower'), RangeError);
  table.set(11, 'call 11');
  assert.equal(table.get(11), 'call 11');
  table.clear();
  assert.equal(table.size, 0);
  assert.equal(table.get(11), undefined);
  assert.throws(() => table.set(2, 'below the cleared ones'), RangeError);
  table.set(13, 'call 13');
  assert.deepEqual(table.values(), ['call 13']);
});

test('behind an entry that stays in flight, finished entries do not pile up', () => {
  const table = new InFlightTable<number>();
  table.set(0, 0); // never finishes
  let next = 1;
  for (let round = 0; round < 10_000; round++) {
    for (let i = 0; i < 5; i++) table.set(next, next++);
    for (let id = next - 5; id < next; id++) assert.equal(table.delete(id), true);
  }
  assert.equal(table.size, 1);
  assert.equal(table.get(0), 0);
  const stored = (table as unknown as { slots: unknown[] }).slots.length;
  assert.ok(stored <= 40, `${stored} slots held for one entry in flight`);
  // Still correct after all that sweeping.
  table.set(next, next);
  assert.deepEqual(table.values(), [0, next]);
  assert.equal(table.delete(0), true);
  assert.deepEqual(table.values(), [next]);
});
