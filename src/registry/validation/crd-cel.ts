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
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { escapeName } from '../schema/cel-escaping.ts';
import { compileRules } from '../schema/cel-compile.ts';
import { schemaDeclType, type DeclType } from '../schema/cel-types.ts';
import { newStructural, type Structural } from '../schema/structural.ts';
import { validationRuleRepr } from './crd-internal.ts';
import { child, index, internalError, invalid, required, type FieldError } from './field-errors.ts';

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
    private readonly parent?: CelSchemaContext,
    private readonly accessor?: Accessor,
  ) {}

  /** Upstream RootCELContext. */
  static root(schema: JSONSchemaProps): CelSchemaContext {
    return new CelSchemaContext(schema, Array.isArray(schema['x-kubernetes-validations']) && schema['x-kubernetes-validations'].length > 0);
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
    return new CelSchemaContext(schema, this.withinRuleScope || (Array.isArray(rules) && rules.length > 0), this, accessor);
  }
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
export function ruleCompilationErrors(schema: JSONSchemaProps, path: string, context: CelSchemaContext, uncorrelatable: string | undefined): FieldError[] {
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
    if (result.error) {
      if (result.error.type === 'required') errs.push(required(child(rulePath, 'rule'), result.error.detail));
      else errs.push(invalid(child(rulePath, 'rule'), validationRuleRepr(rules[i]), result.error.detail));
    }
    if (result.messageExpressionError) errs.push(invalid(child(rulePath, 'messageExpression'), validationRuleRepr(rules[i]), result.messageExpressionError.detail));
    if (result.usesOldSelf) {
      if (uncorrelatable !== undefined) errs.push(invalid(child(rulePath, 'rule'), String(rules[i]?.rule ?? ''), `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
    } else if (typeof rules[i]?.optionalOldSelf === 'boolean') {
      errs.push(invalid(child(rulePath, 'optionalOldSelf'), rules[i].optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
  return errs;
}
