/**
 * The admin credentials written on start: a bearer token in system:masters and
 * `<data-dir>/admin.orchconfig`, a kubeconfig-format file kubectl reads as is.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { MASTERS_GROUP, type UserInfo } from '../api/user.ts';

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

/**
 * The file as YAML written from a template: every value is a JSON string,
 * which YAML reads as a double-quoted scalar (the yaml package's document
 * builder cost 5 ms of every start).
 */
export function writeOrchconfig(file: string, server: string, caPem: string, token: string): void {
  const q = JSON.stringify;
  const context = `${ADMIN_USER}@orch`;
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: orch',
    '    cluster:',
    `      server: ${q(server)}`,
    `      certificate-authority-data: ${q(Buffer.from(caPem).toString('base64'))}`,
    'users:',
    `  - name: ${q(ADMIN_USER)}`,
    '    user:',
    `      token: ${q(token)}`,
    'contexts:',
    `  - name: ${q(context)}`,
    '    context:',
    '      cluster: orch',
    `      user: ${q(ADMIN_USER)}`,
    `current-context: ${q(context)}`,
    'preferences: {}',
    '',
  ].join('\n');
  writeFileSync(file, text, { mode: 0o600 });
}
