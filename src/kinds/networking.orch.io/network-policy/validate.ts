/**
 * NetworkPolicy spec validation (SPEC 2.6, FACTS 6.1; translated from upstream
 * kubernetes pkg/apis/networking/validation at the 1.31 line). ObjectMeta is
 * validated by the store (name = DNS subdomain, namespaced).
 *
 * The rules whose upstream words a contract rule gives are the contract's
 * (openapi/kinds/networking.orch.io/NetworkPolicy.yaml): the protocol's
 * values, and a peer that names nothing or an ipBlock beside a selector. What
 * stays here reports the field's value (`Invalid value: 70000: ...`), which a
 * contract rule's error cannot (it names the schema's type), or hangs on
 * another rule (policyTypes' values are checked only when there are at most
 * two).
 */
import { isStrictSubset, parseCIDR } from '../../../registry/validation/cidr.ts';
import {
  type FieldError,
  child,
  goStringSlice,
  index,
  invalid,
  notSupported,
  required,
} from '../../../registry/validation/field-errors.ts';
import { type LabelSelectorValidationOptions, validateLabelSelector } from '../../../registry/validation/label-selector.ts';
import { isValidPortName, isValidPortNum } from '../../../api/names.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

function validatePort(port: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const p = port ?? {};
  const hasEnd = p.endPort !== undefined && p.endPort !== null;
  if (p.port !== undefined && p.port !== null) {
    if (typeof p.port === 'number') {
      for (const m of isValidPortNum(p.port)) errs.push(invalid(child(path, 'port'), p.port, m));
      if (hasEnd) {
        // upstream reports `port`'s value here, not endPort's (networking/validation ValidateNetworkPolicyPort).
        if (p.endPort < p.port) errs.push(invalid(child(path, 'endPort'), p.port, 'must be greater than or equal to `port`'));
        for (const m of isValidPortNum(p.endPort)) errs.push(invalid(child(path, 'endPort'), p.endPort, m));
      }
    } else {
      if (hasEnd) errs.push(invalid(child(path, 'endPort'), p.endPort, 'may not be specified when `port` is non-numeric'));
      for (const m of isValidPortName(str(p.port))) errs.push(invalid(child(path, 'port'), str(p.port), m));
    }
  } else if (hasEnd) {
    errs.push(invalid(child(path, 'endPort'), p.endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

function validateIPBlock(ipb: any, path: string): FieldError[] {
  const cidr = str(ipb?.cidr);
  if (cidr === '') return [required(child(path, 'cidr'))];
  const outer = parseCIDR(cidr);
  if (!outer) return [invalid(child(path, 'cidr'), cidr, 'not a valid CIDR')];
  const errs: FieldError[] = [];
  const except = arr(ipb.except);
  for (let i = 0; i < except.length; i++) {
    const p = index(child(path, 'except'), i);
    const s = str(except[i]);
    const inner = parseCIDR(s);
    if (!inner) {
      errs.push(invalid(p, s, 'not a valid CIDR'));
      return errs;
    }
    if (!isStrictSubset(inner, outer)) errs.push(invalid(p, s, 'must be a strict subset of `cidr`'));
  }
  return errs;
}

/** A peer's selectors and ipBlock; which of them a peer may name is the contract's rule. */
function validatePeer(peer: any, path: string, opts: LabelSelectorValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const p = peer ?? {};
  if (p.podSelector) errs.push(...validateLabelSelector(p.podSelector, child(path, 'podSelector'), opts));
  if (p.namespaceSelector) errs.push(...validateLabelSelector(p.namespaceSelector, child(path, 'namespaceSelector'), opts));
  if (p.ipBlock) errs.push(...validateIPBlock(p.ipBlock, child(path, 'ipBlock')));
  return errs;
}

/** NetworkPolicySpec rules (FACTS 6.1), paths under `path` (default `spec`). */
export function validateNetworkPolicySpec(spec: any, path = 'spec', opts: LabelSelectorValidationOptions = {}): FieldError[] {
  const s = spec ?? {};
  const errs = validateLabelSelector(s.podSelector ?? {}, child(path, 'podSelector'), opts);
  for (const [dir, peersKey] of [['ingress', 'from'], ['egress', 'to']] as const) {
    arr(s[dir]).forEach((rule, i) => {
      const rp = index(child(path, dir), i);
      arr(rule?.ports).forEach((port, j) => errs.push(...validatePort(port, index(child(rp, 'ports'), j))));
      arr(rule?.[peersKey]).forEach((peer, j) => errs.push(...validatePeer(peer, index(child(rp, peersKey), j), opts)));
    });
  }
  const types = arr(s.policyTypes);
  if (types.length > 2) {
    errs.push(invalid(child(path, 'policyTypes'), goStringSlice(types.map(str), '[]networking.PolicyType'), 'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress') errs.push(notSupported(index(child(path, 'policyTypes'), i), t, ['Ingress', 'Egress']));
  });
  return errs;
}

/**
 * NetworkPolicy spec validation (FACTS 6.1). On update, matchExpressions
 * values are not re-checked when the stored podSelector was already invalid.
 */
export function validateNetworkPolicy(obj: any, old?: any): FieldError[] {
  const opts: LabelSelectorValidationOptions = {};
  if (old && validateLabelSelector(old?.spec?.podSelector ?? {}, 'spec.podSelector').length > 0) {
    opts.allowInvalidLabelValueInSelector = true;
  }
  return validateNetworkPolicySpec(obj?.spec, 'spec', opts);
}
