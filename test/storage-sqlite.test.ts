/** The SQLite backend against the storage conformance suite, on a real database file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.ts';
import { storageConformance } from './helpers/storage-conformance.ts';

storageConformance('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-sqlite-'));
  const storage = new SqliteStorage({ file: join(dir, 'test.db') });
  return {
    storage,
    async cleanup() {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
