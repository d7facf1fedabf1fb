import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  SelectorParseError,
  formatLabelSelector,
  labelSelectorToRequirements,
  matchesLabels,
  parseLabelSelector,
  requirementsString,
  type LabelRequirement,
} from '../src/registry/selectors/label-selector.ts';
import {
  formatFieldSelector,
  matchesFields,
  parseFieldSelector,
  requirementFields,
  requiresExactMatch,
} from '../src/registry/selectors/field-selector.ts';

const r = (key: string, operator: LabelRequirement['operator'], values: string[] = []): LabelRequirement => ({ key, operator, values });

const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const QNAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

test('label selector grammar (labels.Parse)', () => {
  const cases: Array<[string, LabelRequirement[], string]> = [
    ['', [], ''],
    ['  ', [], ''],
    ['a=b', [r('a', '=', ['b'])], 'a=b'],
    ['a==b', [r('a', '==', ['b'])], 'a==b'],
    ['a!=b', [r('a', '!=', ['b'])], 'a!=b'],
    ['a=', [r('a', '=', [''])], 'a='],
    ['a', [r('a', 'exists')], 'a'],
    ['!a', [r('a', '!')], '!a'],
    [' x in (foo,,baz),y,z notin ()', [r('x', 'in', ['', 'baz', 'foo']), r('y', 'exists'), r('z', 'notin', [''])], 'x in (,baz,foo),y,z notin ()'],
    ['env in (prod, dev)', [r('env', 'in', ['dev', 'prod'])], 'env in (dev,prod)'],
    ['k in (in,notin)', [r('k', 'in', ['in', 'notin'])], 'k in (in,notin)'],
    ['b=1,a=2', [r('a', '=', ['2']), r('b', '=', ['1'])], 'a=2,b=1'],
    ['example.com/app=web', [r('example.com/app', '=', ['web'])], 'example.com/app=web'],
    ['k>5,j<10', [r('j', 'lt', ['10']), r('k', 'gt', ['5'])], 'j<10,k>5'],
    ['a in (x)', [r('a', 'in', ['x'])], 'a in (x)'],
  ];
  for (const [input, want, str] of cases) {
    const got = parseLabelSelector(input);
    assert.deepEqual(got, want, input);
    assert.equal(requirementsString(got), str, input);
  }
});

