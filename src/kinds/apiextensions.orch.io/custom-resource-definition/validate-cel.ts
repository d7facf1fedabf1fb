/**
 * The x-kubernetes-validations rules of a CRD schema, compiled when the
 * definition is written (SPEC 2.11, 8, 9.7; upstream apiextensions-apiserver
 * pkg/apis/apiextensions/validation/cel_validation.go `CELSchemaContext`,
 * `TotalCost`, and validation.go's rule checks): each node's rules compile
 * against the node's type, which is read from the nearest ancestor that has
 * one; a rule that does not compile, a messageExpression that does not, an
 * oldSelf where old values cannot be correlated, or an optionalOldSelf on a
 * rule without oldSelf is a 422 cause at the rule.
 */
import type { JSONSchemaProps } from '../../../registry/schema/json-schema-props.ts';
import { escapeName } from '../../../registry/schema/cel-escaping.ts';
import { compileRules } from '../../../registry/schema/cel-compile.ts';
import { schemaDeclType, type DeclType } from '../../../registry/schema/cel-types.ts';
import { newStructural, type Structural } from '../../../registry/schema/structural.ts';
import { validationRuleRepr } from './internal.ts';
import { child, forbidden, index, internalError, invalid, required, type FieldError } from '../../../registry/validation/field-errors.ts';

/** Upstream StaticEstimatedCostLimit: the most one expression may cost, estimated, times the times it may run. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Upstream StaticEstimatedCRDCostLimit: the most all the rules of a schema may cost together. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

const saturatingMultiply = (cost: number, cardinality: number): number => (cost === 0 ? 0 : Math.min(cost * cardinality, Number.MAX_SAFE_INTEGER));

/** Upstream TotalCost: the sum over a schema, and its (at most 4) largest contributors of at least 1% of the limit. */
export class TotalCost {
  total = 0;
  mostExpensive: Array<{ path: string; cost: number }> = [];

  observe(path: string, cost: number): void {
    this.total = Math.min(this.total + cost, Number.MAX_SAFE_INTEGER);
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    this.mostExpensive.push({ path, cost });
    // Stable, as Go's sort.Slice is not guaranteed to be; ties keep their order of observation.
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    if (this.mostExpensive.length > 4) this.mostExpensive.length = 4;
  }
}

/** Upstream getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

interface TypeInfo {
  schema: Structural;
  declType: DeclType;
}

type Accessor = (parent: TypeInfo) => TypeInfo | undefined;

/**
 * Upstream CELSchemaContext: one per schema node on the walk, its type
 * computed on first need (most nodes have no rules) from its parent's.
 */
export class CelSchemaContext {
  private info?: TypeInfo;
  private infoError?: string;
  private computed = false;

  private constructor(
    readonly jsonSchema: JSONSchemaProps | undefined,
    private readonly withinRuleScope: boolean,
    /** How many times the node can occur in one object; undefined when unbounded. */
    readonly maxCardinality: number | undefined,
    readonly totalCost: TotalCost,
    private readonly parent?: CelSchemaContext,
    private readonly accessor?: Accessor,
  ) {}

  /** Upstream RootCELContext. */
  static root(schema: JSONSchemaProps): CelSchemaContext {
    return new CelSchemaContext(schema, Array.isArray(schema['x-kubernetes-validations']) && schema['x-kubernetes-validations'].length > 0, 1, new TotalCost());
  }

  /** Upstream TypeInfo: undefined outside any rule's scope; throws the conversion's error. */
  typeInfo(): TypeInfo | undefined {
    if (!this.withinRuleScope) return undefined;
    if (!this.computed) {
      this.computed = true;
      try {
        const fromParent = this.parent?.typeInfo();
        this.info = fromParent && this.accessor ? this.accessor(fromParent) : undefined;
        this.info ??= convert(this.jsonSchema ?? {}, !this.parent || this.jsonSchema?.['x-kubernetes-embedded-resource'] === true);
      } catch (err) {
        this.infoError = (err as Error).message;
      }
    }
    if (this.infoError !== undefined) throw new Error(this.infoError);
    return this.info;
  }

  childProperty(schema: JSONSchemaProps | undefined, name: string): CelSchemaContext {
    return this.child(schema, (p) => {
      const prop = p.schema.properties?.[name];
      const escaped = escapeName(name);
      const field = escaped !== undefined && p.declType.kind === 'object' ? p.declType.fields.get(escaped) : undefined;
      return prop && field ? { schema: prop, declType: field.type } : undefined;
    });
  }

  childAdditionalProperties(schema: JSONSchemaProps | undefined): CelSchemaContext {
    return this.child(schema, (p) => {
      const s = p.schema.additionalProperties?.structural;
      return s && p.declType.kind === 'map' ? { schema: s, declType: p.declType.elem } : undefined;
    });
  }

  childItems(schema: JSONSchemaProps | undefined): CelSchemaContext {
    return this.child(schema, (p) => (p.schema.items && p.declType.kind === 'list' ? { schema: p.schema.items, declType: p.declType.elem } : undefined));
  }

