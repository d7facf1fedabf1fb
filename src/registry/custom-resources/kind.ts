/**
 * The kinds a CustomResourceDefinition serves (SPEC 2.1, 4.1; upstream
 * apiextensions-apiserver pkg/apiserver/customresource_handler.go): one
 * KindDefinition per served version, named by the definition's accepted names,
 * decoded by its version's schema, with the generic custom-resource strategy.
 * Only an Established definition serves anything.
 */
import { storageVersionHash, type Decoder, type KindDefinition, type ScalePaths } from '../kind.ts';
import { customPrinterColumns } from './printer-columns.ts';
import type { ApiObject, Strategy } from '../strategy.ts';
import { structureOf, type StructureNode } from '../structure.ts';
import { customObjectDecoder } from './decode.ts';
import { validateEmbeddedResources } from '../schema/objectmeta.ts';
import { newStructural, type Structural } from '../schema/structural.ts';
import { validateValueNode, valueNodeOf } from '../schema/value-validation.ts';
import { validateListSetsAndMaps } from '../schema/list-sets-and-maps.ts';
import { validateScaleSpec, validateScaleStatus } from './scale.ts';
import { ConversionError, webhookConverter, type ReviewPoster } from './conversion-webhook.ts';
import { internalError } from '../../api/status-error.ts';
import { invalid, type FieldError } from '../validation/field-errors.ts';
import { resourceRuleValidator, shownPath, type RuleValidator } from '../schema/cel-validate.ts';

/** upstream crdHandler's supported patch types, in its order (its 415 lists them so). */
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
/** A custom kind together with what only custom kinds carry. */
export interface CustomKind {
  kind: KindDefinition;
  strategy: Strategy;
  /** The structure model of the version's schema, for apply and strategic merge (rejected: SPEC 4.5). */
  structure: StructureNode;
}

export function isEstablished(crd: ApiObject): boolean {
  return (crd.status?.conditions ?? []).some((c: any) => c?.type === 'Established' && c.status === 'True');
}

/** The name a custom kind's schema goes by in the structure registry: unique per group, version and resource. */
export function customSchemaName(group: string, version: string, plural: string): string {
  return `customresource:${group}/${version}/${plural}`;
}

/**
 * One entry per served version of an Established definition; none otherwise.
 * A terminating definition still serves reads and deletes (its finalizer
 * deletes the objects through them), but no creates, as upstream's handler.
 */
export function customKinds(crd: ApiObject, decodeObjectMeta: Decoder, reviewPoster: (crd: ApiObject) => ReviewPoster): CustomKind[] {
  if (!isEstablished(crd)) return [];
  const verbs = crd.metadata.deletionTimestamp ? ALL_VERBS.filter((v) => v !== 'create') : ALL_VERBS;
  const spec = crd.spec ?? {};
  const names = crd.status?.acceptedNames ?? {};
  const group: string = spec.group;
  const storage = (spec.versions ?? []).find((v: any) => v.storage)?.name ?? '';
  const convert = spec.conversion?.strategy === 'Webhook' ? conversionOf(spec.conversion.webhook?.conversionReviewVersions ?? [], reviewPoster(crd)) : undefined;
  return (spec.versions ?? [])
    .filter((v: any) => v.served)
    .map((version: any): CustomKind => {
      const schema = version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      const structural = newStructural(schema);
      const hasStatus = version.subresources?.status !== undefined && version.subresources?.status !== null;
      const scale = scalePaths(version.subresources?.scale);
      // Upstream's discovery order: status, then scale.
      const subresources: KindDefinition['subresources'] = [
        ...(hasStatus ? [{ name: 'status', verbs: ['get', 'patch', 'update'] }] : []),
        ...(scale ? [{ name: 'scale', verbs: ['get', 'patch', 'update'], group: 'autoscaling', version: 'v1', kind: 'Scale' }] : []),
      ];
      const kind: KindDefinition = {
        group,
        version: version.name,
        kind: names.kind,
        schemaName: customSchemaName(group, version.name, names.plural),
        listKind: names.listKind ?? `${names.kind}List`,
        stored: true,
        plural: names.plural,
        singular: names.singular || String(names.kind ?? '').toLowerCase(),
        shortNames: names.shortNames ?? [],
        categories: names.categories ?? [],
        namespaced: spec.scope === 'Namespaced',
        verbs,
        subresources,
        allowCreateOnUpdate: false,
        allowUnconditionalUpdate: false,
        nameValidation: 'DNSSubdomain',
        fieldSelectors: (version.selectableFields ?? []).map((f: any) => ({ name: String(f.jsonPath).slice(1), path: String(f.jsonPath).slice(1).split('.') })),
        printerColumns: customPrinterColumns(version.additionalPrinterColumns),
        storageVersionHash: storageVersionHash(group, storage, names.kind),
        storageVersion: storage,
        ...(scale ? { scale } : {}),
        ...(convert ? { convert } : {}),
        // A custom version has no removal release: the annotation says only that it is deprecated.
        ...(version.deprecated === true ? { deprecated: {} } : {}),
        decode: customObjectDecoder(structural, decodeObjectMeta),
        patchTypes: PATCH_TYPES,
      };
      return { kind, strategy: customResourceStrategy(hasStatus, structural, scale, resourceRuleValidator(schema, structural)), structure: structureOf(schema) };
    });
}

