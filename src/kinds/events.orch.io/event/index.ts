/**
 * events.orch.io/v1 Event (SPEC 9.7; upstream pkg/registry/core/event and
 * pkg/apis/events/v1): stored as core v1 Events (the contract's storageGroup
 * and storageVersion), converted by field renames, validated on the core form
 * with the events/v1 rules, printed from the stored form with the core
 * Event's cells.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { cells, timedCells } from '../../core/event/cells.ts';
import { conversion } from './conversion.ts';
import { validateCreate, validateUpdate } from './validate.ts';

export default defineKind({ strategy: { validate: validateCreate, validateUpdate }, cells, timedCells, conversion });
