/** GET /version (FACTS 4): the API level this server implements, 1.31. */
import pkg from '../../../package.json' with { type: 'json' };
import { writeJsonText } from '../../http/respond.ts';
import type { Endpoint } from './endpoint.ts';

export function versionInfo() {
  return {
    major: '1',
    minor: '31',
    gitVersion: `v1.31.0+orch-${pkg.version}`,
    gitCommit: '',
    gitTreeState: '',
    buildDate: '',
    goVersion: `node${process.versions.node}`,
    compiler: 'typescript',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

export const versionEndpoint: Endpoint = {
  methods: 'read',
  serve({ res, encode }, path) {
    if (path !== '/version') return false;
    writeJsonText(res, 200, JSON.stringify(versionInfo()), encode);
    return true;
  },
  refusesOtherMethods: (path) => path === '/version',
};
