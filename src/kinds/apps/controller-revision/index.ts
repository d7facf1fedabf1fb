/**
 * apps/v1 ControllerRevision (SPEC 9.7; K
 * pkg/registry/apps/controllerrevision/strategy.go, 1.31): no spec or status,
 * data and revision only, validated on create and update; its printer's cell.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { validatedBy } from '../../../registry/strategy.ts';
import { cells } from './cells.ts';
import { validateControllerRevision } from './validate.ts';

export default defineKind({ strategy: validatedBy(validateControllerRevision), cells });
