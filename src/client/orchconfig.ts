/**
 * The orchconfig loader (kubeconfig format; SPEC 2.9, 2.10): one context's
 * cluster and user as client-go's DirectClientConfig.ClientConfig makes them,
 * with its validation and its words. Files named in the config resolve
 * against the config's own directory; credentials are read only for an https
 * server; a user with a token, basic auth or a client certificate does not run
 * its exec plugin (client-go's exec authenticator steps aside for them).
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { decodeOrchconfig, EXEC_API_VERSIONS, type Fields, type OrchconfigDocument } from './orchconfig-document.ts';

export type InteractiveMode = 'Never' | 'IfAvailable' | 'Always';

/** A credential plugin's configuration (SPEC 2.10). */
export interface ExecConfig {
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  apiVersion: string;
  installHint?: string;
  provideClusterInfo: boolean;
  /** Required in v1; v1beta1 defaults to IfAvailable. */
  interactiveMode: InteractiveMode;
}

export interface ClusterConnection {
  server: string;
  caPem?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  /** `proxy-url`: an http or https proxy, tunnelled through with CONNECT for https servers. */
  proxyUrl?: string;
  /** `disable-compression`: this client never asks for compressed answers; plugins are told. */
  disableCompression?: boolean;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  /** `tokenFile`: re-read at most once a minute, and preferred to `token`, as client-go. */
  tokenFile?: string;
  username?: string;
  password?: string;
  /** `as`, `as-uid`, `as-groups`, `as-user-extra`: sent as Impersonate-* headers (SPEC 5.4). */
  impersonate?: { user: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  exec?: ExecConfig;
  /** The cluster's `client.authentication.orch.io/exec` extension, passed to plugins as spec.cluster.config. */
  execClusterConfig?: unknown;
  /** The context's namespace. */
  namespace?: string;
}

export const EXEC_EXTENSION = 'client.authentication.orch.io/exec';
const EMPTY_CLUSTER = 'cluster has no server defined';

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** utilerrors.NewAggregate's message: one error as is, several in brackets, duplicates once. */
function aggregate(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** client-go's cleanANSIEscapeCodes: characters outside letters, marks, numbers, punctuation, symbols, spaces and \t-\r become U+XXXX. */
function cleanControlCharacters(text: string): string {
  return text.replace(/[^\p{L}\p{M}\p{N}\p{P}\p{S}\p{Z}\t\n\v\f\r]/gu, (c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
}

/** tls.X509KeyPair's checks: a certificate, a key, and the key belongs to the (first) certificate. */
export function checkKeyPair(certPem: string, keyPem: string): void {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    throw new Error('tls: failed to find any PEM data in certificate input');
  }
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    throw new Error('tls: failed to find any PEM data in key input');
  }
  if (!cert.checkPrivateKey(key)) throw new Error('tls: private key does not match public key');
}

/** Every certificate of a PEM bundle must parse (client-go: unable to load root certificates). */
function checkCaBundle(caPem: string): void {
  const blocks = caPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  try {
    if (!blocks) throw new Error();
    for (const block of blocks) new X509Certificate(block);
  } catch {
    throw new Error('unable to load root certificates: unable to parse bytes as PEM block');
  }
}

function validateCluster(name: string, cluster: Fields | undefined, resolve: (file: string) => string): string[] {
  const fields = Object.entries(cluster ?? {}).filter(([key, value]) => value != null && value !== '' && value !== false && !(key === 'extensions' && (value as Map<string, unknown>).size === 0));
  if (fields.length === 0) return [EMPTY_CLUSTER];
  const errors: string[] = [];
  const c = cluster!;
  if (!str(c.server)) errors.push(name ? `no server found for cluster "${name}"` : 'default cluster has no server defined');
  const proxy = str(c['proxy-url']);
  if (proxy) {
    let scheme = '';
    try {
      scheme = new URL(proxy).protocol.slice(0, -1);
    } catch {
      errors.push(`invalid 'proxy-url' "${proxy}" for cluster "${name}": parse "${proxy}": invalid URL`);
    }
    if (scheme && !['http', 'https', 'socks5'].includes(scheme)) errors.push(`invalid 'proxy-url' "${proxy}" for cluster "${name}": unsupported scheme "${scheme}", must be http, https, or socks5`);
    else if (scheme === 'socks5') errors.push(`invalid 'proxy-url' "${proxy}" for cluster "${name}": socks5 proxies are not supported by this client`);
  }
  const caFile = str(c['certificate-authority']);
  if (caFile && str(c['certificate-authority-data'])) errors.push(`certificate-authority-data and certificate-authority are both specified for ${name}. certificate-authority-data will override.`);
  if (caFile) {
    try {
      readFileSync(resolve(caFile));
    } catch (err) {
      errors.push(`unable to read certificate-authority ${caFile} for ${name} due to ${(err as Error).message}`);
    }
  }
  return errors;
}

function validateUser(name: string, user: Fields): string[] {
  const errors: string[] = [];
  const methods: string[] = [];
  if (str(user.token)) methods.push('token');
  if (str(user.username) || str(user.password)) methods.push('basicAuth');
  const cert = str(user['client-certificate']) || str(user['client-certificate-data']);
  const key = str(user['client-key']) || str(user['client-key-data']);
  if (cert) {
    if (str(user['client-certificate']) && str(user['client-certificate-data'])) errors.push(`client-cert-data and client-cert are both specified for ${name}. client-cert-data will override.`);
    if (str(user['client-key']) && str(user['client-key-data'])) errors.push(`client-key-data and client-key are both specified for ${name}; client-key-data will override`);
    if (!key) errors.push(`client-key-data or client-key must be specified for ${name} to use the clientCert authentication method.`);
  } else if (key) {
    // Upstream drops a lone key silently; a key nobody can use is a configuration mistake worth naming.
    errors.push(`client-cert-data or client-cert must be specified for ${name} to use the clientCert authentication method.`);
  }
  const exec = user.exec as Fields | undefined;
  if (exec) {
    if (user['auth-provider'] != null) errors.push(`authProvider cannot be provided in combination with an exec plugin for ${name}`);
    if (!str(exec.command)) errors.push(`command must be specified for ${name} to use exec authentication plugin`);
    if (!str(exec.apiVersion)) errors.push(`apiVersion must be specified for ${name} to use exec authentication plugin`);
    for (const env of exec.env as Array<{ name: string }>) if (!env.name) errors.push(`env variable name must be specified for ${name} to use exec authentication plugin`);
    const mode = str(exec.interactiveMode);
    if (!mode) errors.push(`interactiveMode must be specified for ${name} to use exec authentication plugin`);
    else if (!['Never', 'IfAvailable', 'Always'].includes(mode)) errors.push(`invalid interactiveMode for ${name}: "${mode}"`);
  }
  if (methods.length > 1) errors.push(`more than one authentication method found for ${name}; found [${methods.join(' ')}], only one is allowed`);
  const extra = (user['as-user-extra'] ?? {}) as Record<string, string[]>;
  if ((str(user['as-uid']) || ((user['as-groups'] as string[] | undefined) ?? []).length || Object.keys(extra).length) && !str(user.as)) {
    errors.push(`requesting uid, groups or user-extra for ${name} without impersonating a user`);
  }
  return errors;
}

/** client-go's DefaultServerURL: a server without a scheme is https when TLS is configured, else http. */
function serverUrl(server: string, tls: boolean): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `${tls ? 'https' : 'http'}://${server}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
  } catch {
    throw new Error(`host must be a URL or a host:port pair: "${server}"`);
  }
  return withScheme.replace(/[?#].*$/, '');
}

/**
 * The connection of one context of a decoded document (DirectClientConfig.ClientConfig).
 * `baseDir` resolves relative file names; without it, a document may not name files.
 */
export function connectionFromDocument(doc: OrchconfigDocument, options: { context?: string; baseDir?: string } = {}): ClusterConnection {
  const resolve = (file: string) => {
    if (options.baseDir === undefined && !isAbsolute(file)) throw new Error(`relative file name ${file} in a configuration that has no directory`);
    return isAbsolute(file) ? file : join(options.baseDir!, file);
  };
  if (options.context && !doc.contexts.has(options.context)) throw new Error(`context "${options.context}" does not exist`);
  const contextName = options.context || doc.currentContext;
  const context = doc.contexts.get(contextName) ?? {};
  const errors: string[] = [];
  if (contextName && !doc.contexts.has(contextName)) errors.push(`context was not found for specified context: ${contextName}`);
  const userName = str(context.user);
  const clusterName = str(context.cluster);
  const user = doc.users.get(userName) ?? {};
  const cluster = doc.clusters.get(clusterName);
  errors.push(...validateUser(userName, user), ...validateCluster(clusterName, cluster, resolve));
  if (errors.length === 1 && errors[0] === EMPTY_CLUSTER) throw new Error('invalid configuration: no configuration has been provided');
  if (errors.length) throw new Error(`invalid configuration: ${aggregate(errors)}`);
  const c = cluster!;
  const read = (file: string) => readFileSync(resolve(file), 'utf8');

  const caPem = str(c['certificate-authority-data']) || (str(c['certificate-authority']) ? read(str(c['certificate-authority'])) : '');
  const certPem = str(user['client-certificate-data']) || (str(user['client-certificate']) ? read(str(user['client-certificate'])) : '');
  const keyPem = str(user['client-key-data']) || (str(user['client-key']) ? read(str(user['client-key'])) : '');
  const insecure = c['insecure-skip-tls-verify'] === true;
  const connection: ClusterConnection = { server: serverUrl(str(c.server), !!caPem || !!certPem || insecure) };
  if (str(c['proxy-url'])) connection.proxyUrl = str(c['proxy-url']);
  if (c['disable-compression'] === true) connection.disableCompression = true;
  if (str(context.namespace)) connection.namespace = str(context.namespace);
  if (str(user.as)) {
    const groups = (user['as-groups'] as string[] | undefined) ?? [];
    const extra = (user['as-user-extra'] ?? {}) as Record<string, string[]>;
    connection.impersonate = { user: str(user.as), ...(str(user['as-uid']) ? { uid: str(user['as-uid']) } : {}), ...(groups.length ? { groups } : {}), ...(Object.keys(extra).length ? { extra } : {}) };
  }
  // client-go reads neither the server's identity nor the user's credentials for a plain-http server.
  if (!connection.server.startsWith('https:')) return connection;

  if (caPem) {
    if (insecure) throw new Error('specifying a root certificates file with the insecure flag is not allowed');
    checkCaBundle(caPem);
    connection.caPem = caPem;
  }
  if (insecure) connection.insecureSkipTlsVerify = true;
  if (str(c['tls-server-name'])) connection.tlsServerName = str(c['tls-server-name']);
  const extension = (c.extensions as Map<string, unknown> | undefined)?.get(EXEC_EXTENSION);
  if (extension !== undefined) connection.execClusterConfig = extension;

  if (certPem) {
    try {
      checkKeyPair(certPem, keyPem);
    } catch (err) {
      throw new Error(`unable to load client certificate of ${userName}: ${(err as Error).message}`);
    }
    connection.clientCertPem = certPem;
    connection.clientKeyPem = keyPem;
  }
  if (str(user.token)) connection.token = str(user.token);
  if (str(user.tokenFile)) {
    connection.tokenFile = resolve(str(user.tokenFile));
    // Read now, as client-go does when the token is not inline: a missing file is an error at load.
    connection.token ??= readFileSync(connection.tokenFile, 'utf8').trim();
  }
  if (str(user.username) || str(user.password)) Object.assign(connection, { username: str(user.username), password: str(user.password) });
  if (user['auth-provider'] != null) throw new Error(`no Auth Provider found for name "${str((user['auth-provider'] as Fields).name)}"`);

  const exec = user.exec as Fields | undefined;
  const staticCredentials = connection.token !== undefined || connection.username !== undefined || connection.clientCertPem !== undefined;
  if (exec && !staticCredentials) {
    const apiVersion = str(exec.apiVersion);
    if (!EXEC_API_VERSIONS.includes(apiVersion)) throw new Error(`exec plugin: invalid apiVersion "${apiVersion}"`);
    const command = str(exec.command);
    connection.exec = {
      // Upstream resolves the command against the config's directory only when it is a path, not a name on PATH.
      command: command.includes('/') ? resolve(command) : command,
      args: exec.args as string[],
      env: exec.env as Array<{ name: string; value: string }>,
      apiVersion,
      ...(str(exec.installHint) ? { installHint: cleanControlCharacters(str(exec.installHint)) } : {}),
      provideClusterInfo: exec.provideClusterInfo === true,
      interactiveMode: str(exec.interactiveMode) as InteractiveMode,
    };
  }
  return connection;
}

/** Parses an orchconfig's text and returns the connection of its current (or the named) context. */
export function parseOrchconfig(text: string, options: { context?: string; baseDir?: string } = {}): ClusterConnection {
  return connectionFromDocument(decodeOrchconfig(text), options);
}

/** Loads the connection of the current (or named) context of the orchconfig at `path` (YAML or JSON). */
export function loadOrchconfig(path: string, options: { context?: string } = {}): ClusterConnection {
  let doc: OrchconfigDocument;
  try {
    doc = decodeOrchconfig(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`error loading config file "${path}": ${(err as Error).message}`);
  }
  return connectionFromDocument(doc, { context: options.context, baseDir: dirname(path) });
}
