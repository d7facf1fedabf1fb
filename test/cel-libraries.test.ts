/**
 * Kubernetes 1.31's CEL libraries in every environment (SPEC 2.11, 8): lists,
 * regex, URLs, quantities, with upstream's results, error messages and
 * runtime costs; the standard macros and optional types through the
 * environment. Each function has a value that passes and one that fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CelCompileError, CelEnvironment, CelEvaluationError } from '../src/cel/environment.ts';
import { LIST_CREATE_BASE } from '../src/cel/cost.ts';

const env = new CelEnvironment({
  types: { 'test.Obj': { name: 'string', tags: 'list<string>', labels: 'map<string, string>' } },
  variables: { obj: 'test.Obj', ints: 'list<int>', strs: 'list<string>', doubles: 'list<double>', s: 'string', pattern: 'string', m: 'map<string, int>' },
});
const vars = {
  obj: { name: 'web', tags: ['a', 'b'], labels: { app: 'web' } },
  ints: [3n, 1n, 2n],
  strs: ['héllo', 'wörld', 'abc'],
  doubles: [1.5, Number.NaN, 0.5],
  s: 'abc 123 de 45',
  pattern: '(',
  m: { a: 1n, b: 2n },
};
const run = (expression: string, activation: Record<string, unknown> = vars) => env.compile(expression).evaluate(activation);
const value = (expression: string) => run(expression).value;
const cost = (expression: string) => run(expression).cost;
const evalError = (expression: string): string => {
  try {
    run(expression);
  } catch (err) {
    assert.ok(err instanceof CelEvaluationError, `${expression}: ${err}`);
    return err.message;
  }
  assert.fail(`${expression} evaluated`);
};
const compileError = (expression: string): string => {
  try {
    env.compile(expression);
  } catch (err) {
    assert.ok(err instanceof CelCompileError, `${expression}: ${err}`);
    return err.detail;
  }
  assert.fail(`${expression} compiled`);
};

test('lists: isSorted over the comparable types, code point order for strings', () => {
  assert.equal(value('[1, 2, 3].isSorted()'), true);
  assert.equal(value('["a", "b", "b", "c"].isSorted()'), true);
  assert.equal(value('[2.0, 1.0].isSorted()'), false);
  assert.equal(value('ints.isSorted()'), false);
  assert.equal(value('[].isSorted()'), true);
  assert.equal(value('[1u, 2u].isSorted() && [false, true].isSorted() && [b"a", b"ab"].isSorted()'), true);
  assert.equal(value('[duration("2s"), duration("1s")].isSorted()'), false);
  assert.equal(value('[timestamp("2020-01-01T00:00:00Z"), timestamp("2021-01-01T00:00:00Z")].isSorted()'), true);
  // U+FFFF sorts before U+1F600 in Go's byte order; UTF-16 units would say otherwise.
  assert.equal(value('["\\uffff", "😀"].isSorted()'), true);
  assert.equal(value('["😀", "\\uffff"].isSorted()'), false);
  assert.match(compileError('[[1]].isSorted()'), /found no matching overload for 'isSorted'/);
});

test('lists: sum of int, uint, double, duration; the empty sum is the zero of the type; overflow is an error', () => {
  assert.equal(value('[1, 3].sum()'), 4n);
  assert.equal(value('[1.0, 3.5].sum()'), 4.5);
  assert.equal(value('[1u, 2u].sum() == 3u'), true);
  assert.equal(value('[duration("1m"), duration("1s")].sum() == duration("61s")'), true);
  assert.equal(value('[].sum()'), 0n);
  assert.equal(run('ints.sum()', { ...vars, ints: [] }).value, 0n);
  assert.equal(value('ints.sum()'), 6n);
  assert.equal(evalError('[9223372036854775807, 1].sum()'), 'integer overflow');
  assert.equal(evalError('[18446744073709551615u, 1u].sum()'), 'unsigned integer overflow');
  assert.match(compileError('["a"].sum()'), /found no matching overload for 'sum'/);
});

test('lists: min and max; the empty list is an error with upstream message', () => {
  assert.equal(value('[1, 3].min()'), 1n);
  assert.equal(value('[1, 3].max()'), 3n);
  assert.equal(value('strs.max()'), 'wörld');
  assert.equal(value('strs.min()'), 'abc');
  assert.equal(value('[b"b", b"a"].min() == b"a"'), true);
  assert.equal(value('[duration("2s"), duration("1s")].max() == duration("2s")'), true);
  assert.equal(evalError('[].min()'), 'min called on empty list');
  assert.throws(() => run('ints.max()', { ...vars, ints: [] }), { message: 'max called on empty list' });
  // NaN compares as an error in cel-go, which min and isSorted pass over.
  assert.equal(value('doubles.min()'), 0.5);
  assert.equal(value('doubles.isSorted()'), true);
});

test('lists: indexOf and lastIndexOf with cel-go equality', () => {
  assert.equal(value('[1, 2, 2, 3].indexOf(2)'), 1n);
  assert.equal(value('[1, 2, 2, 3].lastIndexOf(2)'), 2n);
  assert.equal(value('["a", "b", "b", "c"].lastIndexOf("b")'), 2n);
  assert.equal(value('[1.0].indexOf(1.1)'), -1n);
  assert.equal(value('[].indexOf("string")'), -1n);
  assert.equal(value('[[1], [2]].indexOf([2])'), 1n);
  assert.equal(value('obj.tags.indexOf("b")'), 1n);
  assert.equal(value('[quantity("1k"), quantity("1")].indexOf(quantity("1000m"))'), 1n);
  assert.match(compileError('[1, 2].indexOf("a")'), /found no matching overload for 'indexOf'/);
  // The string functions of the same name are unaffected.
  assert.equal(value('"abcb".lastIndexOf("b")'), 3n);
});

test("lists: costs are one traversal of the list (cost.go's traversalCost)", () => {
  // The variable 1, then 1 per non-string element.
  assert.equal(cost('ints.sum()'), 1 + 3);
  assert.equal(cost('ints.isSorted()'), 1 + 3);
  // Strings cost 0.1 per UTF-8 byte each, rounded down: héllo 6 bytes, wörld 6, abc 3: 0 + 0 + 0.
  assert.equal(cost('strs.indexOf("abc")'), 1 + 0);
  assert.equal(run('strs.max()', { ...vars, strs: ['x'.repeat(25), 'y'.repeat(31)] }).cost, 1 + 2 + 3);
  assert.equal(cost('[1, 2, 3].max()'), LIST_CREATE_BASE + 3);
});

test('regex: find returns the first match or the empty string', () => {
  assert.equal(value('"abc 123".find("[0-9]+")'), '123');
  assert.equal(value('"abc 123".find("xyz")'), '');
  // Go's FindString: the leftmost match, here empty at 0.
  assert.equal(value('"abc 123".find("[0-9]*")'), '');
  assert.equal(value('"héllo wörld".find("w.r")'), 'wör');
  assert.equal(value('"a😀b".find("a.b")'), 'a😀b');
});

test("regex: findAll is Go's FindAllString, with a limit", () => {
  assert.deepEqual(value('"123 abc 456".findAll("[0-9]+")'), ['123', '456']);
  assert.deepEqual(value('"123 abc 456".findAll("[0-9]+", 1)'), ['123']);
  assert.deepEqual(value('"123 abc 456".findAll("[0-9]+", 0)'), []);
  assert.deepEqual(value('"123 abc 456".findAll("[0-9]+", -1)'), ['123', '456']);
  assert.deepEqual(value('"123 abc 456".findAll("xyz")'), []);
  // Empty matches: none right after a match, the next one a code point on.
  assert.deepEqual(value('"12 4".findAll("[0-9]*")'), ['12', '4']);
  assert.deepEqual(value('"12 ab".findAll("[0-9]*")'), ['12', '', '', '']);
  assert.deepEqual(value('"a😀".findAll("")'), ['', '', '']);
  assert.deepEqual(value('s.findAll("(?i)[A-Z]+")'), ['abc', 'de']);
});

test('regex: a bad literal pattern fails the program; a bad pattern at run time is an Illegal regex', () => {
  assert.equal(compileError('s.find("(")'), 'program instantiation failed: error parsing regexp: missing closing ): `(`');
  assert.equal(compileError('s.findAll("a**")'), 'program instantiation failed: error parsing regexp: invalid nested repetition operator: `**`');
  assert.equal(evalError('s.find(pattern)'), 'Illegal regex: error parsing regexp: missing closing ): `(`');
  assert.equal(evalError('s.findAll(pattern, 2)'), 'Illegal regex: error parsing regexp: missing closing ): `(`');
  const started = Date.now();
  assert.deepEqual(run('s.findAll("(a+)+$")', { ...vars, s: `${'a'.repeat(20_000)}!` }).value, []);
  assert.ok(Date.now() - started < 2000, 'linear time');
});

test('regex: cost is ceil(0.1 x (1 + input)) x ceil(0.25 x pattern)', () => {
  // s is 13 code points: ceil(1.4) = 2; "[0-9]+" 6: ceil(1.5) = 2; plus the variable.
  assert.equal(cost('s.find("[0-9]+")'), 1 + 2 * 2);
  assert.equal(cost('s.findAll("[0-9]+", 1)'), 1 + 2 * 2);
  assert.equal(run('s.findAll("x")', { ...vars, s: 'y'.repeat(100) }).cost, 1 + 11 * 1);
});

test("urls: isURL accepts what Go's ParseRequestURI does: an absolute URI or an absolute path", () => {
  assert.equal(value("isURL('https://user:pass@example.com:80/path?query=val#fragment')"), true);
  assert.equal(value("isURL('/absolute-path')"), true);
  assert.equal(value("isURL('mailto:someone@example.com')"), true);
  assert.equal(value("isURL('https://a:b:c/')"), false);
  assert.equal(value("isURL('../relative-path')"), false);
  assert.equal(value("isURL('')"), false);
  assert.equal(value("isURL('http://[::1/')"), false);
});

test("urls: url() errors carry Go's parse error", () => {
  const prefix = 'URL parse error during conversion from string: ';
  assert.equal(evalError("url('https://a:b:c/')"), `${prefix}parse "https://a:b:c/": invalid port ":c" after host`);
  assert.equal(evalError("url('../relative-path')"), `${prefix}parse "../relative-path": invalid URI for request`);
  assert.equal(evalError("url('')"), `${prefix}parse "": empty url`);
  assert.equal(evalError("url('http://a b/')"), `${prefix}parse "http://a b/": invalid character " " in host name`);
  assert.equal(evalError("url('http://x/%zz')"), `${prefix}parse "http://x/%zz": invalid URL escape "%zz"`);
  assert.equal(evalError("url('http://[::1/')"), `${prefix}parse "http://[::1/": missing ']' in host`);
  assert.equal(evalError("url(':x')"), `${prefix}parse ":x": missing protocol scheme`);
});

test('urls: accessors, IPv6 brackets in getHost and not in getHostname, no normalisation', () => {
  assert.equal(value("url('/path').getScheme()"), '');
  assert.equal(value("url('HTTPS://example.com/').getScheme()"), 'https');
  assert.equal(value("url('https://example.com:80/').getHost()"), 'example.com:80');
  assert.equal(value("url('https://Example.COM/').getHost()"), 'Example.COM');
  assert.equal(value("url('https://[::1]:80/').getHost()"), '[::1]:80');
  assert.equal(value("url('https://[::1]/').getHost()"), '[::1]');
  assert.equal(value("url('/path').getHost()"), '');
  assert.equal(value("url('https://[::1]:80/').getHostname()"), '::1');
  assert.equal(value("url('https://[fe80::1%25en0]/').getHostname()"), 'fe80::1%en0');
  assert.equal(value("url('https://127.0.0.1:80/').getHostname()"), '127.0.0.1');
  assert.equal(value("url('https://example.com:80/').getPort()"), '80');
  assert.equal(value("url('https://[::1]/').getPort()"), '');
  assert.equal(value("url('https://example.com/path with spaces/').getEscapedPath()"), '/path%20with%20spaces/');
  assert.equal(value("url('https://example.com/a%2Fb/../c').getEscapedPath()"), '/a%2Fb/../c');
  assert.equal(value("url('https://example.com/héllo').getEscapedPath()"), '/h%C3%A9llo');
  assert.equal(value("url('https://example.com').getEscapedPath()"), '');
  assert.equal(value("url('/p#frag').getEscapedPath()"), '/p', 'the fragment is split off by url.Parse');
});

test('urls: getQuery is the matrix form, unescaped; malformed pairs are left out', () => {
  assert.deepEqual(value("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()"), new Map([['k1', ['a']], ['k2', ['b', 'c']]]));
  assert.deepEqual(value("url('https://example.com/path?key with spaces=value+with%20spaces').getQuery()"), new Map([['key with spaces', ['value with spaces']]]));
  assert.deepEqual(value("url('https://example.com/path?').getQuery()"), new Map());
  assert.deepEqual(value("url('https://e.com/?a=1;b=2&c=%zz&d').getQuery()"), new Map([['d', ['']]]));
  assert.equal(value("url('https://e.com/?k=v').getQuery()['k'][0]"), 'v');
});

test('urls: equality compares the URLs Go would print; URL has no fields', () => {
  assert.equal(value("url('https://example.com/a') == url('https://example.com/a')"), true);
  assert.equal(value("url('HTTPS://example.com/a') == url('https://example.com/a')"), true);
  assert.equal(value("url('https://example.com/a') == url('https://example.com/b')"), false);
  assert.equal(value("url('https://example.com/a') != url('https://example.com/b')"), true);
  assert.equal(value("type(url('/a')) == type(url('/b'))"), true);
  assert.match(compileError("url('/a').path"), /undefined field 'path'/);
  assert.match(compileError("url(1)"), /found no matching overload for 'url'/);
});

test('urls: url() is one traversal of its argument, accessors and isURL 1', () => {
  const input = `https://example.com/${'p'.repeat(80)}`; // 100 code points
  const activation = { ...vars, s: input };
  assert.equal(run('url(s).getHost()', activation).cost, 1 + 10 + 1);
  assert.equal(run('isURL(s)', activation).cost, 1 + 1);
  assert.equal(run('url(s) == url(s)', activation).cost, 2 * (1 + 10) + 1);
});

test('quantities: parsing, isQuantity, upstream errors', () => {
  assert.equal(value('quantity("12Mi") == quantity("12582912")'), true);
  assert.equal(value('isQuantity("20") && isQuantity("20M") && isQuantity("20Mi") && isQuantity("1.3e3") && isQuantity("-5m")'), true);
  assert.equal(value('isQuantity("20Mo") || isQuantity("10Mm") || isQuantity("200K") || isQuantity("1,3G") || isQuantity("1i")'), false);
  // Upstream's comment says 'Mi' is no quantity, but its parser reads the missing number as 0, and so does this one.
  assert.equal(value('quantity("Mi") == quantity("0")'), true);
  assert.equal(evalError('quantity("10Mo")'), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  assert.equal(evalError('quantity("10Mm")'), "unable to parse quantity's suffix");
  assert.match(compileError('isQuantity([1, 2, 3])'), /found no matching overload for 'isQuantity' applied to/);
});

test('quantities: comparison across suffixes is exact', () => {
  assert.equal(value('quantity("1Gi").isGreaterThan(quantity("1G"))'), true);
  assert.equal(value('quantity("1G").isGreaterThan(quantity("1Gi"))'), false);
  assert.equal(value('quantity("50M").isLessThan(quantity("50Mi"))'), true);
  assert.equal(value('quantity("100M").isLessThan(quantity("50M"))'), false);
  assert.equal(value('quantity("200M").compareTo(quantity("0.2G"))'), 0n);
  assert.equal(value('quantity("50M").compareTo(quantity("50Mi"))'), -1n);
  assert.equal(value('quantity("50Mi").compareTo(quantity("50M"))'), 1n);
  assert.equal(value('quantity("1n").isGreaterThan(quantity("0"))'), true);
  assert.equal(value('quantity("-1").isLessThan(quantity("1m"))'), true);
  // 10^18 + 1 apart from 10^18 in the 19th digit: no float could tell.
  assert.equal(value('quantity("1000000000000000001").isGreaterThan(quantity("1E"))'), true);
  assert.equal(value('quantity("1e999999999").isGreaterThan(quantity("1"))'), true);
});

test('quantities: equality is by value, as resource.Quantity.Equal', () => {
  assert.equal(value('quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")'), true);
  assert.equal(value('quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M")'), true);
  assert.equal(value('quantity("1") == quantity("1000m")'), true);
  assert.equal(value('quantity("200M") == quantity("0.3G")'), false);
  assert.equal(value('quantity("1Ki") != quantity("1k")'), true);
});

test('quantities: add and sub, of quantities and of ints, exact', () => {
  assert.equal(value('quantity("50k").add(quantity("20")) == quantity("50.02k")'), true);
  assert.equal(value('quantity("50k").add(20).isLessThan(quantity("50020"))'), false);
  assert.equal(value('quantity("50k").sub(quantity("20")) == quantity("49.98k")'), true);
  assert.equal(value('quantity("50k").sub(20) == quantity("49980")'), true);
  assert.equal(value('quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()'), 20n);
  assert.equal(value('quantity("1Gi").sub(quantity("1G")) == quantity("73741824")'), true);
  assert.equal(value('quantity("0.1").add(quantity("0.2")) == quantity("0.3")'), true);
  // Past int64 the sum goes on exactly as a decimal.
  assert.equal(value('quantity("9223372036854775807").add(1).compareTo(quantity("9223372036854775807"))'), 1n);
  // A parsed binary quantity is capped at 2^63 - 1 (upstream maxAllowed); a sum is not.
  assert.equal(value('quantity("4Ei").add(quantity("4Ei")).isGreaterThan(quantity("8Ei"))'), true);
  assert.equal(value('quantity("8Ei") == quantity("9223372036854775807")'), true);
  assert.equal(value('[quantity("9999999999999999999999999999999999999")].all(x, x.add(quantity("1")).compareTo(x.add(quantity("2"))) == -1)'), true);
});

test("quantities: isInteger and asInteger are upstream's AsInt64 (an int64 amount at a non-negative scale)", () => {
  assert.equal(value('quantity("500m").isInteger()'), false);
  assert.equal(value('quantity("50").isInteger() && quantity("50k").isInteger() && quantity("1Gi").isInteger()'), true);
  assert.equal(value('quantity("50k").asInteger()'), 50000n);
  assert.equal(value('quantity("1.5k").asInteger()'), 1500n);
  assert.equal(value('quantity("-1Mi").asInteger()'), -1048576n);
  assert.equal(value('quantity("9999999999999999999999999999999999999G").isInteger()'), false);
  assert.equal(evalError('quantity("9999999999999999999999999999999999999G").asInteger()'), 'cannot convert value to integer');
  // int64 overflow: 10 x 10^18 > 2^63 - 1.
  assert.equal(evalError('quantity("10E").asInteger()'), 'cannot convert value to integer');
  assert.equal(value('quantity("9E").asInteger()'), 9_000_000_000_000_000_000n);
  assert.equal(evalError('quantity("500m").asInteger()'), 'cannot convert value to integer');
  // Upstream keeps the scale of the text: 1000m is not reduced to 1.
  assert.equal(value('quantity("1000m").isInteger()'), false);
  assert.equal(value('quantity("500m").add(quantity("500m")) == quantity("1")'), true);
});

test('quantities: asApproximateFloat and sign', () => {
  assert.equal(value('quantity("50.703k").asApproximateFloat()'), 50703);
  assert.equal(value('quantity("50k").sub(20000).asApproximateFloat()'), 30000);
  assert.equal(value('quantity("1.5Gi").asApproximateFloat()'), 1610612736);
  assert.equal(value('quantity("100m").asApproximateFloat()'), 0.1);
  assert.equal(value('quantity("1e400").asApproximateFloat()'), Infinity);
  assert.equal(value('sign(quantity("-5"))'), -1n);
  assert.equal(value('sign(quantity("0"))'), 0n);
  assert.equal(value('sign(quantity("5n"))'), 1n);
  // Upstream declares sign as a global function: the member form does not compile there either.
  assert.match(compileError('quantity("1").sign()'), /found no matching overload for 'sign'/);
});

test('quantities: quantity and isQuantity are one traversal of the text, the rest 1', () => {
  const activation = { ...vars, s: `${'1'.repeat(15)}k` }; // 16 code points: ceil(1.6) = 2
  assert.equal(run('quantity(s).isInteger()', activation).cost, 1 + 2 + 1);
  assert.equal(run('isQuantity(s)', activation).cost, 1 + 2);
  assert.equal(run('quantity(s).add(quantity(s)) == quantity(s)', activation).cost, 3 * (1 + 2) + 1 + 1);
});

test('macros through the environment: has, all, exists, exists_one, map, filter', () => {
  assert.equal(value('has(obj.name) && has(obj.labels.app) && !has(obj.labels.nope)'), true);
  assert.equal(value('ints.all(x, x > 0)'), true);
  assert.equal(value('ints.all(x, x > 1)'), false);
  assert.equal(value('ints.exists(x, x == 2)'), true);
  assert.equal(value('ints.exists(x, x == 5)'), false);
  assert.equal(value('ints.exists_one(x, x > 2)'), true);
  assert.equal(value('ints.exists_one(x, x > 1)'), false);
  assert.deepEqual(value('ints.map(x, x * 2)'), [6n, 2n, 4n]);
  assert.deepEqual(value('ints.map(x, x > 1, x * 10)'), [30n, 20n]);
  assert.deepEqual(value('ints.filter(x, x % 2 == 1)'), [3n, 1n]);
  assert.equal(value('m.all(k, m[k] > 0) && m.exists(k, k == "b")'), true);
  assert.deepEqual(value('m.filter(k, m[k] > 1)'), ['b']);
  // An error in one element is absorbed when another decides the result.
  assert.equal(value('[0, 1].exists(x, 1 / x == 1)'), true);
  assert.equal(evalError('[0, 2].exists(x, 1 / x == 1)'), 'division by zero');
});

test('optional types through the environment', () => {
  assert.equal(value('obj.?name.orValue("none")'), 'web');
  assert.equal(value('obj.labels[?"app"].orValue("d")'), 'web');
  assert.equal(value('obj.labels[?"x"].orValue("d")'), 'd');
  assert.equal(value('obj.labels[?"x"].hasValue()'), false);
  assert.equal(value('optional.of(1).hasValue() && !optional.none().hasValue()'), true);
  assert.equal(value('optional.of(1).value()'), 1n);
  assert.equal(value('optional.none().or(optional.of(2)).value()'), 2n);
  assert.equal(value('optional.ofNonZeroValue(0).hasValue() || optional.ofNonZeroValue("").hasValue()'), false);
  assert.equal(value('optional.ofNonZeroValue([1]).hasValue()'), true);
  assert.equal(evalError('optional.none().value()'), 'optional.none() dereference');
});
