/**
 * core/v1 Event validation (SPEC 9.7; upstream pkg/apis/core/validation
 * legacyValidateEvent, 1.31), the rules every Event meets: events.orch.io/v1
 * adds its strict ones (src/kinds/events.orch.io/event).
 */
import { invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isDNS1123Subdomain, isQualifiedName } from '../../../api/names.ts';

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const isZeroTime = (v: unknown) => v === undefined || v === null || v === '' || str(v).startsWith('0001-01-01T00:00:00');
const bytes = (v: unknown) => Buffer.byteLength(str(v), 'utf8');

/**
 * core/v1 Event (upstream legacyValidateEvent; ValidateEventCreate/Update for
 * the core group run only this). Without eventTime, involvedObject.namespace
 * must equal metadata.namespace (empty allowed with "" or `default`); with
 * eventTime, empty involvedObject.namespace needs namespace `default` or
 * `orch-system`, and reportingController (JSON `reportingComponent`),
 * reportingInstance, action, reason are required and length-limited.
 * metadata.namespace must be a DNS-1123 subdomain (path `namespace`).
 * Left out: the strict events.orch.io/v1 rules (series, type, unset legacy
 * fields, update immutables) and ObjectMeta, which upstream does not check
 * for core/v1 events at all.
 */
export function validateEvent(obj: any, _old?: any): FieldError[] {
  const errs: FieldError[] = [];
  const e = obj ?? {};
  const ns = str(e.metadata?.namespace);
  const ioNs = str(e.involvedObject?.namespace);
  const ioPath = 'involvedObject.namespace';
  if (isZeroTime(e.eventTime)) {
    if (ioNs === '' ? ns !== '' && ns !== 'default' : ns !== ioNs) errs.push(invalid(ioPath, ioNs, 'does not match event.namespace'));
  } else {
    if (ioNs === '' && ns !== 'default' && ns !== 'orch-system') errs.push(invalid(ioPath, ioNs, 'does not match event.namespace'));
    const rc = str(e.reportingComponent);
    if (!rc) errs.push(required('reportingController'));
    for (const m of isQualifiedName(rc)) errs.push(invalid('reportingController', rc, m));
    const limited: Array<[string, unknown, number, boolean]> = [
      ['reportingInstance', e.reportingInstance, 128, true],
      ['action', e.action, 128, true],
      ['reason', e.reason, 128, true],
      ['message', e.message, 1024, false],
    ];
    for (const [f, v, max, req] of limited) {
      if (req && !str(v)) errs.push(required(f));
      if (bytes(v) > max) errs.push(invalid(f, '', `can have at most ${max} characters`));
    }
  }
  for (const m of isDNS1123Subdomain(ns)) errs.push(invalid('namespace', ns, m));
  return errs;
}
