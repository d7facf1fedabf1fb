/**
 * The parts of a CRD spec validated on their own (SPEC 9.7; upstream
 * apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go and
 * apiserver pkg/util/webhook/validation.go): names, printer columns,
 * selectable fields, subresources, conversion and its webhook, deprecation warnings.
 */
import { X509Certificate } from 'node:crypto';
import { child, duplicate, forbidden, goRepr, goStringSlice, index, invalid, notSupported, required, tooMany, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum } from '../../../api/names.ts';
import { parseUrl } from '../../../cel/go-url.ts';
import { validFieldPath, FieldPathError } from '../../../registry/schema/field-path.ts';
import type { Structural } from '../../../registry/schema/structural.ts';
import type { InternalConversion } from './internal.ts';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const MAX_SELECTABLE_FIELDS = 8;

/** Upstream ValidateCustomResourceDefinitionNames (spec.names and status.acceptedNames). */
export function validateNames(names: Record<string, any>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (field: string, value: string, lower: boolean) => {
    const msgs = isDNS1035Label(lower ? value.toLowerCase() : value);
    if (value && msgs.length > 0) errs.push(invalid(child(path, field), value, (lower ? 'may have mixed case, but should otherwise match: ' : '') + msgs.join(',')));
  };
  label('plural', str(names.plural), false);
  label('singular', str(names.singular), false);
  label('kind', str(names.kind), true);
  label('listKind', str(names.listKind), true);
  (Array.isArray(names.shortNames) ? names.shortNames : []).forEach((s: unknown, i: number) => {
    const msgs = isDNS1035Label(str(s));
    if (msgs.length > 0) errs.push(invalid(index(child(path, 'shortNames'), i), str(s), msgs.join(',')));
  });
  if (str(names.kind) && names.kind === names.listKind) errs.push(invalid(child(path, 'listKind'), names.listKind, 'kind and listKind may not be the same'));
  (Array.isArray(names.categories) ? names.categories : []).forEach((c: unknown, i: number) => {
    const msgs = isDNS1035Label(str(c));
    if (msgs.length > 0) errs.push(invalid(index(child(path, 'categories'), i), str(c), msgs.join(',')));
  });
  return errs;
}

