/**
 * The orchconfig loader (kubeconfig format, SPEC 2.9, 2.10): clusters, users
 * and contexts as client-go's clientcmd reads them. Files named in it resolve
 * against the orchconfig's own directory; `*-data` fields are base64.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** A credential plugin's configuration (SPEC 2.10). */
export interface ExecConfig {
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  apiVersion: string;
  installHint?: string;
  provideClusterInfo: boolean;
  /** Required in v1; v1beta1 defaults to IfAvailable. */
  interactiveMode: 'Never' | 'IfAvailable' | 'Always';
}

export interface ClusterConnection {
  server: string;
  caPem?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  exec?: ExecConfig;
  /** The cluster's `client.authentication.orch.io/exec` extension, passed to plugins as spec.cluster.config. */
  execClusterConfig?: unknown;
}

const EXEC_VERSIONS = ['client.authentication.orch.io/v1', 'client.authentication.orch.io/v1beta1'];

/** Reads one file of the config, relative to the config's directory. */
function readRelative(base: string, file: string): string {
  return readFileSync(isAbsolute(file) ? file : join(base, file), 'utf8');
}

function named(list: unknown, name: string, what: string, path: string): Record<string, any> {
  const entry = Array.isArray(list) ? list.find((e: any) => e?.name === name) : undefined;
  if (!entry) throw new Error(`${path}: no ${what} named ${JSON.stringify(name)}`);
  return entry;
}

export function parseExecConfig(exec: any, path: string): ExecConfig {
  if (!exec.command) throw new Error(`${path}: exec: command is required`);
  if (!EXEC_VERSIONS.includes(exec.apiVersion)) throw new Error(`${path}: exec: apiVersion ${JSON.stringify(exec.apiVersion)} is not one of ${EXEC_VERSIONS.join(', ')}`);
  const v1 = exec.apiVersion.endsWith('/v1');
  const mode = exec.interactiveMode ?? (v1 ? undefined : 'IfAvailable');
  if (mode === undefined) throw new Error(`${path}: exec: interactiveMode must be specified for ${exec.apiVersion} to use exec authentication plugin`);
  if (!['Never', 'IfAvailable', 'Always'].includes(mode)) throw new Error(`${path}: exec: invalid interactiveMode: ${mode}`);
  return {
    command: String(exec.command),
    args: Array.isArray(exec.args) ? exec.args.map(String) : [],
    env: Array.isArray(exec.env) ? exec.env.map((e: any) => ({ name: String(e?.name), value: String(e?.value ?? '') })) : [],
    apiVersion: exec.apiVersion,
    installHint: exec.installHint,
    provideClusterInfo: exec.provideClusterInfo === true,
    interactiveMode: mode,
  };
}

/** Loads the connection of the current (or named) context. */
export function loadOrchconfig(path: string, options: { context?: string } = {}): ClusterConnection {
  const doc = parseYaml(readFileSync(path, 'utf8'));
  if (!doc || typeof doc !== 'object') throw new Error(`${path}: not an orchconfig`);
  const base = dirname(path);
  const contextName = options.context ?? doc['current-context'];
  let cluster: Record<string, any>;
  let user: Record<string, any> = {};
  if (contextName) {
    const context = named(doc.contexts, contextName, 'context', path).context ?? {};
    cluster = named(doc.clusters, context.cluster, 'cluster', path).cluster ?? {};
    if (context.user) user = named(doc.users, context.user, 'user', path).user ?? {};
  } else {
    // No context: a single cluster (and user) is what a webhook configuration usually holds.
    if (!Array.isArray(doc.clusters) || doc.clusters.length !== 1) throw new Error(`${path}: no current-context and not exactly one cluster`);
    cluster = doc.clusters[0].cluster ?? {};
    if (Array.isArray(doc.users) && doc.users.length === 1) user = doc.users[0].user ?? {};
  }
  if (!cluster.server) throw new Error(`${path}: no server found for cluster`);
  const connection: ClusterConnection = { server: String(cluster.server) };
  if (cluster['certificate-authority-data']) connection.caPem = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  else if (cluster['certificate-authority']) connection.caPem = readRelative(base, cluster['certificate-authority']);
  if (cluster['insecure-skip-tls-verify'] === true) connection.insecureSkipTlsVerify = true;
  if (cluster['tls-server-name']) connection.tlsServerName = String(cluster['tls-server-name']);
  const extension = Array.isArray(cluster.extensions) ? cluster.extensions.find((e: any) => e?.name === 'client.authentication.orch.io/exec') : undefined;
  if (extension) connection.execClusterConfig = extension.extension;
  if (user['client-certificate-data']) connection.clientCertPem = Buffer.from(user['client-certificate-data'], 'base64').toString('utf8');
  else if (user['client-certificate']) connection.clientCertPem = readRelative(base, user['client-certificate']);
  if (user['client-key-data']) connection.clientKeyPem = Buffer.from(user['client-key-data'], 'base64').toString('utf8');
  else if (user['client-key']) connection.clientKeyPem = readRelative(base, user['client-key']);
  if (!!connection.clientCertPem !== !!connection.clientKeyPem) throw new Error(`${path}: client-certificate and client-key must be given together`);
  if (user.token) connection.token = String(user.token);
  else if (user.tokenFile) connection.token = readRelative(base, user.tokenFile).trim();
  if (user.exec) {
    if (connection.token) throw new Error(`${path}: a user may not have both a token and an exec plugin`);
    connection.exec = parseExecConfig(user.exec, path);
  }
  return connection;
}
