/**
 * client-go's rest.InClusterConfig with the spec's names (SPEC 5.1.6 table,
 * 5.2): the API server is at ORCH_SERVICE_HOST:ORCH_SERVICE_PORT, the token
 * and CA of the pod's service account are under
 * /var/run/secrets/orch.io/serviceaccount. The token file is re-read as
 * client-go's file token source does; a CA that cannot be read leaves the
 * system roots, as client-go logs and goes on.
 */
import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import type { ClusterConnection } from './orchconfig.ts';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/orch.io/serviceaccount';

/** client-go's ErrNotInCluster with the renamed variables. */
export const NOT_IN_CLUSTER = 'unable to load in-cluster configuration, ORCH_SERVICE_HOST and ORCH_SERVICE_PORT must be defined';

export interface InClusterSources {
  env?: NodeJS.ProcessEnv;
  tokenFile?: string;
  caFile?: string;
}

/** Go's text for a failed open. */
function goFileError(err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') return 'no such file or directory';
  if (err.code === 'EACCES') return 'permission denied';
  if (err.code === 'EISDIR') return 'is a directory';
  return err.message;
}

export function inClusterConnection(sources: InClusterSources = {}): ClusterConnection {
  const env = sources.env ?? process.env;
  const tokenFile = sources.tokenFile ?? `${SERVICE_ACCOUNT_DIR}/token`;
  const caFile = sources.caFile ?? `${SERVICE_ACCOUNT_DIR}/ca.crt`;
  const host = env.ORCH_SERVICE_HOST;
  const port = env.ORCH_SERVICE_PORT;
  if (!host || !port) throw new Error(NOT_IN_CLUSTER);
  // The token must be readable now; later reads refresh it.
  try {
    readFileSync(tokenFile, 'utf8');
  } catch (err) {
    throw new Error(`open ${tokenFile}: ${goFileError(err as NodeJS.ErrnoException)}`);
  }
  let caPem: string | undefined;
  try {
    caPem = readFileSync(caFile, 'utf8');
  } catch (err) {
    process.emitWarning(`Expected to load root CA config from ${caFile}, but got err: open ${caFile}: ${goFileError(err as NodeJS.ErrnoException)}`);
  }
  return { server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`, caPem, tokenFile };
}
