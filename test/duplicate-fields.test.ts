/**
 * Duplicate keys in JSON bodies (SPEC 4.9 field validation; duplicate-fields.ts):
 * the walk of the text, and the shortcut taken when the parsed value shows
 * there can be none. Both must answer alike.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findDuplicateFields } from '../src/handlers/duplicate-fields.ts';

/** Both ways: the text alone (always walked) and with its parsed value (the shortcut may apply). */
function duplicates(text: string): string[] {
  const walked = findDuplicateFields(text);
  assert.deepEqual(findDuplicateFields(text, JSON.parse(text)), walked, text);
  return walked;
}

test('a body without repeated keys has none, colons in its strings or not', () => {
  assert.deepEqual(duplicates('{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"ports":[{"port":80},{"port":81}]}}'), []);
  assert.deepEqual(duplicates('{"metadata":{"annotations":{"a":"b:c","t":"2026-01-01T00:00:00Z"}},"spec":{}}'), []);
  assert.deepEqual(duplicates(' { "a" : 1 , "b" : [ { "a" : 2 } , { "a" : 3 } ] } '), []);
  assert.deepEqual(duplicates('[]'), []);
  assert.deepEqual(duplicates('"x:y"'), []);
});

test('repeated keys are found with their paths, through arrays, escapes and colons in strings', () => {
  assert.deepEqual(duplicates('{"metadata":{"name":"a","name":"b"}}'), ['metadata.name']);
  assert.deepEqual(duplicates('{"spec":{"ingress":[{"ports":[]},{"from":[],"ports":[],"ports":[]}]}}'), ['spec.ingress[1].ports']);
  assert.deepEqual(duplicates('{"a":"x:y","a":"z"}'), ['a']);
  // Colons inside strings outnumber the keys, so the text is walked; the repeat is found there.
  assert.deepEqual(duplicates('{"k":"a:b","m":{"q":1,"q":2}}'), ['m.q']);
  assert.deepEqual(duplicates('{"e\\"s":1,"e\\"s":2,"v":"say \\"hi\\": {"}'), ['e"s']);
  assert.deepEqual(duplicates('{"a":{"b":1},"a":{"b":2,"b":3}}'), ['a', 'a.b']);
  assert.deepEqual(duplicates('{"\\u0061":1,"a":2}'), ['a']);
});

test('objects with many keys repeat keys past the first few as well', () => {
  const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`);
  assert.deepEqual(duplicates(`{${keys.join(',')}}`), []);
  assert.deepEqual(duplicates(`{"labels":{${[...keys, '"k3":0', '"k39":1'].join(',')}}}`), ['labels.k3', 'labels.k39']);
});

test('10,000 levels deep: the key count and a duplicate path are built without recursion', () => {
  const depth = 10_000;
  const plain = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  assert.deepEqual(duplicates(plain), []);
  const repeated = '{"a":'.repeat(depth) + '{"x":1,"x":2}' + '}'.repeat(depth);
  const [path] = duplicates(repeated);
  assert.equal(path, `${'a.'.repeat(depth)}x`);
});
