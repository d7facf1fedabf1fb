// Resource quantities as upstream apimachinery pkg/api/resource parses, rounds, compares and prints them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ERR_FORMAT,
  ERR_NUMERIC,
  ERR_SUFFIX,
  addQuantities,
  compareQuantities,
  formatQuantity,
  isIntegerQuantity,
  parseQuantity,
  quantityFromJson,
  roundUpQuantity,
} from '../src/api/quantity.ts';
import { imageTag } from '../src/registry/validation/image-reference.ts';

const canonical = (text: string) => formatQuantity(parseQuantity(text));
const milli = (text: string) => formatQuantity(roundUpQuantity(parseQuantity(text), -3));

describe('quantity', () => {
  test('canonical form: the largest suffix that loses nothing; canonically written texts are kept', () => {
    const cases: Array<[string, string]> = [
      ['0', '0'], ['1.5', '1500m'], ['0.1', '100m'], ['.5', '500m'], ['100m', '100m'], ['2000', '2k'], ['1000k', '1M'], ['10k', '10k'],
      ['0.5Gi', '512Mi'], ['1.5Gi', '1536Mi'], ['1024Mi', '1Gi'], ['1Ki', '1Ki'], ['0.3Ki', '307200m'], ['500Mi', '500Mi'],
      ['128974848', '128974848'], ['129e6', '129e6'], ['1e3', '1e3'], ['1E3', '1E3'], ['5e-3', '5e-3'], ['1e-12', '1e-9'],
      ['-1.5Gi', '-1536Mi'], ['+5', '+5'], ['1.500', '1.500'], ['12345678901234567890', '12345678901234567890'],
      ['16Ei', '9223372036854775807'], ['0Ki', '0'], ['1000E', '1'], ['+', '0'], ['.', '0'], ['e3', '0'],
    ];
    for (const [text, want] of cases) assert.equal(canonical(text), want, text);
  });

  test('resource lists round up to milli units, away from zero', () => {
    assert.equal(milli('1n'), '1m');
    assert.equal(milli('1.0001'), '1001m');
    assert.equal(milli('-1n'), '-1m');
    assert.equal(milli('1e-12'), '1e-3');
    assert.equal(milli('100m'), '100m');
    assert.equal(milli('+5'), '+5');
  });

  test('upstream error texts', () => {
    const message = (text: string) => {
      try {
        parseQuantity(text);
      } catch (e) {
        return (e as Error).message;
      }
      return 'parsed';
    };
    for (const text of ['', 'abc', '1x', '1KiB', '1.2.3', ' 1', '1Kb']) assert.equal(message(text), ERR_FORMAT, text);
    for (const text of ['--1', '1e', '1MM', '1Ki5', '1e99999999999999999999']) assert.equal(message(text), ERR_SUFFIX, text);
    assert.equal(ERR_NUMERIC, 'unable to parse numeric part of quantity');
    assert.equal(ERR_FORMAT, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  });

  test('JSON values: null is zero, numbers are read from their text, strings are trimmed', () => {
    assert.equal(formatQuantity(quantityFromJson(null)), '0');
    assert.equal(formatQuantity(quantityFromJson(0.25)), '250m');
    assert.equal(formatQuantity(quantityFromJson(' 2 ')), '2');
    assert.throws(() => quantityFromJson(true), { message: ERR_FORMAT });
  });

  test('comparison, sums and the integer check', () => {
    assert.equal(compareQuantities(parseQuantity('1'), parseQuantity('1000m')), 0);
    assert.equal(compareQuantities(parseQuantity('2'), parseQuantity('1500m')), 1);
    assert.equal(compareQuantities(parseQuantity('-1'), parseQuantity('1m')), -1);
    assert.equal(compareQuantities(parseQuantity('1Gi'), parseQuantity('1G')), 1);
    assert.equal(compareQuantities(parseQuantity('1e999999999'), parseQuantity('1')), 1);
    assert.equal(formatQuantity(addQuantities(parseQuantity('500m'), parseQuantity('1.5'))), '2');
    assert.equal(isIntegerQuantity(parseQuantity('2')), true);
    assert.equal(isIntegerQuantity(parseQuantity('1.5')), false);
    // upstream checks MilliValue() % 1000, so a value that rounds up to a whole milli count passes
    assert.equal(isIntegerQuantity(parseQuantity('1.9999')), true);
  });

  test('megabytes of digits cost linear time', () => {
    const started = Date.now();
    const huge = parseQuantity(`${'9'.repeat(2_000_000)}.5`);
    formatQuantity(roundUpQuantity(huge, -3));
    compareQuantities(huge, parseQuantity('1'));
    formatQuantity(parseQuantity(`0.${'0'.repeat(2_000_000)}1Ki`));
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
  });
});

describe('image tags (imagePullPolicy default)', () => {
  test('as the kubelet parses references', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const cases: Array<[string, string]> = [
      ['nginx', 'latest'], ['nginx:1.25', '1.25'], ['library/nginx:latest', 'latest'], ['localhost:5000/app', 'latest'], ['localhost:5000/app:v1', 'v1'],
      [`nginx@${digest}`, ''], [`nginx:1.2@${digest}`, '1.2'], ['Nginx', ''], ['nginx:', ''], ['', ''], [`nginx@sha256:${'A'.repeat(64)}`, ''], ['a'.repeat(64), ''],
    ];
    for (const [image, tag] of cases) assert.equal(imageTag(image), tag, image);
  });
});
