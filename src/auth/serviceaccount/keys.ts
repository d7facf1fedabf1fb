/**
 * Service-account keys (SPEC 5.2): `--service-account-signing-key-file` signs,
 * every key of `--service-account-key-file` (PEM RSA or ECDSA public keys,
 * private keys or certificates; repeatable) verifies, and so does the signing
 * key's public half, as kube-apiserver loads them (keyutil.ParsePublicKeysPEM).
 */
import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface VerificationKey {
  key: KeyObject;
  /** upstream keyIDFromPublicKey: base64url of SHA-256 over the DER SubjectPublicKeyInfo. */
  kid: string;
  /** The JWS algorithms the key verifies. */
  algorithms: string[];
}

export interface SigningKey {
  key: KeyObject;
  kid: string;
  /** RS256 for RSA; ES256, ES384 or ES512 by curve, as upstream's signer picks. */
  alg: string;
}

export function keyId(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

/** The JWS algorithm a key signs with; other key types are refused as upstream refuses them. */
export function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const alg = { prime256v1: 'ES256', 'P-256': 'ES256', secp384r1: 'ES384', 'P-384': 'ES384', secp521r1: 'ES512', 'P-521': 'ES512' }[curve ?? ''];
    if (alg) return alg;
    throw new Error(`unsupported elliptic curve ${curve}`);
  }
  throw new Error(`unsupported key type ${key.asymmetricKeyType}: service account keys are RSA or ECDSA`);
}

const BLOCK = /-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g;

/** Every public key a PEM file holds; a file without one is an error naming it. */
export function loadVerificationKeys(file: string): VerificationKey[] {
  const text = readFileSync(file, 'utf8');
  const keys: VerificationKey[] = [];
  for (const match of text.matchAll(BLOCK)) {
    const [pem, type] = match;
    let key: KeyObject;
    if (type === 'CERTIFICATE') key = new X509Certificate(pem).publicKey;
    else if (type.endsWith('PRIVATE KEY')) key = createPublicKey(createPrivateKey(pem));
    else if (type.endsWith('PUBLIC KEY')) key = createPublicKey(pem);
    else continue;
    keys.push({ key, kid: keyId(key), algorithms: [algorithmOf(key)] });
  }
  if (keys.length === 0) throw new Error(`error reading public key file ${file}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

export function loadSigningKey(file: string): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`failed to parse service-account-issuer-key-file: ${(err as Error).message}`);
  }
  return { key, kid: keyId(createPublicKey(key)), alg: algorithmOf(key) };
}

export function verificationKeyOf(signing: SigningKey): VerificationKey {
  const key = createPublicKey(signing.key);
  return { key, kid: signing.kid, algorithms: [signing.alg] };
}
