/**
 * Assembles service-account tokens from the flags (SPEC 5.2): keys, issuers
 * and audiences as kube-apiserver validates them. With none of the flags the
 * server makes its own signing key under `<data-dir>/pki`, so `npm start`
 * issues and accepts tokens out of the box.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSigningKey, loadVerificationKeys, verificationKeyOf, type SigningKey, type VerificationKey } from '../auth/serviceaccount/keys.ts';

export interface ServiceAccountFlags {
  issuers: string[];
  signingKeyFile?: string;
  keyFiles: string[];
  apiAudiences: string[];
  maxTokenExpirationMs: number;
  extendTokenExpiration: boolean;
  lookup: boolean;
}

export interface ServiceAccountSettings {
  signing: SigningKey;
  verification: VerificationKey[];
  issuers: string[];
  apiAudiences: string[];
  maxExpirationSeconds: number;
  extendExpiration: boolean;
  lookup: boolean;
}

/** kubeadm's issuer, with the vendor word replaced. */
export const DEFAULT_ISSUER = 'https://orch.default.svc.cluster.local';

export function serviceAccountSettings(flags: ServiceAccountFlags, pkiDir: string): ServiceAccountSettings {
  let signingKeyFile = flags.signingKeyFile;
  let issuers = flags.issuers;
  if (!signingKeyFile && issuers.length === 0) {
    signingKeyFile = join(pkiDir, 'sa.key');
    if (!existsSync(signingKeyFile)) {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      writeFileSync(signingKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    }
    issuers = [DEFAULT_ISSUER];
  }
  if (issuers.length === 0) throw new Error('--service-account-issuer is required with --service-account-signing-key-file');
  if (!signingKeyFile) throw new Error('--service-account-signing-key-file is required with --service-account-issuer');
  for (const issuer of issuers) {
    if (issuer.includes(':') && !/^https:\/\/[^?#]+$/.test(issuer)) {
      throw new Error(`--service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL: URLs must use the https scheme and carry no query or fragment`);
    }
  }
  if (new Set(issuers).size !== issuers.length) throw new Error('--service-account-issuer values must be unique');
  const maxExpirationSeconds = Math.floor(flags.maxTokenExpirationMs / 1000);
  if (maxExpirationSeconds !== 0 && maxExpirationSeconds < 3600) throw new Error('--service-account-max-token-expiration should be at least 1 hour');
  const signing = loadSigningKey(signingKeyFile);
  const verification = [verificationKeyOf(signing), ...flags.keyFiles.flatMap((f) => loadVerificationKeys(f))];
  return {
    signing,
    verification,
    issuers,
    // Upstream: the audiences default to the issuers.
    apiAudiences: flags.apiAudiences.length ? flags.apiAudiences : [...issuers],
    maxExpirationSeconds,
    extendExpiration: flags.extendTokenExpiration,
    lookup: flags.lookup,
  };
}
