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