  private child(schema: JSONSchemaProps | undefined, accessor: Accessor): CelSchemaContext {
    const rules = schema?.['x-kubernetes-validations'];
    const parentElements = this.jsonSchema && this.maxCardinality !== undefined ? maxElements(this.jsonSchema) : undefined;
    const cardinality = parentElements === undefined ? undefined : saturatingMultiply(this.maxCardinality!, parentElements);
    return new CelSchemaContext(schema, this.withinRuleScope || (Array.isArray(rules) && rules.length > 0), cardinality, this.totalCost, this, accessor);
  }
}

const bound = (n: unknown): number | undefined => (typeof n === 'number' ? Math.max(0, n) : undefined);

/** Upstream extractMaxElements: how many children a node has at most; undefined when unbounded. */
function maxElements(schema: JSONSchemaProps): number | undefined {
  switch (schema.type) {
    case 'object':
      return schema.additionalProperties !== undefined && schema.additionalProperties !== null ? bound(schema.maxProperties) : 1;
    case 'array':
      return bound(schema.maxItems);
    default:
      return 1;
  }
}

/** Upstream's check of the schema's total (validateCustomResourceDefinitionValidation): its largest contributors, then the total at `schemaPath`. */
export function totalCostErrors(context: CelSchemaContext, schemaPath: string): FieldError[] {
  const { total, mostExpensive } = context.totalCost;
  if (total <= STATIC_ESTIMATED_CRD_COST_LIMIT) return [];
  return [
    ...mostExpensive.map(({ path }) => forbidden(path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema')),
    forbidden(schemaPath, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, STATIC_ESTIMATED_CRD_COST_LIMIT)),
  ];
}

/** Upstream defaultConverter. */
function convert(schema: JSONSchemaProps, isRoot: boolean): TypeInfo {
  const structural = newStructural(schema);
  const declType = schemaDeclType(structural, isRoot);
  if (!declType) throw new Error('unable to convert structural schema to CEL declarations');
  return { schema: structural, declType };
}

/**
 * The rule checks of validation.go for one node whose schema errors (its own
 * and its descendants') are none. `uncorrelatable` is the path of the nearest
 * ancestor below which old values cannot be correlated (a list that is not a
 * map list), if any.
 */
export function ruleCompilationErrors(schema: JSONSchemaProps, path: string, context: CelSchemaContext, uncorrelatable: string | undefined, suppressPerExpressionCost = false): FieldError[] {
  const rules: any[] = Array.isArray(schema['x-kubernetes-validations']) ? schema['x-kubernetes-validations'] : [];
  if (rules.length === 0) return [];
  const rulesPath = child(path, 'x-kubernetes-validations');
  let info: TypeInfo | undefined;
  try {
    info = context.typeInfo();
  } catch (err) {
    return [internalError(rulesPath, `internal error: failed to construct type information for x-kubernetes-validations rules: ${(err as Error).message}`)];
  }
  if (!info) return [internalError(rulesPath, 'internal error: failed to retrieve type information for x-kubernetes-validations')];
  const compiled = compileRules(info.schema, info.declType, info.schema.xValidations);
  if ('error' in compiled) return [internalError(rulesPath, compiled.error)];
  const errs: FieldError[] = [];
  compiled.results.forEach((result, i) => {
    const rulePath = index(rulesPath, i);
    // Upstream getExpressionCost: times the node's cardinality in the schema, else in a request.
    const cost = saturatingMultiply(result.maxCost, context.maxCardinality ?? result.maxCardinality);
    if (!suppressPerExpressionCost && cost > STATIC_ESTIMATED_COST_LIMIT) errs.push(forbidden(child(rulePath, 'rule'), costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
    context.totalCost.observe(child(rulePath, 'rule'), cost);
    if (result.error) {
      if (result.error.type === 'required') errs.push(required(child(rulePath, 'rule'), result.error.detail));
      else errs.push(invalid(child(rulePath, 'rule'), validationRuleRepr(rules[i]), result.error.detail));
    }
    if (result.messageExpressionError) errs.push(invalid(child(rulePath, 'messageExpression'), validationRuleRepr(rules[i]), result.messageExpressionError.detail));
    else if (result.messageExpression) {
      const messageCost = result.messageExpressionMaxCost;
      if (!suppressPerExpressionCost && messageCost > STATIC_ESTIMATED_COST_LIMIT) errs.push(forbidden(child(rulePath, 'messageExpression'), costErrorMessage('estimated messageExpression cost', messageCost, STATIC_ESTIMATED_COST_LIMIT)));
      context.totalCost.observe(child(rulePath, 'messageExpression'), messageCost);
    }
    if (result.usesOldSelf) {
      if (uncorrelatable !== undefined) errs.push(invalid(child(rulePath, 'rule'), String(rules[i]?.rule ?? ''), `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
    } else if (typeof rules[i]?.optionalOldSelf === 'boolean') {
      errs.push(invalid(child(rulePath, 'optionalOldSelf'), rules[i].optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
  return errs;
}
