/**
 * The connection guard's verdict on each request the parser accepted
 * (../connection-guard.ts): a request after a malformed one on its
 * connection, a protocol version Go refuses or a missing Host is answered
 * with the guard's Status, whose headers close the connection.
 */
import { connectionVerdict } from '../connection-guard.ts';
import type { Filter } from './filter.ts';

export const connectionGuard: Filter = {
  run(request) {
    const refused = connectionVerdict(request.req);
    if (refused) throw refused;
  },
};
