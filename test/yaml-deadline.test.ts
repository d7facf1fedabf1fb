// A YAML body decoded off the event loop (src/handlers/yaml-document.ts) stops
// when its request's deadline passes: the decode is abandoned with the
// deadline's reason, whether it waits in the queue or runs, and the next
// decode gets a worker again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseYamlDocument } from '../src/handlers/yaml-document.ts';
import { DeadlineExceededError } from '../src/storage/interface.ts';
import { DeadlineAbort } from '../src/util/deadline-signal.ts';
import { deepYaml } from './helpers/hostile-bodies.ts';


test('decodes abandoned at their deadline reject with its reason; later decodes still run', { timeout: 30_000 }, async () => {
  const running = new DeadlineAbort();
  const queued = new DeadlineAbort();
  const first = parseYamlDocument(deepYaml('running'), running);
  const second = parseYamlDocument(deepYaml('queued'), queued);
  queued.abort(new DeadlineExceededError());
  running.abort(new DeadlineExceededError());
  await assert.rejects(first, DeadlineExceededError);
  await assert.rejects(second, DeadlineExceededError);
  const passed = new DeadlineAbort();
  passed.abort(new DeadlineExceededError());
  await assert.rejects(parseYamlDocument(deepYaml('too-late'), passed), DeadlineExceededError);
  const after = (await parseYamlDocument(deepYaml('after'))) as { metadata: { name: string } };
  assert.equal(after.metadata.name, 'after');
});
