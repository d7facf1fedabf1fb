/** core/v1 Node (upstream pkg/registry/core/node, 1.31): its strategy and the cells of its printer columns. */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { cells } from './cells.ts';
import { strategy } from './strategy.ts';

export default defineKind({ strategy, cells });