/** The webhook's conversion, failing as upstream's storage does: a 500 with the converter's words. */
function conversionOf(reviewVersions: string[], post: ReviewPoster): KindDefinition['convert'] {
  const converter = webhookConverter(reviewVersions, post);
  return async (object, apiVersion) => {
    try {
      return await converter(object, apiVersion);
    } catch (err) {
      if (err instanceof ConversionError) throw internalError(err);
      throw err;
    }
  };
}

function scalePaths(scale: any): ScalePaths | undefined {
  if (scale === null || typeof scale !== 'object') return undefined;
  const paths: ScalePaths = { specReplicasPath: String(scale.specReplicasPath ?? ''), statusReplicasPath: String(scale.statusReplicasPath ?? '') };
  if (typeof scale.labelSelectorPath === 'string') paths.labelSelectorPath = scale.labelSelectorPath;
  return paths;
}

/** Everything but metadata, to tell a change that moves the generation. */
function withoutMetadata(obj: ApiObject): string {
  const { metadata: _metadata, ...rest } = obj;
  return JSON.stringify(rest);
}

/** Upstream hasBlockingErr: errors after which the rules are not run, as the values may not have their types. */
const BLOCKING: ReadonlySet<string> = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

/**
 * The x-kubernetes-validations rules after the schema's errors (upstream
 * customResourceStrategy.Validate/ValidateUpdate, and the status strategy's):
 * not run over an object with a blocking error, which says so instead.
 */
function withValidationRules(errs: FieldError[], rules: RuleValidator | undefined, obj: ApiObject, old: ApiObject | undefined, ratchet?: (warning: string) => void): FieldError[] {
  if (!rules) return errs;
  if (errs.some((e) => BLOCKING.has(e.type))) {
    return [...errs, invalid(shownPath(''), 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation')];
  }
  return [...errs, ...rules.validate('', obj, old, undefined, { ratchet })];
}

/**
 * Upstream customResourceValidator and customResourceStrategy: the schema's
 * value rules (on an update, unchanged values ratcheted), embedded resources'
 * apiVersion, kind and metadata, then the uniqueness of set and map lists;
 * on an update that uniqueness is checked only when the old object had it
 * (upstream's ratcheting of list types).
 */
function validateCustomObject(obj: ApiObject, schema: Structural, old?: ApiObject): FieldError[] {
  const node = valueNodeOf(schema);
  const lists = validateListSetsAndMaps('', node, obj);
  const listsRatcheted = old !== undefined && lists.length > 0 && validateListSetsAndMaps('', node, old).length > 0;
  return [...validateValueNode('', obj, node, old && { value: old }), ...validateEmbeddedResources('', obj, schema, true), ...(listsRatcheted ? [] : lists)];
}

/**
 * Upstream customResourceStrategy: generation 1 on create, +1 on any change
 * outside metadata; with a status subresource, create and update leave status
 * alone (the store's withStatusReset does the update side); every write is
 * validated against the version's schema.
 */
function customResourceStrategy(hasStatus: boolean, schema: Structural, scale: ScalePaths | undefined, rules: RuleValidator | undefined): Strategy {
  const validateWhole = (obj: ApiObject, old?: ApiObject) => [...validateCustomObject(obj, schema, old), ...validateScaleSpec(obj, scale), ...validateScaleStatus(obj, scale)];
  return {
    genericObjectMeta: true,
    validate: (obj) => withValidationRules(validateWhole(obj), rules, obj, undefined),
    // Ratcheting on the resource's updates; upstream's status strategy validates the rules without it.
    validateUpdate: (obj, old, warn) => withValidationRules(validateWhole(obj, old), rules, obj, old, warn ?? (() => {})),
    // Upstream ValidateStatusUpdate checks the scale status paths, not spec replicas.
    validateStatusUpdate: (obj, old) => withValidationRules([...validateCustomObject(obj, schema, old), ...validateScaleStatus(obj, scale)], rules, obj, old),
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
      obj.metadata.generation = 1;
    },
    prepareForUpdate(obj, old) {
      const generation = old.metadata.generation ?? 0;
      obj.metadata.generation = withoutMetadata(obj) === withoutMetadata(old) ? generation : generation + 1;
    },
  };
}
