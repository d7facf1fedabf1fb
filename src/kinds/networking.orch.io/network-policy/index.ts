/**
 * networking.orch.io NetworkPolicy (SPEC 2.6; FACTS 6; upstream
 * pkg/registry/networking/networkpolicy/strategy.go, 1.31): defaults, then
 * every rule; generation follows spec changes.
 */
import type { components } from '../../../generated/types/apis__networking.orch.io__v1.ts';
import { defineKind } from '../../../registry/kind-hooks.ts';
import { specGeneration, validatedBy, type Strategy } from '../../../registry/strategy.ts';
import { validateNetworkPolicy } from './validate.ts';

type NetworkPolicy = components['schemas']['io.orch.api.networking.v1.NetworkPolicy'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Defaults policyTypes (FACTS 6.2); also materialises `spec`/`spec.podSelector` as Go serialises them. */
export function defaultNetworkPolicy(obj: any): void {
  if (!isObj(obj.spec)) obj.spec = {};
  const spec = obj.spec;
  if (!isObj(spec.podSelector)) spec.podSelector = {};
  if (arr(spec.policyTypes).length === 0) {
    spec.policyTypes = arr(spec.egress).length !== 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

const strategy: Strategy<NetworkPolicy> = {
  ...specGeneration,
  applyDefaults: defaultNetworkPolicy,
  ...validatedBy(validateNetworkPolicy),
};

export default defineKind({ strategy });
