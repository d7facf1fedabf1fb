/**
 * Credential plugins (SPEC 2.10), as client-go's plugin/pkg/client/auth/exec:
 * the configured command runs with its args and env plus ORCH_EXEC_INFO (an
 * ExecCredential naming whether stdin is interactive and, when asked for, the
 * cluster); its ExecCredential answer must carry the configured apiVersion and
 * a token or a client certificate with its key. Answers are kept until their
 * expirationTimestamp, a 401, or process exit; concurrent callers share one run.
 */
import { spawn } from 'node:child_process';
import type { ClusterConnection, ExecConfig } from './orchconfig.ts';

export interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  /** Milliseconds since the epoch. */
  expiresAt?: number;
}

export interface ExecOptions {
  /** Whether stdin is a terminal the plugin may use (client-go: term.IsTerminal(stdin)). */
  interactive?: boolean;
  /** Bound of one run (client-go has none; a hung plugin must not hang the client). */
  timeoutMs?: number;
  /** The environment the plugin starts from (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
}

const MAX_OUTPUT = 1024 * 1024;

function failure(config: ExecConfig, message: string): Error {
  return new Error(config.installHint ? `${message}\n\n${config.installHint}` : message);
}

/** What the plugin is told (ORCH_EXEC_INFO). */
function execInfo(config: ExecConfig, connection: ClusterConnection, interactive: boolean): string {
  const spec: Record<string, unknown> = { interactive };
  if (config.provideClusterInfo) {
    const cluster: Record<string, unknown> = { server: connection.server };
    if (connection.tlsServerName) cluster['tls-server-name'] = connection.tlsServerName;
    if (connection.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;
    if (connection.caPem) cluster['certificate-authority-data'] = Buffer.from(connection.caPem).toString('base64');
    if (connection.execClusterConfig !== undefined) cluster.config = connection.execClusterConfig;
    spec.cluster = cluster;
  }
  return JSON.stringify({ apiVersion: config.apiVersion, kind: 'ExecCredential', spec });
}

/** Runs the plugin once and validates its answer. */
export async function runPlugin(config: ExecConfig, connection: ClusterConnection, options: ExecOptions = {}): Promise<ExecCredentialStatus> {
  const interactive = options.interactive ?? false;
  if (config.interactiveMode === 'Always' && !interactive) {
    throw failure(config, `exec plugin cannot support interactive mode: standard input is not a terminal`);
  }
  const useStdin = interactive && config.interactiveMode !== 'Never';
  const env = { ...(options.baseEnv ?? process.env) };
  for (const { name, value } of config.env) env[name] = value;
  env.ORCH_EXEC_INFO = execInfo(config, connection, useStdin);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(config.command, config.args, { env, stdio: [useStdin ? 'inherit' : 'ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) child.kill('SIGKILL');
      else chunks.push(chunk);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(failure(config, `exec: executable ${config.command} failed: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(failure(config, `exec: executable ${config.command} failed with exit code ${code ?? signal}`));
    });
  });
  let credential: any;
  try {
    credential = JSON.parse(output);
  } catch {
    throw failure(config, `exec: decoding stdout: not an ExecCredential`);
  }
  if (credential?.apiVersion !== config.apiVersion) {
    throw failure(config, `exec plugin is configured to use API version ${config.apiVersion}, plugin returned version ${credential?.apiVersion}`);
  }
  if (credential.kind !== 'ExecCredential') throw failure(config, `exec: decoding stdout: kind ${credential.kind} is not ExecCredential`);
  const status = credential.status;
  if (!status || typeof status !== 'object') throw failure(config, 'exec plugin didn\'t return a status field');
  const hasCert = !!status.clientCertificateData;
  const hasKey = !!status.clientKeyData;
  if (!status.token && !hasCert && !hasKey) throw failure(config, 'exec plugin didn\'t return a token or cert/key pair');
  if (hasCert !== hasKey) throw failure(config, 'exec plugin returned only certificate or key, not both');
  const result: ExecCredentialStatus = {};
  if (status.token) result.token = String(status.token);
  if (hasCert) {
    result.clientCertificateData = String(status.clientCertificateData);
    result.clientKeyData = String(status.clientKeyData);
  }
  if (status.expirationTimestamp !== undefined) {
    const at = Date.parse(status.expirationTimestamp);
    if (Number.isNaN(at)) throw failure(config, `exec: invalid expirationTimestamp ${JSON.stringify(status.expirationTimestamp)}`);
    result.expiresAt = at;
  }
  return result;
}

/** A plugin's credentials, cached as client-go caches them. */
export class ExecCredentialSource {
  private current: ExecCredentialStatus | undefined;
  private running: Promise<ExecCredentialStatus> | undefined;

  constructor(
    private readonly config: ExecConfig,
    private readonly connection: ClusterConnection,
    private readonly options: ExecOptions = {},
  ) {}

  /** The cached credential while unexpired, else one fresh run shared by every caller. */
  async get(): Promise<ExecCredentialStatus> {
    const cached = this.current;
    if (cached && (cached.expiresAt === undefined || cached.expiresAt > Date.now())) return cached;
    this.running ??= runPlugin(this.config, this.connection, this.options).then(
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

  /** A 401 with these credentials: they are not used again. */
  invalidate(used: ExecCredentialStatus): void {
    if (this.current === used) this.current = undefined;
  }
}
