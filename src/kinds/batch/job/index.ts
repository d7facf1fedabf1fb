/** batch/v1 Job (SPEC 9.7): its strategy and the cells of its printer columns. */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { cells, timedCells } from './cells.ts';
import { strategy } from './strategy.ts';

export default defineKind({ strategy, cells, timedCells });
