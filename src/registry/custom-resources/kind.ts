/**
 * The kinds a CustomResourceDefinition serves (SPEC 2.1, 4.1; upstream
 * apiextensions-apiserver pkg/apiserver/customresource_handler.go): one
 * KindDefinition per served version, named by the definition's accepted names,
 * decoded by its version's schema, with the generic custom-resource strategy.
 * Only an Established definition serves anything.
 */
import { storageVersionHash, type Decoder, type KindDefinition, type PrinterColumnDefinition } from '../kind.ts';
import type { ApiObject, Strategy } from '../strategy.ts';
import { structureOf, type StructureNode } from '../structure.ts';
import { customObjectDecoder } from './decode.ts';
import { validateEmbeddedResources } from '../schema/objectmeta.ts';
import { newStructural, type Structural } from '../schema/structural.ts';
import { validateValue } from '../schema/value-validation.ts';
import { invalid, type FieldError } from '../validation/field-errors.ts';
import { newRuleValidator, shownPath, type RuleValidator } from '../schema/cel-validate.ts';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
/** What discovery and Table show when a version declares no printer columns: the name and its age. */
const DEFAULT_COLUMNS: PrinterColumnDefinition[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names', priority: 0, path: ['metadata', 'name'] },
  { name: 'Age', type: 'date', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata', priority: 0, path: ['metadata', 'creationTimestamp'], formatter: 'age' },
];

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
export function customKinds(crd: ApiObject, decodeObjectMeta: Decoder): CustomKind[] {
  if (!isEstablished(crd)) return [];
  const verbs = crd.metadata.deletionTimestamp ? ALL_VERBS.filter((v) => v !== 'create') : ALL_VERBS;
  const spec = crd.spec ?? {};
  const names = crd.status?.acceptedNames ?? {};
  const group: string = spec.group;
  const storage = (spec.versions ?? []).find((v: any) => v.storage)?.name ?? '';
  return (spec.versions ?? [])
    .filter((v: any) => v.served)
    .map((version: any): CustomKind => {
      const schema = version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      const structural = newStructural(schema);
      const hasStatus = version.subresources?.status !== undefined;
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
        subresources: hasStatus ? [{ name: 'status', verbs: ['get', 'patch', 'update'] }] : [],
        allowCreateOnUpdate: false,
        allowUnconditionalUpdate: false,
        nameValidation: 'DNSSubdomain',
        fieldSelectors: (version.selectableFields ?? []).map((f: any) => ({ name: String(f.jsonPath).slice(1), path: String(f.jsonPath).slice(1).split('.') })),
        printerColumns: DEFAULT_COLUMNS,
        storageVersionHash: storageVersionHash(group, storage, names.kind),
        decode: customObjectDecoder(structural, decodeObjectMeta),
      };
      return { kind, strategy: customResourceStrategy(hasStatus, structural, newRuleValidator(structural, true)), structure: structureOf(schema) };
    });
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

/** Upstream customResourceValidator: the schema's value rules, then embedded resources' apiVersion, kind and metadata. */
function validateCustomObject(obj: ApiObject, schema: Structural): FieldError[] {
  return [...validateValue('', obj, schema), ...validateEmbeddedResources('', obj, schema, true)];
}

/**
 * Upstream customResourceStrategy: generation 1 on create, +1 on any change
 * outside metadata; with a status subresource, create and update leave status
 * alone (the store's withStatusReset does the update side); every write is
 * validated against the version's schema.
 */
function customResourceStrategy(hasStatus: boolean, schema: Structural, rules: RuleValidator | undefined): Strategy {
  return {
    genericObjectMeta: true,
    validate: (obj) => withValidationRules(validateCustomObject(obj, schema), rules, obj, undefined),
    // Ratcheting on the resource's updates; upstream's status strategy validates without it.
    validateUpdate: (obj, old, warn) => withValidationRules(validateCustomObject(obj, schema), rules, obj, old, warn ?? (() => {})),
    validateStatusUpdate: (obj, old) => withValidationRules(validateCustomObject(obj, schema), rules, obj, old),
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
