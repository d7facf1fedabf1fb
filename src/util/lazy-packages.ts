/**
 * Packages loaded on their first use rather than at start (issue 10: spawn to
 * ready ≤ 200 ms). Each of these costs 15–20 ms to load, and a server needs
 * none of them to become ready: YAML is parsed and written for clients that
 * ask for it and for configuration files, expressions exist only where a
 * configuration declares them, and JWS work begins with the first token.
 * node:http2 (7 ms) serves only the etcd client.
 *
 * Loaded synchronously (callers stay synchronous): yaml is CommonJS, and the
 * two ES-module packages, having no top-level await, load through require()
 * on every Node this package supports (require(esm), Node 20.19+ and 22.12+).
 */
import { createRequire } from 'node:module';
import type * as Http2 from 'node:http2';
import type * as Cel from '@marcbachmann/cel-js';
import type * as Jose from 'jose';
import type * as Yaml from 'yaml';

// Not named `require`, so that the bundler leaves these calls to run time.
const loadPackage = createRequire(import.meta.url);

let yamlPackage: typeof Yaml | undefined;
let celPackage: typeof Cel | undefined;
let josePackage: typeof Jose | undefined;

/** The `yaml` package. */
export const yaml = (): typeof Yaml => (yamlPackage ??= loadPackage('yaml') as typeof Yaml);

/** The expression language's parser and evaluator (SPEC 2.11). */
export const cel = (): typeof Cel => (celPackage ??= loadPackage('@marcbachmann/cel-js') as typeof Cel);

/** jose, for every JWT and JWS. */
export const jose = (): typeof Jose => (josePackage ??= loadPackage('jose') as typeof Jose);

let http2Module: typeof Http2 | undefined;

/** node:http2, for the etcd client's watch streams. */
export const http2 = (): typeof Http2 => (http2Module ??= loadPackage('node:http2') as typeof Http2);
