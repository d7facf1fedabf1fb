/**
 * The admin credentials written on start: a bearer token in system:masters and
 * `<data-dir>/admin.orchconfig`, a kubeconfig-format file kubectl reads as is.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { MASTERS_GROUP, type UserInfo } from '../auth/user.ts';

export const ADMIN_USER = 'orch-admin';

/** Reads the admin token file, or makes one on first start (`token,user,uid,"groups"` as --token-auth-file). */
export function adminCredentials(file: string): { token: string; user: UserInfo } {
  if (!existsSync(file)) {
    const token = randomBytes(32).toString('hex');
    writeFileSync(file, `${token},${ADMIN_USER},${randomUUID()},"${MASTERS_GROUP}"\n`, { mode: 0o600 });
  }
  const [token, name, uid] = readFileSync(file, 'utf8').trim().split(',');
  return { token, user: { name, uid, groups: [MASTERS_GROUP] } };
}

export function writeOrchconfig(file: string, server: string, caPem: string, token: string): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'orch', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: ADMIN_USER, user: { token } }],
    contexts: [{ name: `${ADMIN_USER}@orch`, context: { cluster: 'orch', user: ADMIN_USER } }],
    'current-context': `${ADMIN_USER}@orch`,
    preferences: {},
  };
  writeFileSync(file, stringify(config), { mode: 0o600 });
}
