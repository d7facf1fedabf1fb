/**
 * ValidateCSINode and ValidateCSINodeUpdate (SPEC 9.7; upstream
 * pkg/apis/storage/validation, 1.31). Paths and words are upstream's.
 */
import { child, duplicate, goRepr, goStringSlice, index, invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';
import { isQualifiedName } from '../../../api/names.ts';
import { FIELD_IMMUTABLE } from '../../../registry/validation/object-meta.ts';
import { nonNegative } from '../../../registry/validation/field-values.ts';
import { validateCSIDriverName } from '../csi-driver/validate.ts';

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Go %#v of an internal CSINodeDriver, which upstream prints when a registered driver changes. */
function csiNodeDriverRepr(driver: any) {
  const keys = Array.isArray(driver.topologyKeys) ? goStringSlice(driver.topologyKeys.map(str)).text : '[]string(nil)';
  const allocatable = driver.allocatable ? '(*storage.VolumeNodeResources)(0xc000000000)' : '(*storage.VolumeNodeResources)(nil)';
  return goRepr(`storage.CSINodeDriver{Name:${JSON.stringify(str(driver.name))}, NodeID:${JSON.stringify(str(driver.nodeID))}, TopologyKeys:${keys}, Allocatable:${allocatable}}`);
}

/**
 * ValidateCSINode: each driver named as a CSI driver, once; a node ID; topology
 * keys qualified names, once each. On update (ValidateCSINodeUpdate) a driver
 * already registered cannot change; drivers may come and go.
 */
export function validateCSINode(node: any, old?: any): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(node.spec?.drivers).forEach((driver, i) => {
    const path = index('spec.drivers', i);
    const name = str(driver?.name);
    errs.push(...validateCSIDriverName(name, child(path, 'name')));
    const nodeID = str(driver?.nodeID);
    if (nodeID === '') errs.push(required(child(path, 'nodeID')));
    // The API's strategy allows the longer node IDs (CSINodeValidationOptions.AllowLongNodeID).
    if (nodeID.length > 256) errs.push(invalid(child(path, 'nodeID'), nodeID, 'must be 256 characters or less'));
    if (typeof driver?.allocatable?.count === 'number') errs.push(...nonNegative(driver.allocatable.count, child(child(path, 'allocatable'), 'count')));
    if (names.has(name)) errs.push(duplicate(child(path, 'name'), name));
    const keys = new Set<string>();
    for (const key of arr(driver?.topologyKeys).map(str)) {
      if (key === '') errs.push(required(path));
      if (keys.has(key)) errs.push(duplicate(path, key));
      keys.add(key);
      errs.push(...isQualifiedName(key).map((m) => invalid(path, key, m)));
    }
    names.add(name);
  });
  for (const was of arr(old?.spec?.drivers)) {
    for (const now of arr(node.spec?.drivers)) {
      if (str(now?.name) === str(was?.name) && !same(now, was)) errs.push(invalid('spec.drivers', csiNodeDriverRepr(now), FIELD_IMMUTABLE));
    }
  }
  return errs;
}
