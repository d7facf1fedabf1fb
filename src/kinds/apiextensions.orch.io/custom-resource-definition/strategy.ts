/**
 * CustomResourceDefinition (SPEC 9.7): upstream 1.31's defaults
 * (apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go), strategy
 * (pkg/registry/customresourcedefinition/strategy.go) and validation
 * (validate*.ts). The store applies the status subresource's reset of
 * status on main-resource writes.
 *
 * Upstream 1.31 gives no warnings on create or update (the warnings for
 * unrecognized formats and non-scalar set items came in 1.34 and 1.37), so
 * this strategy gives none either.
 */
import type { ApiObject, Strategy } from '../../../registry/strategy.ts';
import { semanticEqual } from './internal.ts';
import { validateCRD, validateCRDStatusUpdate, validateCRDUpdate } from './validate.ts';

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The name of the first version marked as storage, if any. */
function storageVersion(crd: ApiObject): string | undefined {
  const versions = Array.isArray(crd.spec?.versions) ? crd.spec.versions : [];
  return versions.find((v: any) => v?.storage === true)?.name;
}

/** SetObjectDefaults_CustomResourceDefinition. */
export function defaultCRD(crd: ApiObject): void {
  if (!isObject(crd.spec)) crd.spec = {};
  const spec = crd.spec;
  if (!isObject(spec.names)) spec.names = {};
  const names = spec.names;
  const kind = typeof names.kind === 'string' ? names.kind : '';
  if (!names.singular) names.singular = kind.toLowerCase();
  if (!names.listKind && kind) names.listKind = `${kind}List`;
  if (!isObject(spec.conversion)) spec.conversion = { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (isObject(service) && service.port === undefined) service.port = 443;
  fillStoredVersions(crd);
}

/** SetDefaults_CustomResourceDefinition's storedVersions: the storage version when there are none. */
function fillStoredVersions(crd: ApiObject): void {
  if (!isObject(crd.status)) crd.status = {};
  if (Array.isArray(crd.status.storedVersions) && crd.status.storedVersions.length > 0) return;
  const storage = storageVersion(crd);
  if (storage !== undefined) crd.status.storedVersions = [storage];
}

/** Appends the storage version to status.storedVersions when it is not there (PrepareForCreate/Update). */
function recordStorageVersion(crd: ApiObject): void {
  const storage = storageVersion(crd);
  if (storage === undefined) return;
  const stored: string[] = Array.isArray(crd.status.storedVersions) ? crd.status.storedVersions : [];
  if (!stored.includes(storage)) crd.status.storedVersions = [...stored, storage];
}

export const strategy: Strategy = {
  applyDefaults: defaultCRD,
  prepareForCreate(crd) {
    crd.status = { acceptedNames: { plural: '', kind: '' } };
    crd.metadata.generation = 1;
    recordStorageVersion(crd);
  },
  prepareForUpdate(crd, old) {
    // withStatusReset has put the stored status back; it is old's own object.
    crd.status = structuredClone(old.status ?? {});
    const generation = old.metadata.generation ?? 0;
    crd.metadata.generation = semanticEqual(crd.spec, old.spec) ? generation : generation + 1;
    recordStorageVersion(crd);
  },
  validate: validateCRD,
  validateUpdate: validateCRDUpdate,
  validateStatusUpdate: (crd) => validateCRDStatusUpdate(crd),
  prepareForStatusUpdate(crd) {
    // Upstream defaults the decoded status body before the spec is replaced.
    crd.status = isObject(crd.status) ? crd.status : {};
    fillStoredVersions(crd);
  },
};
