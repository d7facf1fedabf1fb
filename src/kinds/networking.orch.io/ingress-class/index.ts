/**
 * networking.orch.io/v1 IngressClass (SPEC 9.7; upstream
 * pkg/registry/networking/ingressclass/strategy.go, 1.31): generation 1 on
 * create, +1 per spec change; validated on create and update; its printer's
 * cell. The default class is the DefaultIngressClass admission plugin's.
 */
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specGeneration, validatedBy } from '../../../registry/strategy.ts';
import { cells } from './cells.ts';
import { validateIngressClass } from './validate.ts';

export default defineKind({ strategy: { ...validatedBy(validateIngressClass), ...specGeneration }, cells });
