/** The Table cells of ControllerRevision (SPEC 2.5, 4.7; upstream pkg/printers/internalversion/printers.go printControllerRevision, 1.31). */
import type { components } from '../../../generated/types/apis__apps__v1.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type ControllerRevision = components['schemas']['io.orch.api.apps.v1.ControllerRevision'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** printControllerRevision: `kind.group/name` of the controlling owner (GroupKind.String lower-cased), `<none>` without one. */
function controllerOf(owners: unknown): string {
  const ref = arr(owners).find((o) => o?.controller === true);
  if (!ref) return '<none>';
  const apiVersion = String(ref.apiVersion ?? '');
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = String(ref.kind ?? '');
  const groupKind = group ? `${kind}.${group}` : kind;
  return groupKind ? `${groupKind.toLowerCase()}/${ref.name ?? ''}` : String(ref.name ?? '');
}

export const cells = {
  controllerOf: (value) => controllerOf(value),
} satisfies Record<string, Cell<ControllerRevision>>;
