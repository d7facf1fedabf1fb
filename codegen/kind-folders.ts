/**
 * The kinds' folders (ARCHITECTURE, "Adding a kind"): src/kinds/<group>/<kind>/
 * holds what a contract kind needs beyond the contract, its index.ts
 * default-exporting the kind's definition (registry/kind-hooks.ts defineKind).
 * Codegen imports every definition, attaches it to each version of its kind,
 * and resolves every printer column's formatter name to a cell: the kind's own
 * or a generic one (src/handlers/table-cells.ts). The generated table refers
 * to both by name (`kind_core_pod.cells.podReady`, `genericCells.age`), so a
 * name that is not there fails here, and again at `npm run typecheck`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { genericCells, genericTimedCells } from '../src/handlers/table-cells.ts';
import type { KindHooks } from '../src/registry/kind-hooks.ts';
import type { ContractKind, PrinterColumn } from './contract.ts';

/** The folder of a group as served: `core` for the core group. */
export function groupFolder(group: string): string {
  return group || 'core';
}

/** A kind's name in kebab case, acronyms kept whole: `CSIDriver` -> `csi-driver`, `HorizontalPodAutoscaler` -> `horizontal-pod-autoscaler`. */
export function kebabCase(kind: string): string {
  return kind
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

/** `<group>/<kind>` under src/kinds. */
export function kindFolder(kind: { group: string; kind: string }): string {
  return `${groupFolder(kind.group)}/${kebabCase(kind.kind)}`;
}

/** One kind folder and the definition its index.ts exports. */
export interface KindFolder {
  folder: string;
  /** The identifier the generated table imports the definition as. */
  id: string;
  /** index.ts, relative to the directory the generated table is written to. */
  importPath: string;
  definition: KindHooks;
}

/** Where a printer column's cell is: the reference the generated table writes, and whether it is timed. */
export interface ResolvedCell {
  field: 'cell' | 'timedCell';
  ref: string;
}

const sortedDirs = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .map((e) => {
      if (!e.isDirectory()) throw new Error(`${join(relative(process.cwd(), dir), e.name)}: src/kinds holds only <group>/<kind>/ folders`);
      return e.name;
    })
    .sort();

/**
 * Every folder of `kindsDir`, each naming a kind of the contract (a folder
 * that names none fails: it would never be served), with its definition.
 */
export async function loadKindFolders(kindsDir: string, contractKinds: readonly ContractKind[], outDir: string): Promise<Map<string, KindFolder>> {
  const named = new Set(contractKinds.map(kindFolder));
  const folders = new Map<string, KindFolder>();
  if (!existsSync(kindsDir)) return folders;
  for (const group of sortedDirs(kindsDir)) {
    for (const kind of sortedDirs(join(kindsDir, group))) {
      const folder = `${group}/${kind}`;
      if (!named.has(folder)) throw new Error(`src/kinds/${folder}/ names no kind of the contract (a kind's folder is src/kinds/<group, or core>/<kind in kebab case>/)`);
      const index = join(kindsDir, folder, 'index.ts');
      if (!existsSync(index)) throw new Error(`src/kinds/${folder}/ has no index.ts defining the kind`);
      const definition = (await import(pathToFileURL(index).href)).default;
      if (!definition || typeof definition !== 'object') throw new Error(`src/kinds/${folder}/index.ts must default-export the kind's definition (defineKind)`);
      const importPath = relative(outDir, index).split('\\').join('/');
      folders.set(folder, { folder, id: `kind_${folder.replace(/[^A-Za-z0-9]/g, '_')}`, importPath: importPath.startsWith('.') ? importPath : `./${importPath}`, definition });
    }
  }
  return folders;
}

const has = (cells: object | undefined, name: string) => cells !== undefined && Object.hasOwn(cells, name);

/**
 * The cell each printer column of a kind names (undefined for a column
 * without a formatter): the kind's own, else a generic one. A formatter that
 * names neither fails, naming the kind and the formatter.
 */
export function resolveCells(kind: ContractKind, folder: KindFolder | undefined): Array<ResolvedCell | undefined> {
  const where = `${kind.group || 'core'}/${kind.version} ${kind.kind}`;
  return kind.resource.printerColumns.map((column: PrinterColumn) => {
    const name = column.formatter;
    if (name === undefined) return undefined;
    const own = folder?.definition;
    if (has(own?.cells, name)) return { field: 'cell', ref: `${folder!.id}.cells.${name}` };
    if (has(own?.timedCells, name)) return { field: 'timedCell', ref: `${folder!.id}.timedCells.${name}` };
    if (has(genericCells, name)) return { field: 'cell', ref: `genericCells.${name}` };
    if (has(genericTimedCells, name)) return { field: 'timedCell', ref: `genericTimedCells.${name}` };
    const place = folder ? `src/kinds/${folder.folder}/` : `no folder src/kinds/${kindFolder(kind)}/`;
    throw new Error(`${where}: printer column ${JSON.stringify(column.name)} names formatter ${JSON.stringify(name)}, which is no generic cell (src/handlers/table-cells.ts) and none of the kind's own (${place})`);
  });
}

/**
 * A folder's cells are its printer columns': each named by a column of the
 * kind (at some version), none taking a generic cell's name (which would make
 * the column's meaning depend on which table is asked first).
 */
export function checkOwnCells(folder: KindFolder, versions: readonly ContractKind[]): void {
  const named = new Set(versions.flatMap((k) => k.resource.printerColumns.map((c) => c.formatter)));
  for (const cells of [folder.definition.cells, folder.definition.timedCells]) {
    for (const name of Object.keys(cells ?? {})) {
      if (has(genericCells, name) || has(genericTimedCells, name)) throw new Error(`src/kinds/${folder.folder}/: cell ${JSON.stringify(name)} takes the name of a generic cell (src/handlers/table-cells.ts)`);
      if (!named.has(name)) throw new Error(`src/kinds/${folder.folder}/: cell ${JSON.stringify(name)} is named by no printer column of ${versions[0].kind}`);
    }
  }
}
