/**
 * ValidateVolumeAttachment(+V1) and ValidateVolumeAttachmentUpdate (SPEC 9.7;
 * upstream pkg/apis/storage/validation, 1.31): the spec is immutable, the
 * status bounded. Paths and words are upstream's.
 */
import { forbidden, goRepr, invalid, required, tooLong, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isDNS1123Subdomain } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { validateCSIDriverName } from '../csi-driver/validate.ts';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Go %#v of the internal VolumeAttachmentSpec, which upstream prints when the spec changes. */
function volumeAttachmentSpecRepr(spec: any) {
  const source = spec?.source ?? {};
  const ptr = (type: string, v: unknown) => `(*${type})(${v === undefined || v === null ? 'nil' : '0xc000000000'})`;
  return goRepr(
    `storage.VolumeAttachmentSpec{Attacher:${JSON.stringify(str(spec?.attacher))}, Source:storage.VolumeAttachmentSource{PersistentVolumeName:${ptr('string', source.persistentVolumeName)}, ` +
      `InlineVolumeSpec:${ptr('core.PersistentVolumeSpec', source.inlineVolumeSpec)}}, NodeName:${JSON.stringify(str(spec?.nodeName))}}`,
  );
}

const MAX_ATTACHED_METADATA_SIZE = 256 * 1024;

/** validateVolumeAttachmentStatus: metadata at most 256 kB, error messages at most 1024 bytes, error codes not negative. */
function validateVolumeAttachmentStatus(status: any): FieldError[] {
  const errs: FieldError[] = [];
  const metadata = status.attachmentMetadata && typeof status.attachmentMetadata === 'object' ? (status.attachmentMetadata as Record<string, string>) : {};
  const size = Object.entries(metadata).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(str(v)), 0);
  if (size > MAX_ATTACHED_METADATA_SIZE) errs.push(tooLong('status.attachmentMetadata', '', MAX_ATTACHED_METADATA_SIZE));
  for (const key of ['attachError', 'detachError']) {
    const error = status[key];
    if (!error || typeof error !== 'object') continue;
    // Upstream reports the metadata limit here, not the 1024 it checks.
    if (Buffer.byteLength(str(error.message)) > 1024) errs.push(tooLong(`status.${key}.message`, '', MAX_ATTACHED_METADATA_SIZE));
    if (typeof error.errorCode === 'number' && error.errorCode < 0) errs.push(invalid(`status.${key}.errorCode`, error.errorCode, 'must be between 0 and 2147483647, inclusive'));
  }
  return errs;
}

/** ValidateVolumeAttachment and ValidateVolumeAttachmentV1; on update the spec is read-only. */
export function validateVolumeAttachment(va: any, old?: any): FieldError[] {
  const spec = va.spec ?? {};
  const source = spec.source ?? {};
  const errs: FieldError[] = [];
  if (str(spec.attacher) === '') errs.push(required('spec.attacher'));
  const hasPV = typeof source.persistentVolumeName === 'string';
  const hasInline = source.inlineVolumeSpec !== undefined && source.inlineVolumeSpec !== null;
  if (!hasPV && !hasInline) errs.push(required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPV && hasInline) errs.push(forbidden('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPV && source.persistentVolumeName === '') errs.push(required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  errs.push(...isDNS1123Subdomain(str(spec.nodeName)).map((m) => invalid('spec.nodeName', str(spec.nodeName), m)));
  errs.push(...validateVolumeAttachmentStatus(va.status ?? {}));
  errs.push(...validateCSIDriverName(str(spec.attacher), 'spec.attacher'));
  if (hasPV) errs.push(...isDNS1123Subdomain(source.persistentVolumeName).map((m) => invalid('spec.source.persistentVolumeName', source.persistentVolumeName, m)));
  if (old && !same(va.spec, old.spec)) errs.push(invalid('spec', volumeAttachmentSpecRepr(va.spec), FIELD_IMMUTABLE));
  return errs;
}
