/** Creating a CustomResourceDefinition in a test and waiting until every process of the server serves it. */
import { expectWrite } from './api.ts';
import { eventually } from './eventually.ts';
import type { TestServer } from './server.ts';

export const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';

/** Creates the definition, then waits until each path answers 200 several times in a row (every process of the pool). */
export async function createServedCrd(server: TestServer, crd: any, paths: string[]): Promise<any> {
  const created = await expectWrite(server, 'POST', CRDS, crd);
  for (const path of paths) {
    await eventually(`${path} served`, async () => {
      for (let i = 0; i < 6; i++) if ((await server.request('GET', path)).status !== 200) return undefined;
      return true;
    });
  }
  return created;
}

/** A definition of `<plural>.example.com` in group example.com with these versions. */
export function exampleCrd(plural: string, kind: string, scope: 'Namespaced' | 'Cluster', versions: unknown[]) {
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: { group: 'example.com', scope, names: { plural, singular: kind.toLowerCase(), kind }, versions },
  };
}
