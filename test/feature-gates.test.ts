/**
 * --feature-gates (SPEC 9.6; component-base featuregate): the catalog's stages
 * and defaults, upstream's errors, AllAlpha/AllBeta, and a gate's effect
 * through a real server. Each gate's own on/off effect is tested where its
 * feature is: gzip (response-gzip), WatchList (watch, resource-version),
 * AnonymousAuthConfigurableEndpoints (anonymous), AuthorizeWithSelectors
 * (access-reviews, authz-webhook), StructuredAuthorizationConfiguration
 * (authz-attributes), APISelfSubjectReview (identity-reviews).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags, usage, type Flags } from '../src/cli/flags.ts';
import { FEATURE_GATES, featureEnabled } from '../src/server/feature-gates.ts';
import { startTestServer } from './helpers/server.ts';

function gates(...argv: string[]): Flags['featureGates'] {
  return (parseFlags(argv) as Flags).featureGates;
}

test('stages and defaults of 1.31: alpha off, beta on, GA locked on', () => {
  const expected = {
    WatchList: ['ALPHA', false],
    APIResponseCompression: ['BETA', true],
    APISelfSubjectReview: ['GA', true],
    AnonymousAuthConfigurableEndpoints: ['ALPHA', false],
    AuthorizeWithSelectors: ['ALPHA', false],
    StructuredAuthorizationConfiguration: ['BETA', true],
    ServiceIPStaticSubrange: ['GA', true],
    ProxyTerminatingEndpoints: ['GA', true],
  };
  assert.deepEqual(Object.fromEntries(Object.entries(FEATURE_GATES).map(([name, spec]) => [name, [spec.stage, spec.default]])), expected);
  for (const [name, [, enabled]] of Object.entries(expected)) assert.equal(featureEnabled({}, name as keyof typeof FEATURE_GATES), enabled, name);
});

test("upstream's errors: unknown gate, locked gate, missing or bad value", () => {
  const cases: Array<[string, RegExp]> = [
    ['NoSuchGate=true', /"--feature-gates" flag: unrecognized feature gate: NoSuchGate$/],
    ['APISelfSubjectReview=false', /cannot set feature gate APISelfSubjectReview to false, feature is locked to true$/],
    ['ServiceIPStaticSubrange=false', /cannot set feature gate ServiceIPStaticSubrange to false, feature is locked to true$/],
    ['ProxyTerminatingEndpoints=false', /cannot set feature gate ProxyTerminatingEndpoints to false, feature is locked to true$/],
    ['WatchList', /missing bool value for WatchList$/],
    ['WatchList=yes', /invalid value of WatchList=yes, err: strconv.ParseBool: parsing "yes": invalid syntax$/],
  ];
  for (const [value, message] of cases) assert.throws(() => parseFlags([`--feature-gates=${value}`]), message, value);
});

test('settings: explicit wins over AllAlpha/AllBeta, repeated flags add, locked gates accept true', () => {
  const set = gates('--feature-gates=AllAlpha=true,AuthorizeWithSelectors=false', '--feature-gates= AllBeta = false ,ProxyTerminatingEndpoints=true');
  assert.equal(featureEnabled(set, 'WatchList'), true);
  assert.equal(featureEnabled(set, 'AnonymousAuthConfigurableEndpoints'), true);
  assert.equal(featureEnabled(set, 'AuthorizeWithSelectors'), false);
  assert.equal(featureEnabled(set, 'APIResponseCompression'), false);
  assert.equal(featureEnabled(set, 'StructuredAuthorizationConfiguration'), false);
  assert.equal(featureEnabled(set, 'APISelfSubjectReview'), true);
  const explicit = gates('--feature-gates=AllBeta=false,APIResponseCompression=true');
  assert.equal(featureEnabled(explicit, 'APIResponseCompression'), true);
});

test('AllBeta=false switches StructuredAuthorizationConfiguration off: --authorization-config is refused', () => {
  assert.throws(() => parseFlags(['--feature-gates=AllBeta=false', '--authorization-config=/x.yaml']), /cannot be used without enabling StructuredAuthorizationConfiguration feature flag/);
});

test('the help lists the settable gates as upstream prints them, then the locked GA gates', () => {
  const help = usage();
  for (const line of [
    'AllAlpha=true|false (ALPHA - default=false)',
    'AllBeta=true|false (BETA - default=false)',
    'APIResponseCompression=true|false (BETA - default=true)',
    'AnonymousAuthConfigurableEndpoints=true|false (ALPHA - default=false)',
    'AuthorizeWithSelectors=true|false (ALPHA - default=false)',
    'StructuredAuthorizationConfiguration=true|false (BETA - default=true)',
    'WatchList=true|false (ALPHA - default=false)',
    'ServiceIPStaticSubrange=true (GA - locked; no effect: this server has no Services)',
  ]) assert.ok(help.includes(line), line);
});

test('through a real server: WatchList off by default, on with AllAlpha=true', async () => {
  const path = '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1';
  const off = await startTestServer(['--workers=1']);
  try {
    const res = await off.request('GET', path);
    assert.equal(res.status, 400);
    assert.match(res.body.message, /sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled/);
  } finally {
    await off.close();
  }
  const on = await startTestServer(['--workers=1', '--feature-gates=AllAlpha=true']);
  try {
    const res = await on.request('GET', path);
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, /"orch.io\/initial-events-end":"true"/);
  } finally {
    await on.close();
  }
});

test('a GA gate set explicitly is warned about at start, as upstream does', async () => {
  const server = await startTestServer(['--workers=1', '--feature-gates=APISelfSubjectReview=true']);
  try {
    assert.match(server.output(), /Setting GA feature gate APISelfSubjectReview=true. It will be removed in a future release./);
  } finally {
    await server.close();
  }
});