/** Upstream validateSimpleJSONPath. */
export function validateSimpleJSONPath(s: string, path: string): FieldError[] {
  if (!s) return [invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

/** Upstream ValidateCustomResourceColumnDefinition. */
export function validateColumn(col: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(col?.type);
  const format = str(col?.format);
  const jsonPath = str(col?.jsonPath);
  if (!str(col?.name)) errs.push(required(child(path, 'name')));
  const oneOf = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (!type) errs.push(required(child(path, 'type'), oneOf));
  else if (!PRINTER_COLUMN_TYPES.includes(type)) errs.push(invalid(child(path, 'type'), type, oneOf));
  if (format && !COLUMN_FORMATS.includes(format)) errs.push(invalid(child(path, 'format'), format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  if (!jsonPath) errs.push(required(child(path, 'JSONPath')));
  else errs.push(...validateSimpleJSONPath(jsonPath, child(path, 'JSONPath')));
  return errs;
}

/** Upstream ValidateCustomResourceDefinitionSubresources. */
export function validateSubresources(sub: Record<string, any> | undefined, path: string): FieldError[] {
  const scale = sub?.scale;
  if (!scale || typeof scale !== 'object') return [];
  const errs: FieldError[] = [];
  const check = (field: string, prefix: string, what: string) => {
    const value = str(scale[field]);
    const p = child(path, `scale.${field}`);
    if (!value) return errs.push(required(p));
    const pathErrs = validateSimpleJSONPath(value, p);
    if (pathErrs.length > 0) errs.push(...pathErrs);
    else if (!value.startsWith(prefix)) errs.push(invalid(p, value, `should be a json path under ${what}`));
  };
  check('specReplicasPath', '.spec.', '.spec');
  check('statusReplicasPath', '.status.', '.status');
  const selector = str(scale.labelSelectorPath);
  if (selector) {
    const p = child(path, 'scale.labelSelectorPath');
    const pathErrs = validateSimpleJSONPath(selector, p);
    if (pathErrs.length > 0) errs.push(...pathErrs);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) errs.push(invalid(p, selector, 'should be a json path under either .spec or .status'));
  }
  return errs;
}

/** Upstream ValidateCustomResourceSelectableFields. */
export function validateSelectableFields(fields: any[], schema: Structural | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Set<string>();
  fields.forEach((f, i) => {
    const jsonPath = str(f?.jsonPath);
    const p = child(index(path, i), 'jsonPath');
    if (!jsonPath) return errs.push(required(p));
    let resolved;
    try {
      resolved = validFieldPath(jsonPath, schema, false);
    } catch (err) {
      if (!(err instanceof FieldPathError)) throw err;
      return errs.push(invalid(p, jsonPath, `is an invalid path: ${err.message}`));
    }
    if (resolved.root === 'metadata') errs.push(invalid(p, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(resolved.schema?.type ?? '')) {
      errs.push(invalid(p, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (unique.has(resolved.path)) errs.push(duplicate(p, jsonPath));
    else unique.add(resolved.path);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) errs.push(tooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

/** Upstream validateDeprecationWarning: the messages for one version's warning. */
export function deprecationWarningErrors(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const errs: string[] = [];
  if (Buffer.byteLength(warning) > 256) errs.push('must be <= 256 characters long');
  if (warning.length === 0) errs.push('must not be an empty string');
  let byteIndex = 0;
  for (const ch of warning) {
    if (/^[\p{Cc}]$/u.test(ch)) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${byteIndex}`);
      break;
    }
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${byteIndex}`);
      break;
    }
    byteIndex += Buffer.byteLength(ch);
  }
  return errs;
}

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

function conversionReviewVersionErrors(versions: string[] | undefined, requireRecognized: boolean, path: string): FieldError[] {
  if (!versions || versions.length < 1) return [required(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) return errs.push(invalid(index(path, i), v, 'duplicate version'));
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(invalid(index(path, i), v, msg));
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(invalid(path, goStringSlice(versions), `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

/** Whether a list of conversion review versions names a recognized one, or is empty. */
export function hasValidConversionReviewVersionOrEmpty(versions: string[] | undefined): boolean {
  return !versions || versions.length === 0 || versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v));
}

/** Upstream webhook.ValidateCABundle: the base64-decoded bundle must hold parseable certificates. */
export function caBundleError(caBundle: string): string | undefined {
  const pem = Buffer.from(caBundle, 'base64').toString('latin1');
  const blocks = pem.match(/-----BEGIN ([^-]+)-----[\s\S]*?-----END \1-----/g);
  if (!blocks) return 'unable to load root certificates: unable to parse bytes as PEM block';
  let parsed = false;
  for (const block of blocks) {
    if (!block.startsWith('-----BEGIN CERTIFICATE-----')) continue;
    try {
      new X509Certificate(block);
      parsed = true;
    } catch (err) {
      return `unable to load root certificates: failed to parse certificate: ${(err as Error).message}`;
    }
  }
  return parsed ? undefined : 'unable to load root certificates: no valid certificate authority data seen';
}

function webhookURLErrors(url: string, path: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  let u;
  try {
    u = parseUrl(url);
  } catch (err) {
    return [required(path, `url must be a valid URL: ${(err as Error).message}${form}`)];
  }
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(invalid(path, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (!u.host) errs.push(invalid(path, u.host, `host must be specified${form}`));
  if (u.user) errs.push(invalid(path, u.user.username.toString('utf8') + (u.user.password ? ':' + u.user.password.toString('utf8') : ''), 'user information is not permitted in the URL'));
  if (u.fragment.length > 0) errs.push(invalid(path, u.fragment.toString('utf8'), 'fragments are not permitted in the URL'));
  if (u.rawQuery) errs.push(invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/** Upstream ValidateWebhookService, called with name and namespace swapped as the CRD validation does. */
function webhookServiceErrors(namespace: string, name: string, urlPath: string | undefined, port: number, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!name) errs.push(required(child(path, 'name'), 'service name is required'));
  if (!namespace) errs.push(required(child(path, 'namespace'), 'service namespace is required'));
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(invalid(child(path, 'port'), port, 'port is not valid: ' + portErrs.join(', ')));
  if (urlPath === undefined || urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') return [...errs, invalid(child(path, 'path'), urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(invalid(child(path, 'path'), urlPath, "must start with a '/'"));
  let rest = urlPath.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (!step) return errs.push(invalid(child(path, 'path'), urlPath, `segment[${i}] may not be empty`));
    for (const failure of isDNS1123Subdomain(step)) errs.push(invalid(child(path, 'path'), urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

/** Upstream validateCustomResourceConversion on the internal conversion. */
export function validateConversion(c: InternalConversion | undefined, requireRecognized: boolean, allowInvalidCABundle: boolean, path: string): FieldError[] {
  if (!c) return [];
  const errs: FieldError[] = [];
  if (!c.strategy) errs.push(required(child(path, 'strategy')));
  else if (c.strategy !== 'None' && c.strategy !== 'Webhook') errs.push(notSupported(child(path, 'strategy'), c.strategy, ['None', 'Webhook']));
  const ccPath = child(path, 'webhookClientConfig');
  if (c.strategy === 'Webhook') {
    const cc = c.webhookClientConfig;
    if (!cc) errs.push(required(ccPath, 'required when strategy is set to Webhook'));
    else {
      const hasUrl = typeof cc.url === 'string';
      const service = cc.service && typeof cc.service === 'object' ? cc.service : undefined;
      if (hasUrl === !!service) errs.push(required(ccPath, 'exactly one of url or service is required'));
      else if (hasUrl) errs.push(...webhookURLErrors(cc.url, child(ccPath, 'url')));
      else errs.push(...webhookServiceErrors(str(service.name), str(service.namespace), typeof service.path === 'string' ? service.path : undefined, typeof service.port === 'number' ? service.port : 443, child(ccPath, 'service')));
      if (typeof cc.caBundle === 'string' && cc.caBundle && !allowInvalidCABundle) {
        const why = caBundleError(cc.caBundle);
        if (why) errs.push(invalid(child(ccPath, 'caBundle'), goRepr(`[]byte{${[...Buffer.from(cc.caBundle, 'base64')].map((b) => '0x' + b.toString(16)).join(', ')}}`), why));
      }
    }
    errs.push(...conversionReviewVersionErrors(c.conversionReviewVersions, requireRecognized, child(path, 'conversionReviewVersions')));
  } else {
    if (c.webhookClientConfig) errs.push(forbidden(ccPath, 'should not be set when strategy is not set to Webhook'));
    if ((c.conversionReviewVersions?.length ?? 0) > 0) errs.push(forbidden(child(path, 'conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}
