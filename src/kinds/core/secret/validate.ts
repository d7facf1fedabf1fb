/**
 * ValidateSecret and ValidateSecretUpdate (SPEC 2.6; upstream
 * pkg/apis/core/validation, 1.31, the types renamed): keys and the 1 MiB limit
 * as a ConfigMap's, each type's required keys, `type` immutable.
 */
import { BOOTSTRAP_TOKEN_TYPE, validateBootstrapTokenSecret } from '../../../registry/bootstrap-token.ts';
import { index, invalid, required, tooLong, type FieldError } from '../../../registry/validation/field-errors.ts';
import { goJSONObjectError } from '../../../registry/validation/go-json.ts';
import { isConfigMapKey } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { b64Len, immutableFlagErrors, MAX_DATA_SIZE } from '../config-map/validate.ts';

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Secret (upstream ValidateSecret/Update, renamed types): keys at `data[key]`,
 * total ≤ 1 MiB (TooLong at `data`), per-type required keys, `type`
 * immutable, `immutable` freezes data. Expects stringData already merged.
 */
export function validateSecret(obj: any, old?: any): FieldError[] {
  const errs: FieldError[] = [];
  if (old) {
    if (str(obj?.type) !== str(old.type)) errs.push(invalid('type', str(obj?.type), FIELD_IMMUTABLE));
    errs.push(...immutableFlagErrors(obj, old, ['data']));
  }
  const data: Record<string, unknown> = isObj(obj?.data) ? obj.data : {};
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const m of isConfigMapKey(k)) errs.push(invalid(index('data', k), k, m));
    total += b64Len(v);
  }
  if (total > MAX_DATA_SIZE) errs.push(tooLong('data', '', MAX_DATA_SIZE));
  const has = (k: string) => Object.hasOwn(data, k);
  const key = (k: string) => index('data', k);
  switch (str(obj?.type)) {
    case BOOTSTRAP_TOKEN_TYPE:
      errs.push(...validateBootstrapTokenSecret(obj));
      break;
    case 'orch.io/service-account-token':
      if (!str(obj?.metadata?.annotations?.['orch.io/service-account.name'])) {
        errs.push(required(index('metadata.annotations', 'orch.io/service-account.name')));
      }
      break;
    case 'orch.io/dockercfg':
    case 'orch.io/dockerconfigjson': {
      const k = obj.type === 'orch.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      if (!has(k)) {
        errs.push(required(key(k)));
        break;
      }
      const err = goJSONObjectError(Buffer.from(str(data[k]), 'base64').toString('utf8'));
      if (err) errs.push(invalid(key(k), '<secret contents redacted>', err));
      break;
    }
    case 'orch.io/basic-auth':
      if (!has('username') && !has('password')) errs.push(required(key('username')), required(key('password')));
      break;
    case 'orch.io/ssh-auth':
      if (b64Len(data['ssh-privatekey']) === 0) errs.push(required(key('ssh-privatekey')));
      break;
    case 'orch.io/tls':
      if (!has('tls.crt')) errs.push(required(key('tls.crt')));
      if (!has('tls.key')) errs.push(required(key('tls.key')));
      break;
    default: // Opaque, "", bootstrap.orch.io/token and any other type: no checks
  }
  return errs;
}
