/**
 * Credential plugins (SPEC 2.10), as client-go's plugin/pkg/client/auth/exec:
 * the configured command runs with its args, the process environment plus its
 * env, and ORCH_EXEC_INFO (an ExecCredential saying whether stdin is
 * interactive and, when asked for, the cluster); stdin is given only when
 * interactive. Its ExecCredential answer must carry the configured apiVersion
 * and a token or a client certificate with its key. Answers are kept until
 * their expirationTimestamp, a 401 with them, or process exit; one run at a
 * time per plugin configuration, shared by every caller.
 */
import { spawn } from 'node:child_process';
import { yaml } from '../util/lazy-packages.ts';
import { EXEC_API_VERSIONS } from './orchconfig-document.ts';
import { checkKeyPair, type ClusterConnection, type ExecConfig } from './orchconfig.ts';

export const EXEC_INFO_ENV = 'ORCH_EXEC_INFO';

export interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  /** Milliseconds since the epoch. */
  expiresAt?: number;
}

export interface ExecOptions {
  /** Whether stdin is a terminal the plugin may use (default: process.stdin.isTTY, client-go's term.IsTerminal). */
  stdinIsTerminal?: boolean;
  /** Bound of one run (client-go has none; a hung plugin must not hang the client). Default 60 s, 10 min when interactive. */
  timeoutMs?: number;
}

/** spec.cluster as client-go's ConfigToExecCluster fills it (keys and order of its JSON). */
export interface ExecCluster {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  config?: unknown;
}

const MAX_OUTPUT = 1024 * 1024;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const INSTALL_HELP = '\n\nIt looks like you are trying to use a credential plugin that is not installed.';

