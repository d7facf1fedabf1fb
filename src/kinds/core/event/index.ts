/**
 * core/v1 Event (SPEC 9.7; upstream pkg/registry/core/event/strategy.go,
 * 1.31): the legacy rules on create and update, and its printer's cells.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy } from '../../../registry/strategy.ts';
import { cells, timedCells } from './cells.ts';
import { validateEvent } from './validate.ts';

export default defineKind({ strategy: validatedBy(validateEvent), cells, timedCells });
