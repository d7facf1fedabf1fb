/**
 * Table rows encoded once per object version (SPEC 2.5, 4.7; FACTS 5; DESIGN
 * "watch cache"). A row's JSON is fixed for a version except its timed cells
 * (ages at the request time), so the first Table request that reaches a
 * version encodes the rest and keeps it in the version's `derived` slot; later
 * requests only render the timed cells and join. The object and its metadata
 * are not copied: they are views into the stored JSON the cache holds anyway.
 */
import { readApiVersion, type KindDefinition } from '../registry/kind.ts';
import { withResourceVersion } from '../storage/stored-json.ts';
import { JSON_TYPE } from '../http/negotiation.ts';
import { writeJsonAround, writeJsonItems, writeObject } from '../http/respond.ts';
import type { ResourceCache } from '../storage/cacher/resource-cache.ts';
import type { CachedObject } from '../storage/cacher/cached-object.ts';
import type { ResourceRequest } from './context.ts';
import { columnDefinitions, columnValue, fixedCell, includeObjectOf, rowConditionsOf, tableColumns, timedCellOf, toTable, type IncludeObject } from './table.ts';
import type { TimedCell } from '../registry/printer-cells.ts';
import { derivedForm } from './derived-forms.ts';

/** Where `withResourceVersion` splices the resourceVersion in: the first metadata object. */
const METADATA_OPEN = '"metadata":{';

/** How the rows of one kind are made: which cells are timed, and the column definitions encoded once. */
export class TablePlan {
  readonly columns;
  /** Per column, its formatter when the cell depends on the request time. */
  readonly timedColumns: Array<TimedCell | undefined>;
  /** The timed formatters in column order, one per timed cell of a row. */
  readonly timed: TimedCell[];
  readonly rowConditions;
  /** `[{"name":...},...]`, the same for every Table of the kind. */
  readonly columnDefinitions: string;
  /** The version rows show objects as, when they may be stored at another (readApiVersion). */
  readonly apiVersion: string | undefined;
  /** Cells read the stored form (KindDefinition.printsStoredForm). */
  readonly printsStored: boolean;

  /** The resource the plan's kind serves, whatever its version: plans of one resource may share an object. */
  readonly kindKey: string;

  constructor(kind: KindDefinition) {
    this.kindKey = `${kind.group}/${kind.plural}`;
    this.apiVersion = readApiVersion(kind);
    this.printsStored = kind.printsStoredForm === true;
    this.columns = tableColumns(kind);
    this.timedColumns = this.columns.map(timedCellOf);
    this.timed = this.timedColumns.filter((f): f is TimedCell => f !== undefined);
    this.rowConditions = rowConditionsOf(kind);
    this.columnDefinitions = JSON.stringify(columnDefinitions(this.columns));
  }
}

const plans = new WeakMap<KindDefinition, TablePlan>();

/** The kind's plan, made once. */
export function tablePlan(kind: KindDefinition): TablePlan {
  let plan = plans.get(kind);
  if (!plan) plans.set(kind, (plan = new TablePlan(kind)));
  return plan;
}

/** Cells are JSON values; undefined encodes as null, as inside an array. */
const encodeCell = (value: unknown): string => JSON.stringify(value) ?? 'null';

/** The fixed JSON of one object version's row, and what its timed cells need. */
export class EncodedRow {
  constructor(
    readonly plan: TablePlan,
    /**
     * The encoded cells around the timed ones, with what each timed cell keeps
     * of the object (TimedCell.prepare) in between: [text, kept, text, ...,
     * text]. One array of flat strings: a row costs little beside its object.
     */
    readonly cells: unknown[],
    /** `,"conditions":[...]`, or '' when the printer sets none. */
    readonly conditions: string,
    /**
     * The stored metadata after its opening brace, a view into the stored JSON
     * (the resourceVersion goes first, as `withResourceVersion` splices it).
     * Undefined when the stored JSON is not what JSON.stringify makes of it:
     * then `reencoded` holds the object and metadata as a parse would give them.
     */
    readonly metadataTail: string | undefined,
    readonly reencoded: { object: string; metadata: string } | undefined,
  ) {}

  /** DerivedForm: rows are kept per plan. */
  get madeBy(): object {
    return this.plan;
  }
}

/** Encodes the fixed parts of a version's row from the object as a GET would return it. */
function encodeRow(plan: TablePlan, object: CachedObject): EncodedRow {
  const value = object.valueAs(plan.apiVersion);
  const json = withResourceVersion(value, object.revision);
  const obj = JSON.parse(json);
  const printed = plan.printsStored ? JSON.parse(withResourceVersion(object.value, object.revision)) : obj;
  const cells: unknown[] = [];
  // Joined rather than concatenated: a kept string is then flat, not a tree of its pieces.
  let pieces: string[] = [];
  plan.columns.forEach((column, i) => {
    if (i > 0) pieces.push(',');
    const timed = plan.timedColumns[i];
    if (timed) {
      cells.push(pieces.join(''), timed.prepare(columnValue(column, printed), printed));
      pieces = [];
    } else pieces.push(encodeCell(fixedCell(column, printed)));
  });
  cells.push(pieces.join(''));
  const conditions = plan.rowConditions?.(printed);
  const encodedConditions = conditions ? [',"conditions":', JSON.stringify(conditions)].join('') : '';
  const metadata = JSON.stringify(obj.metadata);
  // The stored text serves as the row's object only where it is exactly what encoding the parsed object gives.
  const at = json.indexOf(METADATA_OPEN) + METADATA_OPEN.length - 1;
  if (metadata !== undefined && json.startsWith(metadata, at) && JSON.stringify(obj) === json) {
    const end = at + metadata.length - (json.length - value.length);
    return new EncodedRow(plan, cells, encodedConditions, value.slice(at + 1, end), undefined);
  }
  return new EncodedRow(plan, cells, encodedConditions, undefined, { object: JSON.stringify(obj), metadata });
}

