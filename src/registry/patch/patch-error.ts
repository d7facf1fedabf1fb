/**
 * The error of the patch engines (SPEC §4.5 "Update mechanisms"; FACTS §1.1).
 * Their helpers over plain JSON values live in ../json-value.ts.
 */

/**
 * A patch could not be applied. `reason` picks the status the handler answers
 * with (FACTS §1.1): `BadRequest` (400) for an undecodable / malformed patch
 * document or misused directive, `Invalid` (422) for a well-formed patch that
 * does not apply to the object (failed `test`, missing path),
 * `RequestEntityTooLarge` (413) for a JSON patch of too many operations.
 */
export class PatchError extends Error {
  constructor(message: string, readonly reason: 'BadRequest' | 'Invalid' | 'RequestEntityTooLarge') {
    super(message);
    this.name = 'PatchError';
  }
}
