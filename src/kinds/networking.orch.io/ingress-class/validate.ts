/**
 * ValidateIngressClass and its update (SPEC 9.7; upstream
 * pkg/apis/networking/validation, 1.31): a domain-prefixed controller that
 * never changes, parameters as an Ingress's typed reference with a scope.
 */
import { forbidden, invalid, required, tooLong, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isDNS1123Label, isDNS1123Subdomain, regexError } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { validateTypedReference } from '../ingress/validate.ts';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const has = (v: unknown): boolean => v !== undefined && v !== null;
const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`);

/** IsDomainPrefixedPath: `host/path` with a DNS subdomain host. */
function domainPrefixedPath(value: string, path: string): FieldError[] {
  if (value === '') return [required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((m) => invalid(path, host, m));
  if (!HTTP_PATH_RE.test(rest)) errs.push(invalid(path, rest, regexError('Invalid path', HTTP_PATH_FMT)));
  return errs;
}

/** ValidateIngressClass, and on update the immutable controller. */
export function validateIngressClass(ic: any, old?: any): FieldError[] {
  const spec = ic.spec ?? {};
  const controller = str(spec.controller);
  const errs: FieldError[] = [];
  if (old && controller !== str(old.spec?.controller)) errs.push(invalid('spec.controller', controller, FIELD_IMMUTABLE));
  if (controller.length > 250) errs.push(tooLong('spec.controller', controller, 250));
  errs.push(...domainPrefixedPath(controller, 'spec.controller'));
  const params = spec.parameters;
  if (has(params)) {
    errs.push(...validateTypedReference(params, 'spec.parameters'));
    // The scope's values are the contract's (IngressClass.yaml); the namespace follows a valid one only.
    if (!has(params.scope)) errs.push(required('spec.parameters.scope'));
    else if (params.scope === 'Namespace') {
      if (!has(params.namespace)) errs.push(required('spec.parameters.namespace', "`parameters.scope` is set to 'Namespace'"));
      else errs.push(...isDNS1123Label(params.namespace).map((m) => invalid('spec.parameters.namespace', params.namespace, m)));
    } else if (params.scope === 'Cluster' && has(params.namespace)) errs.push(forbidden('spec.parameters.namespace', "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}