/** The version's row, encoded on first use and kept while the version lives (one per plan: a custom kind read as Tables through several versions keeps each version's row). */
function rowOf(plan: TablePlan, object: CachedObject): EncodedRow {
  return derivedForm(object, plan, () => encodeRow(plan, object));
}

/** The metadata with its resourceVersion, as `withResourceVersion` puts it first. */
function metadataOf(object: CachedObject, tail: string): string {
  return `{"resourceVersion":"${object.revision}"${tail.charCodeAt(0) === 125 /* } */ ? '' : ','}${tail}`;
}

/**
 * Renders rows at one request time: `row(i)` is the JSON of the i-th object's
 * TableRow with `includeObject` (FACTS 5) for the Table's `tableApiVersion`.
 * Every row is encoded here, before anything is written: an object that cannot
 * be shown fails the request with a Status, not halfway through the body.
 */
export function rowRenderer(plan: TablePlan, objects: readonly CachedObject[], includeObject: IncludeObject, tableApiVersion: string, now: number): (i: number) => string {
  const partialOpen = `,"object":{"kind":"PartialObjectMetadata","apiVersion":${JSON.stringify(tableApiVersion)},"metadata":`;
  const { timed } = plan;
  const rows = objects.map((object) => rowOf(plan, object));
  return (i) => {
    const object = objects[i];
    const row = rows[i];
    const { cells, reencoded } = row;
    let text = '{"cells":[' + cells[0];
    for (let c = 1; c < cells.length; c += 2) text += encodeCell(timed[c >> 1].render(cells[c], now)) + cells[c + 1];
    text += ']' + row.conditions;
    if (includeObject === 'Object') text += ',"object":' + (reencoded ? reencoded.object : object.json(plan.apiVersion));
    else if (includeObject === 'Metadata') text += partialOpen + (reencoded ? reencoded.metadata : metadataOf(object, row.metadataTail!)) + '}';
    return text + '}';
  };
}

/**
 * Whether every timed cell of these rows keeps a timestamp in whole seconds
 * (as metadata.creationTimestamp always is): their ages are then the same at
 * any time within one second, since HumanDuration counts whole seconds.
 */
function sameWithinASecond(plan: TablePlan, objects: readonly CachedObject[]): boolean {
  if (!plan.timed.length) return true;
  return objects.every((object) => {
    const { cells } = rowOf(plan, object);
    for (let c = 1; c < cells.length; c += 2) {
      const kept = cells[c];
      // A kept string or null is a cell that does not change with time.
      if (kept !== undefined && kept !== null && typeof kept !== 'string' && !(typeof kept === 'number' && (Number.isNaN(kept) || kept % 1000 === 0))) return false;
    }
    return true;
  });
}

/** Lets readers of one state share a Table's rows (ResourceCache.sharedBody): `key` names the objects, whatever the list's revision. */
export interface TableSharing {
  cache: Pick<ResourceCache, 'sharedBody'>;
  key: string;
}

/**
 * Writes the Table of object versions (SPEC 2.5, 4.7): compact JSON from the
 * encoded rows, streamed; pretty output from the object form, as before. With
 * `share`, and rows whose ages only change from one second to the next, the
 * rows are rendered once per second and shared by every reader of those
 * objects (a whole list or chunk the watch cache holds); the head, which
 * carries the list's resourceVersion and continue token, is written per answer.
 */
export function writeTable(ctx: ResourceRequest, kind: KindDefinition, objects: readonly CachedObject[], listMetadata: Record<string, unknown>, share?: TableSharing): void {
  const includeObject = includeObjectOf(ctx);
  const tableApiVersion = ctx.table?.apiVersion ?? 'meta.orch.io/v1';
  const now = Date.now();
  if (ctx.encode.pretty || ctx.encode.mediaType !== JSON_TYPE) {
    const asVersion = readApiVersion(kind);
    const served = objects.map((o) => JSON.parse(o.json(asVersion)));
    const printed = kind.printsStoredForm ? objects.map((o) => JSON.parse(o.json(undefined))) : served;
    const table = toTable(kind, served, listMetadata, includeObject, tableApiVersion, now, printed);
    return writeObject(ctx.res, 200, table, ctx.encode);
  }
  const plan = tablePlan(kind);
  const head = `{"kind":"Table","apiVersion":${JSON.stringify(tableApiVersion)},"metadata":${JSON.stringify(listMetadata)},"columnDefinitions":${plan.columnDefinitions},"rows":[`;
  if (share && sameWithinASecond(plan, objects)) {
    // Rendered at the start of this second: the same ages as at any instant of it.
    const second = Math.floor(now / 1000) * 1000;
    const rows = share.cache.sharedBody(
      `${share.key}\0Table/${tableApiVersion}\0${includeObject}`,
      () => {
        const row = rowRenderer(plan, objects, includeObject, tableApiVersion, second);
        return Buffer.from(objects.map((_, i) => row(i)).join(','));
      },
      plan.timed.length ? String(second) : '',
    );
    return writeJsonAround(ctx.res, ctx.encode, head, rows, ']}');
  }
  writeJsonItems(ctx.res, ctx.encode, head, objects.length, rowRenderer(plan, objects, includeObject, tableApiVersion, now), ']}');
}
