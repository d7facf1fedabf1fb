/**
 * core/v1 Pod (SPEC 5.2; upstream pkg/registry/core/pod, 1.31): its strategy,
 * the cells of its printer columns and the row condition of a finished pod.
 * Its spec validation and defaults serve every pod template too (PodTemplate,
 * ReplicationController, the apps and batch workloads).
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { cells, rowConditions, timedCells } from './cells.ts';
import { strategy } from './strategy.ts';

export default defineKind({ strategy, cells, timedCells, rowConditions });
