/**
 * core/v1 Endpoints (SPEC 9.7; K pkg/registry/core/endpoint/strategy.go, 1.31):
 * validated on create and update, and its printer's cell.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy } from '../../../registry/strategy.ts';
import { cells } from './cells.ts';
import { validateEndpoints } from './validate.ts';

export default defineKind({ strategy: validatedBy(validateEndpoints), cells });
