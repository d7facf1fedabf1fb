/**
 * ValidateCSIDriver and ValidateCSIDriverUpdate (SPEC 9.7; upstream
 * pkg/apis/storage/validation, 1.31), and the CSI driver name every storage
 * kind that names a driver validates with. Paths and words are upstream's.
 */
import { child, duplicate, goStringSlice, index, invalid, notSupported, required, tooLong, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isDNS1123Subdomain } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** ValidateCSIDriverName: required, at most 63 characters, a DNS subdomain once lower-cased. */
export function validateCSIDriverName(name: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (name === '') errs.push(required(path));
  if (name.length > 63) errs.push(tooLong(path, name, 63));
  errs.push(...isDNS1123Subdomain(name.toLowerCase()).map((m) => invalid(path, name, m)));
  return errs;
}

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
// Upstream lists them in this order, not sorted.

const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];

/** validateCSIDriverSpec, and on update ValidateCSIDriverUpdate's immutable attachRequired and volumeLifecycleModes (the name is ObjectMeta's, a DNS subdomain). */
export function validateCSIDriver(driver: any, old?: any): FieldError[] {
  const spec = driver.spec ?? {};
  const errs: FieldError[] = [];
  // The path says attachedRequired, as upstream's does.
  for (const [key, path] of [['attachRequired', 'attachedRequired'], ['podInfoOnMount', 'podInfoOnMount'], ['storageCapacity', 'storageCapacity']]) {
    if (typeof spec[key] !== 'boolean') errs.push(required(`spec.${path}`));
  }
  if (spec.fsGroupPolicy !== undefined && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy)) errs.push(notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  const audiences = new Set<string>();
  arr(spec.tokenRequests).forEach((t, i) => {
    const path = index('spec.tokenRequests', i);
    const audience = str(t?.audience);
    if (audiences.has(audience)) {
      errs.push(duplicate(child(path, 'audience'), audience));
      return;
    }
    audiences.add(audience);
    if (typeof t?.expirationSeconds === 'number') {
      if (t.expirationSeconds < 600) errs.push(invalid(child(path, 'expirationSeconds'), t.expirationSeconds, 'may not specify a duration less than 10 minutes'));
      if (t.expirationSeconds > 2 ** 32) errs.push(invalid(child(path, 'expirationSeconds'), t.expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
    }
  });
  for (const mode of arr(spec.volumeLifecycleModes)) if (!LIFECYCLE_MODES.includes(mode)) errs.push(notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
  if (typeof spec.seLinuxMount !== 'boolean') errs.push(required('spec.seLinuxMount'));
  if (old) {
    const was = old.spec ?? {};
    if (spec.attachRequired !== was.attachRequired) errs.push(invalid('spec.attachedRequired', spec.attachRequired ?? null, FIELD_IMMUTABLE));
    if (!same(spec.volumeLifecycleModes, was.volumeLifecycleModes)) {
      errs.push(invalid('spec.volumeLifecycleModes', goStringSlice(arr(spec.volumeLifecycleModes), '[]storage.VolumeLifecycleMode'), FIELD_IMMUTABLE));
    }
  }
  return errs;
}