export function execCluster(connection: ClusterConnection): ExecCluster {
  const cluster: ExecCluster = { server: connection.server };
  if (connection.tlsServerName) cluster['tls-server-name'] = connection.tlsServerName;
  if (connection.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;
  if (connection.caPem) cluster['certificate-authority-data'] = Buffer.from(connection.caPem).toString('base64');
  if (connection.proxyUrl) cluster['proxy-url'] = connection.proxyUrl;
  if (connection.disableCompression) cluster['disable-compression'] = true;
  if (connection.execClusterConfig !== undefined) cluster.config = connection.execClusterConfig;
  return cluster;
}

/** client-go's isInteractive: whether the plugin gets stdin, or why it cannot run. */
function interactive(config: ExecConfig, stdinIsTerminal: boolean): boolean {
  switch (config.interactiveMode) {
    case 'Never':
      return false;
    case 'IfAvailable':
      return stdinIsTerminal;
    case 'Always':
      if (!stdinIsTerminal) throw new Error('exec plugin cannot support interactive mode: standard input is not a terminal');
      return true;
    default:
      throw new Error(`exec plugin cannot support interactive mode: unknown interactiveMode: "${String(config.interactiveMode)}"`);
  }
}

/** What one run printed, or why it failed, in client-go's words (the install hint only when the command is missing). */
function execute(config: ExecConfig, env: NodeJS.ProcessEnv, useStdin: boolean, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(config.command, config.args, { env, stdio: [useStdin ? 'inherit' : 'ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let failure: Error | undefined;
    const stop = (err: Error) => {
      failure ??= err;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(new Error(`exec: executable ${config.command} did not finish within ${timeoutMs} ms`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) stop(new Error(`exec: executable ${config.command} wrote more than ${MAX_OUTPUT} bytes`));
      else chunks.push(chunk);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT' || err.code === 'EACCES') {
        reject(new Error(`exec: executable ${config.command} not found${INSTALL_HELP}${config.installHint ? `\n\n${config.installHint}` : ''}`));
      } else reject(new Error(`exec: ${err.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failure) reject(failure);
      else if (code === 0) resolve(Buffer.concat(chunks).toString('utf8'));
      // Go's ExitCode() is -1 for a process ended by a signal.
      else reject(new Error(`exec: executable ${config.command} failed with exit code ${code ?? -1}`));
    });
  });
}

/** Decodes and checks a plugin's answer as client-go's refreshCredsLocked (JSON, or YAML as its universal decoder reads). */
export function decodeCredential(config: ExecConfig, output: string): ExecCredentialStatus {
  let credential: any;
  try {
    credential = JSON.parse(output);
  } catch (jsonError) {
    try {
      credential = yaml().parse(output, { maxAliasCount: 100 });
    } catch {
      credential = undefined;
    }
    if (!credential || typeof credential !== 'object') throw new Error(`decoding stdout: couldn't get version/kind; json parse error: ${(jsonError as Error).message}`);
  }
  if (!credential || typeof credential !== 'object' || Array.isArray(credential)) throw new Error('decoding stdout: couldn\'t get version/kind; json parse error: not an object');
  const { apiVersion, kind } = credential;
  if (!kind) throw new Error('decoding stdout: Object \'Kind\' is missing');
  if (typeof apiVersion !== 'string' || !EXEC_API_VERSIONS.includes(apiVersion) || kind !== 'ExecCredential') {
    throw new Error(`decoding stdout: no kind "${String(kind)}" is registered for version "${String(apiVersion ?? '')}" in scheme`);
  }
  if (apiVersion !== config.apiVersion) throw new Error(`exec plugin is configured to use API version ${config.apiVersion}, plugin returned version ${apiVersion}`);
  const status = credential.status;
  if (status == null) throw new Error('exec plugin didn\'t return a status field');
  if (typeof status !== 'object' || Array.isArray(status)) throw new Error('decoding stdout: status: expected an object');
  for (const field of ['token', 'clientCertificateData', 'clientKeyData', 'expirationTimestamp']) {
    if (status[field] != null && typeof status[field] !== 'string') throw new Error(`decoding stdout: status.${field}: expected a string`);
  }
  const token: string = status.token ?? '';
  const cert: string = status.clientCertificateData ?? '';
  const key: string = status.clientKeyData ?? '';
  if (!token && !cert && !key) throw new Error('exec plugin didn\'t return a token or cert/key pair');
  if (!cert !== !key) throw new Error('exec plugin returned only certificate or key, not both');
  const result: ExecCredentialStatus = {};
  if (status.expirationTimestamp != null) {
    if (!RFC3339.test(status.expirationTimestamp) || Number.isNaN(Date.parse(status.expirationTimestamp))) {
      throw new Error(`decoding stdout: parsing time "${status.expirationTimestamp}" as RFC 3339: not a valid time`);
    }
    result.expiresAt = Date.parse(status.expirationTimestamp);
  }
  if (token) result.token = token;
  if (cert) {
    try {
      checkKeyPair(cert, key);
    } catch (err) {
      throw new Error(`failed parsing client key/certificate: ${(err as Error).message}`);
    }
    result.clientCertificateData = cert;
    result.clientKeyData = key;
  }
  return result;
}

/** Runs the plugin once and validates its answer. */
export async function runPlugin(config: ExecConfig, cluster: ExecCluster, options: ExecOptions = {}): Promise<ExecCredentialStatus> {
  const useStdin = interactive(config, options.stdinIsTerminal ?? process.stdin.isTTY === true);
  const spec = config.provideClusterInfo ? { cluster, interactive: useStdin } : { interactive: useStdin };
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const { name, value } of config.env) env[name] = value;
  env[EXEC_INFO_ENV] = JSON.stringify({ kind: 'ExecCredential', apiVersion: config.apiVersion, spec });
  const output = await execute(config, env, useStdin, options.timeoutMs ?? (useStdin ? 600_000 : 60_000));
  return decodeCredential(config, output);
}

/** A plugin's credentials, cached as client-go's Authenticator caches them. */
export class ExecCredentialSource {
  private current: ExecCredentialStatus | undefined;
  private running: Promise<ExecCredentialStatus> | undefined;

  constructor(
    private readonly config: ExecConfig,
    private readonly cluster: ExecCluster,
    private readonly options: ExecOptions = {},
  ) {}

  private fresh(status: ExecCredentialStatus | undefined): status is ExecCredentialStatus {
    return !!status && (status.expiresAt === undefined || status.expiresAt > Date.now());
  }

  /** One run at a time: callers arriving during a run wait for it. */
  private run(): Promise<ExecCredentialStatus> {
    this.running ??= runPlugin(this.config, this.cluster, this.options).then(
      (status) => {
        this.current = status;
        this.running = undefined;
        return status;
      },
      (err) => {
        this.running = undefined;
        throw err;
      },
    );
    return this.running;
  }

  /** The cached credential while unexpired, else the result of a (shared) run. */
  async get(): Promise<ExecCredentialStatus> {
    if (this.running) {
      try {
        return await this.running;
      } catch (err) {
        // A failed refresh leaves the credentials in hand, as upstream keeps cachedCreds.
        if (this.fresh(this.current)) return this.current;
        throw err;
      }
    }
    return this.fresh(this.current) ? this.current : this.run();
  }

  /**
   * A 401 answered a request made with `used`: run the plugin again unless the
   * credentials were rotated meanwhile (client-go's maybeRefreshCreds).
   */
  async refreshAfterUnauthorized(used: ExecCredentialStatus): Promise<void> {
    // A run under way rotates them already.
    if (this.running) await this.running;
    else if (this.current === used) await this.run();
  }
}

const sources = new Map<string, ExecCredentialSource>();

/**
 * The source for a plugin configuration and cluster, shared process-wide as
 * client-go's global authenticator cache shares it: clients made from the same
 * orchconfig run the plugin once.
 */
export function execCredentialSource(config: ExecConfig, cluster: ExecCluster, options: ExecOptions = {}): ExecCredentialSource {
  const key = JSON.stringify([config, cluster, options]);
  let source = sources.get(key);
  if (!source) sources.set(key, (source = new ExecCredentialSource(config, cluster, options)));
  return source;
}
