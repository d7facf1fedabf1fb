/**
 * The parts of a Job's spec that shape how its pods fail and succeed, as
 * kube-apiserver 1.31 validates them (pkg/apis/batch/validation
 * validateJobSpec: backoffLimitPerIndex and maxFailedIndexes,
 * validatePodFailurePolicy, validateSuccessPolicy, validatePodReplacementPolicy,
 * the template's restartPolicy); shared by a Job and a CronJob's jobTemplate.
 */
import { child, duplicate, index, invalid, notSupported, required, tooLong, tooMany, type FieldError } from '../../../registry/validation/field-errors.ts';
import { goQuote, goQuoteList } from '../../../util/go-print.ts';
import { isDNS1123Label, isQualifiedName } from '../../../api/names.ts';

const MAX_PARALLELISM_INDEXED = 100_000;
const MAX_FAILED_INDEXES = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_LIMIT_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_HIGH_COMPLETIONS = 10_000;
const MAX_FAILURE_RULES = 20;
const MAX_EXIT_CODE_VALUES = 255;
const MAX_CONDITION_PATTERNS = 20;
const MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;
const MAX_SUCCESS_RULES = 20;

// sorted, as upstream's sets.List prints them
const FAILURE_ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const EXIT_CODE_OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];

/** field.Invalid with field.OmitValueType: the message names no value. */
function invalidWithoutValue(field: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${detail}` };
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** validateJobSpec's checks of the failure and success policies, the indexed limits and the restart policy. */
export function validateJobPolicies(spec: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const at = (name: string) => child(path, name);
  const indexed = spec.completionMode === 'Indexed';
  const { completions, parallelism, backoffLimitPerIndex, maxFailedIndexes } = spec;
  if (maxFailedIndexes !== undefined && backoffLimitPerIndex === undefined) errs.push(required(at('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  if (indexed) {
    if (isInt(parallelism) && parallelism > MAX_PARALLELISM_INDEXED) {
      errs.push(invalid(at('parallelism'), parallelism, `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`));
    }
    if (isInt(completions) && isInt(maxFailedIndexes) && maxFailedIndexes > completions) errs.push(invalid(at('maxFailedIndexes'), maxFailedIndexes, 'must be less than or equal to completions'));
    if (isInt(maxFailedIndexes) && maxFailedIndexes > MAX_FAILED_INDEXES) errs.push(invalid(at('maxFailedIndexes'), maxFailedIndexes, `must be less than or equal to ${MAX_FAILED_INDEXES}`));
    if (isInt(completions) && completions > COMPLETIONS_SOFT_LIMIT && backoffLimitPerIndex !== undefined) {
      const why = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
      if (maxFailedIndexes === undefined) errs.push(required(at('maxFailedIndexes'), `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
      if (isInt(parallelism) && parallelism > PARALLELISM_LIMIT_HIGH_COMPLETIONS) errs.push(invalid(at('parallelism'), parallelism, `must be less than or equal to ${PARALLELISM_LIMIT_HIGH_COMPLETIONS} ${why}`));
      if (isInt(maxFailedIndexes) && maxFailedIndexes > MAX_FAILED_INDEXES_HIGH_COMPLETIONS) errs.push(invalid(at('maxFailedIndexes'), maxFailedIndexes, `must be less than or equal to ${MAX_FAILED_INDEXES_HIGH_COMPLETIONS} ${why}`));
    }
  } else {
    if (backoffLimitPerIndex !== undefined) errs.push(invalid(at('backoffLimitPerIndex'), backoffLimitPerIndex, 'requires indexed completion mode'));
    if (maxFailedIndexes !== undefined) errs.push(invalid(at('maxFailedIndexes'), maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (spec.podFailurePolicy) errs.push(...validatePodFailurePolicy(spec, at('podFailurePolicy')));
  if (spec.successPolicy) {
    if (!indexed) errs.push(invalid(at('successPolicy'), spec.successPolicy, 'requires indexed completion mode'));
    else errs.push(...validateSuccessPolicy(spec, at('successPolicy')));
  }
  const replacement = spec.podReplacementPolicy;
  if (replacement !== undefined) {
    if (spec.podFailurePolicy) {
      if (replacement !== 'Failed') errs.push(notSupported(at('podReplacementPolicy'), replacement, ['Failed']));
    } else if (!REPLACEMENT_POLICIES.includes(replacement)) errs.push(notSupported(at('podReplacementPolicy'), replacement, REPLACEMENT_POLICIES));
  }
  return errs;
}

/** validateJobSpec's last check: the template's restartPolicy (defaulted to Always, so that and none are "required"). */
export function validateJobRestartPolicy(spec: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const restartPolicy = spec.template?.spec?.restartPolicy;
  const restartPath = `${path}.template.spec.restartPolicy`;
  if (restartPolicy === 'Always' || restartPolicy === undefined || restartPolicy === '') errs.push(required(restartPath, `valid values: ${goQuote('OnFailure')}, ${goQuote('Never')}`));
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') errs.push(notSupported(restartPath, restartPolicy, ['OnFailure', 'Never']));
  else if (spec.podFailurePolicy && restartPolicy !== 'Never') errs.push(invalid(restartPath, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

/** ValidateJob: an Indexed Job's last pod hostname (`<name>-<completions-1>`) must be a DNS label. */
export function validateIndexedHostnames(job: any): FieldError[] {
  const { completionMode, completions } = job.spec ?? {};
  if (completionMode !== 'Indexed' || !isInt(completions) || completions <= 0) return [];
  const name = String(job.metadata?.name ?? '');
  const hostname = `${name}-${completions - 1}`;
  return isDNS1123Label(hostname).length ? [invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`)] : [];
}

function validatePodFailurePolicy(spec: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules: any[] = Array.isArray(spec.podFailurePolicy.rules) ? spec.podFailurePolicy.rules : [];
  const rulesPath = child(path, 'rules');
  if (rules.length > MAX_FAILURE_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_FAILURE_RULES));
  const podSpec = spec.template?.spec ?? {};
  const containerNames = new Set<string>([...(podSpec.containers ?? []), ...(podSpec.initContainers ?? [])].map((c: any) => c?.name));
  rules.forEach((rule, i) => errs.push(...validateFailureRule(spec, rule ?? {}, index(rulesPath, i), containerNames)));
  return errs;
}

function validateFailureRule(spec: any, rule: any, path: string, containerNames: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const actionPath = child(path, 'action');
  if (!rule.action) errs.push(required(actionPath, `valid values: ${goQuoteList(FAILURE_ACTIONS)}`));
  else if (rule.action === 'FailIndex') {
    if (spec.backoffLimitPerIndex === undefined) errs.push(invalid(actionPath, rule.action, 'requires the backoffLimitPerIndex to be set'));
  } else if (!FAILURE_ACTIONS.includes(rule.action)) errs.push(notSupported(actionPath, rule.action, FAILURE_ACTIONS));
  const conditions: any[] = Array.isArray(rule.onPodConditions) ? rule.onPodConditions : [];
  if (rule.onExitCodes) errs.push(...validateOnExitCodes(rule.onExitCodes, child(path, 'onExitCodes'), containerNames));
  if (conditions.length) errs.push(...validateOnPodConditions(conditions, child(path, 'onPodConditions')));
  if (rule.onExitCodes && conditions.length) errs.push(invalidWithoutValue(path, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (!rule.onExitCodes && !conditions.length) errs.push(invalidWithoutValue(path, 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errs;
}

function validateOnPodConditions(patterns: any[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (patterns.length > MAX_CONDITION_PATTERNS) errs.push(tooMany(path, patterns.length, MAX_CONDITION_PATTERNS));
  patterns.forEach((pattern, j) => {
    const at = index(path, j);
    const type = String(pattern?.type ?? '');
    for (const msg of isQualifiedName(type)) errs.push(invalid(child(at, 'type'), type, msg));
    const status = pattern?.status;
    if (!status) errs.push(required(child(at, 'status'), `valid values: ${goQuoteList(CONDITION_STATUSES)}`));
    else if (!CONDITION_STATUSES.includes(status)) errs.push(notSupported(child(at, 'status'), status, CONDITION_STATUSES));
  });
  return errs;
}

function validateOnExitCodes(requirement: any, path: string, containerNames: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const operatorPath = child(path, 'operator');
  const { operator, containerName } = requirement;
  if (!operator) errs.push(required(operatorPath, `valid values: ${goQuoteList(EXIT_CODE_OPERATORS)}`));
  else if (!EXIT_CODE_OPERATORS.includes(operator)) errs.push(notSupported(operatorPath, operator, EXIT_CODE_OPERATORS));
  if (containerName !== undefined && !containerNames.has(containerName)) {
    errs.push(invalid(child(path, 'containerName'), containerName, 'must be one of the container or initContainer names in the pod template'));
  }
  const valuesPath = child(path, 'values');
  const values: number[] = Array.isArray(requirement.values) ? requirement.values : [];
  if (values.length === 0) errs.push(invalid(valuesPath, values, 'at least one value is required'));
  else if (values.length > MAX_EXIT_CODE_VALUES) errs.push(tooMany(valuesPath, values.length, MAX_EXIT_CODE_VALUES));
  const seen = new Set<number>();
  let ordered = true;
  values.forEach((value, j) => {
    if (operator === 'In' && value === 0) errs.push(invalid(index(valuesPath, j), value, 'must not be 0 for the In operator'));
    if (seen.has(value)) errs.push(duplicate(index(valuesPath, j), value));
    else seen.add(value);
    if (j > 0 && values[j - 1] > value) ordered = false;
  });
  if (!ordered) errs.push(invalid(valuesPath, values, 'must be ordered'));
  return errs;
}

function validateSuccessPolicy(spec: any, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules: any[] = Array.isArray(spec.successPolicy.rules) ? spec.successPolicy.rules : [];
  const rulesPath = child(path, 'rules');
  if (rules.length === 0) errs.push(required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_SUCCESS_RULES));
  const completions = isInt(spec.completions) ? spec.completions : 0;
  rules.forEach((rule, i) => {
    const at = index(rulesPath, i);
    const { succeededCount, succeededIndexes } = rule ?? {};
    if (succeededCount === undefined && succeededIndexes === undefined) errs.push(required(at, 'at least one of succeededCount or succeededIndexes must be specified'));
    let total = 0;
    if (succeededIndexes !== undefined) {
      const indexesPath = child(at, 'succeededIndexes');
      if (String(succeededIndexes).length > MAX_SUCCEEDED_INDEXES_LENGTH) errs.push(tooLong(indexesPath, succeededIndexes, MAX_SUCCEEDED_INDEXES_LENGTH));
      const parsed = countIndexes(String(succeededIndexes), completions);
      if (typeof parsed === 'string') errs.push(invalid(indexesPath, succeededIndexes, `error parsing succeededIndexes: ${parsed}`));
      else total = parsed;
    }
    if (succeededCount !== undefined) {
      const countPath = child(at, 'succeededCount');
      if (isInt(succeededCount) && succeededCount < 0) errs.push(invalid(countPath, succeededCount, 'must be greater than or equal to 0'));
      if (succeededCount > completions) errs.push(invalid(countPath, succeededCount, `must be less than or equal to ${completions} (the number of specified completions)`));
      if (succeededIndexes !== undefined && succeededCount > total) {
        errs.push(invalid(countPath, succeededCount, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
  return errs;
}

/** validateIndexesFormat: how many indexes `0,2-4` names below `completions`, or why it cannot be read. */
export function countIndexes(indexes: string, completions: number): number | string {
  if (indexes === '') return 0;
  let last: number | undefined;
  let total = 0;
  for (const interval of indexes.split(',')) {
    const parsed = parseInterval(interval, completions);
    if (typeof parsed === 'string') return parsed;
    const [x, y] = parsed;
    if (last !== undefined && last >= x) return `non-increasing order, previous: ${last}, current: ${x}`;
    total += y - x + 1;
    last = y;
  }
  return total;
}

/** Go's strconv.Atoi: an optional sign and decimal digits. */
const atoi = (s: string): number | undefined => (/^[+-]?\d+$/.test(s) ? Number(s) : undefined);

function parseInterval(interval: string, completions: number): [number, number] | string {
  const limits = interval.split('-');
  if (limits.length > 2) return `the fragment ${goQuote(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`;
  const x = atoi(limits[0]);
  if (x === undefined) return `cannot convert string to integer for index: ${goQuote(limits[0])}`;
  if (x >= completions) return `too large index: ${goQuote(limits[0])}`;
  if (limits.length === 1) return [x, x];
  const y = atoi(limits[1]);
  if (y === undefined) return `cannot convert string to integer for index: ${goQuote(limits[1])}`;
  if (y >= completions) return `too large index: ${goQuote(limits[1])}`;
  if (x >= y) return `non-increasing order, previous: ${x}, current: ${y}`;
  return [x, y];
}
