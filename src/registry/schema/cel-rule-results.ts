/**
 * What a rule's evaluation gives (SPEC 2.11, 8; upstream apiextensions-apiserver
 * pkg/apiserver/schema/cel/validation.go): the evaluation under the per-call
 * limit with what it cost, the field error of a failed rule (reason, message,
 * the rule's text), and its messageExpression with upstream's fallbacks.
 */
import { CelEvaluationError, type CompiledExpression } from '../../cel/environment.ts';
import { PER_CALL_LIMIT } from '../../cel/cost.ts';
import { duplicate, forbidden, invalid, required, type FieldError } from '../validation/field-errors.ts';
import { goQuote } from '../../util/go-print.ts';
import type { ValidationRule } from './structural.ts';

/** Upstream celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

/** What is left of a cost budget (SPEC 8 units). */
export interface Budget {
  remaining: number;
}

/** How upstream's field.Path renders: the root path (nil) as `<nil>`. */
export const shownPath = (path: string): string => (path === '' ? '<nil>' : path);

/** Upstream ruleErrorString: the message, else the rule. */
export const ruleErrorString = (rule: ValidationRule) => (rule.message ? rule.message.trim() : rule.rule.trim());
/** Upstream ruleMessageOrDefault. */
export const ruleMessageOrDefault = (rule: ValidationRule) => (rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`);

/** Upstream fieldErrorForReason. */
export function fieldErrorForReason(path: string, value: unknown, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, value);
    default:
      return invalid(path, value, detail);
  }
}

/** One evaluation under the per-call limit: its value or its error, and what it cost (a run the limit stopped spent more than the limit). */
export function evaluate(program: CompiledExpression, activation: Record<string, unknown>): { value?: unknown; cost: number; error?: CelEvaluationError } {
  try {
    const { value, cost } = program.evaluate(activation, PER_CALL_LIMIT);
    return { value, cost };
  } catch (err) {
    if (!(err instanceof CelEvaluationError)) throw err;
    // A run stopped by the per-call limit spent more than the limit, as cel-go's tracker reports.
    return { error: err, cost: err.costExceeded ? Math.max(err.cost, PER_CALL_LIMIT + 1) : err.cost };
  }
}


/**
 * Upstream evalMessageExpression: the trimmed message, nothing when it fails
 * or is unusable (the rule's message stands in), or a fatal error when the
 * budget runs out.
 */
export function evaluateMessageExpression(program: CompiledExpression, activation: Record<string, unknown>, budget: Budget): { text?: string; fatal?: string } {
  const { value, cost, error } = evaluate(program, activation);
  if (cost > budget.remaining) return { fatal: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run' };
  if (error?.costExceeded) return { fatal: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(program.expression)}` };
  budget.remaining -= cost;
  if (error || typeof value !== 'string') return {};
  const text = value.trim();
  if (Buffer.byteLength(text) > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || /\n/.test(text) || text.length === 0) return {};
  return { text };
}