test('label selector parse errors carry upstream messages', () => {
  const cases: Array<[string, string]> = [
    ['a b', 'unable to parse requirement: found \'b\', expected: in, notin, =, ==, !=, gt, lt'],
    ['a=b=c', "found '=', expected: ',' or 'end of string'"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['a,', "found '', expected: identifier after ','"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['a b/c=d', "unable to parse requirement: found 'b/c', expected: in, notin, =, ==, !=, gt, lt"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['k=a b', "found 'b', expected: ',' or 'end of string'"],
    ['a_=b', `unable to parse requirement: <nil>: Invalid value: "a_": ${QNAME_MSG}`],
    ['a=-b', `unable to parse requirement: values[0][a]: Invalid value: "-b": ${LABEL_VALUE_MSG}`],
    ['a>b', "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ['a in (x,-y)', `unable to parse requirement: values[0][a]: Invalid value: "-y": ${LABEL_VALUE_MSG}`],
  ];
  for (const [input, message] of cases) {
    assert.throws(() => parseLabelSelector(input), (e: unknown) => {
      assert.ok(e instanceof SelectorParseError, input);
      assert.equal((e as Error).message, message, input);
      return true;
    });
  }
});

test('label matching (Requirement.Matches)', () => {
  const labels = { app: 'web', tier: 'front', n: '7' };
  const cases: Array<[string, Record<string, string> | undefined, boolean]> = [
    ['', labels, true],
    ['app=web', labels, true],
    ['app==web', labels, true],
    ['app=db', labels, false],
    ['app!=db', labels, true],
    ['missing!=x', labels, true],
    ['app in (web,db)', labels, true],
    ['app notin (web)', labels, false],
    ['missing notin (web)', labels, true],
    ['missing in (web)', labels, false],
    ['tier', labels, true],
    ['!tier', labels, false],
    ['!missing', labels, true],
    ['n>5', labels, true],
    ['n<5', labels, false],
    ['app>5', labels, false],
    ['app=web,tier=back', labels, false],
    ['app', undefined, false],
    ['!app', undefined, true],
    ['x=', { x: '' }, true],
  ];
  for (const [sel, ls, want] of cases) assert.equal(matchesLabels(parseLabelSelector(sel), ls), want, sel);
  assert.equal(matchesLabels(null, labels), false);
});

test('LabelSelector object conversion and FormatLabelSelector (FACTS 5)', () => {
  const sel = {
    matchLabels: { tier: 'front', app: 'web' },
    matchExpressions: [
      { key: 'env', operator: 'In', values: ['prod', 'dev'] },
      { key: 'legacy', operator: 'DoesNotExist' },
      { key: 'zone', operator: 'NotIn', values: ['x'] },
      { key: 'gpu', operator: 'Exists' },
    ],
  };
  const reqs = labelSelectorToRequirements(sel)!;
  assert.deepEqual(reqs.map((x) => x.key), ['app', 'env', 'gpu', 'legacy', 'tier', 'zone']);
  assert.equal(matchesLabels(reqs, { app: 'web', tier: 'front', env: 'dev', gpu: '1' }), true);
  assert.equal(matchesLabels(reqs, { app: 'web', tier: 'front', env: 'dev' }), false);
  const cases: Array<[unknown, string]> = [
    [sel, 'app=web,env in (dev,prod),gpu,!legacy,tier=front,zone notin (x)'],
    [{}, '<none>'],
    [{ matchLabels: {} }, '<none>'],
    [null, '<none>'],
    [{ matchLabels: { app: 'web' } }, 'app=web'],
    [{ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }, '<error>'],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, '<error>'],
    [{ matchLabels: { 'bad key': 'x' } }, '<error>'],
  ];
  for (const [input, want] of cases) assert.equal(formatLabelSelector(input), want, JSON.stringify(input));
  assert.equal(labelSelectorToRequirements(null), null);
  assert.deepEqual(labelSelectorToRequirements({}), []);
  assert.equal(matchesLabels(labelSelectorToRequirements({}), {}), true);
  assert.throws(() => labelSelectorToRequirements({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }), /^SelectorParseError: "Bogus" is not a valid label selector operator$/);
  assert.throws(
    () => labelSelectorToRequirements({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
    { message: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty" },
  );
});

test('field selector parsing (fields.ParseSelector)', () => {
  const cases: Array<[string, Array<{ field: string; operator: '=' | '!='; value: string }>, string]> = [
    ['', [], ''],
    ['metadata.name=np1', [{ field: 'metadata.name', operator: '=', value: 'np1' }], 'metadata.name=np1'],
    ['metadata.name==np1', [{ field: 'metadata.name', operator: '=', value: 'np1' }], 'metadata.name=np1'],
    ['metadata.namespace!=kube,metadata.name=a', [
      { field: 'metadata.name', operator: '=', value: 'a' },
      { field: 'metadata.namespace', operator: '!=', value: 'kube' },
    ], 'metadata.name=a,metadata.namespace!=kube'],
    ['a=b\\,c\\=d\\\\e', [{ field: 'a', operator: '=', value: 'b,c=d\\e' }], 'a=b\\,c\\=d\\\\e'],
    ['a=,,b=1,', [{ field: 'a', operator: '=', value: '' }, { field: 'b', operator: '=', value: '1' }], 'a=,b=1'],
    ['=', [], ''],
    ['x!=', [{ field: 'x', operator: '!=', value: '' }], 'x!='],
  ];
  for (const [input, want, str] of cases) {
    const got = parseFieldSelector(input);
    assert.deepEqual(got, want, input);
    assert.equal(formatFieldSelector(got), str, input);
  }
  const errors: Array<[string, string]> = [
    ['a', "invalid selector: 'a'; can't understand 'a'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a=\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
  ];
  for (const [input, message] of errors) assert.throws(() => parseFieldSelector(input), { name: 'SelectorParseError', message }, input);
});

test('field selector matching and helpers', () => {
  const fields = { 'metadata.name': 'np1', 'metadata.namespace': 'default' };
  const cases: Array<[string, boolean]> = [
    ['', true],
    ['metadata.name=np1', true],
    ['metadata.name=np2', false],
    ['metadata.name!=np2', true],
    ['metadata.name=np1,metadata.namespace=other', false],
    ['spec.x=', true],
    ['spec.x=y', false],
  ];
  for (const [sel, want] of cases) assert.equal(matchesFields(parseFieldSelector(sel), fields), want, sel);
  const reqs = parseFieldSelector('spec.a=1,metadata.name=x,spec.a!=2');
  assert.deepEqual(requirementFields(reqs), ['metadata.name', 'spec.a']);
  assert.equal(requiresExactMatch(reqs, 'metadata.name'), 'x');
  assert.equal(requiresExactMatch(parseFieldSelector('metadata.name!=x'), 'metadata.name'), undefined);
});
