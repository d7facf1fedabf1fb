/**
 * The files a server keeps under --data-dir and makes on its first start: the
 * admin credentials, the service-account key, the CA and serving certificate.
 * Made once by whoever starts first (the process, or the primary before it
 * forks workers, issue 10) and only read afterwards, so every worker of one
 * server serves the same certificate and signs with the same key.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { adminCredentials } from './orchconfig.ts';
import { serviceAccountSettings, type ServiceAccountFlags } from './service-accounts.ts';
import { servingCertificate } from './tls.ts';
import type { StartOptions } from './start-options.ts';

const DEFAULT_SERVICE_ACCOUNT_FLAGS: ServiceAccountFlags = {
  issuers: [],
  keyFiles: [],
  apiAudiences: [],
  maxTokenExpirationMs: 0,
  extendTokenExpiration: true,
  lookup: true,
};

export type ServerFileOptions = Pick<StartOptions, 'dataDir' | 'bindAddress' | 'serviceAccounts' | 'tlsCertFile' | 'tlsPrivateKeyFile' | 'orchconfigCaFile' | 'certDir'>;

export async function prepareServerFiles(options: ServerFileOptions) {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const admin = adminCredentials(join(dataDir, 'admin-token.csv'));
  const pkiDir = join(dataDir, 'pki');
  mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
  const serviceAccounts = serviceAccountSettings(options.serviceAccounts ?? DEFAULT_SERVICE_ACCOUNT_FLAGS, pkiDir);
  const wildcard = options.bindAddress === '0.0.0.0' || options.bindAddress === '::';
  const hosts = ['127.0.0.1', 'localhost', '::1', ...(options.bindAddress && !wildcard ? [options.bindAddress] : [])];
  const clientHost = wildcard ? '127.0.0.1' : options.bindAddress;
  const tls = await servingCertificate({ certDir: options.certDir ? resolve(options.certDir) : pkiDir, hosts, certFile: options.tlsCertFile, keyFile: options.tlsPrivateKeyFile, caFile: options.orchconfigCaFile, clientHost });
  return { dataDir, admin, pkiDir, serviceAccounts, tls, clientHost };
}
