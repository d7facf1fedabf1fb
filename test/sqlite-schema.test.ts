/**
 * The SQLite log's schema (kine-log.ts SCHEMA): one index, every statement's
 * plan still indexed, reads by `(name, prev_revision)` equal to reads by id,
 * and files made with the former schema (an extra `(name, id)` index) opening
 * with their data and without that index.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.ts';
import { KineReader } from '../src/storage/sqlite/kine-log.ts';

const dir = mkdtempSync(join(tmpdir(), 'orch-sqlite-schema-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(dir, `db-${++files}.sqlite`);

/** The schema main wrote before this change, verbatim: the table, both indexes, the meta table. */
const FORMER_SCHEMA = `
CREATE TABLE IF NOT EXISTS kine (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT NOT NULL,
  old_value TEXT
);
CREATE INDEX IF NOT EXISTS kine_name_id_index ON kine (name, id);
CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision_uindex ON kine (name, prev_revision);
CREATE TABLE IF NOT EXISTS kine_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

function indexes(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'kine' AND sql IS NOT NULL ORDER BY name`).all() as Array<{ name: string }>).map(
      (r) => r.name,
    );
  } finally {
    db.close();
  }
}

test('a file made with the former schema opens with its data and loses the (name, id) index', async () => {
  const file = newFile();
  const old = new Database(file);
  old.pragma('journal_mode = WAL');
  old.exec(FORMER_SCHEMA);
  // Rows as the former writer made them: create, update, create, delete, create again; compacted up to 2.
  const insert = old.prepare(
    `INSERT INTO kine (id, name, created, deleted, create_revision, prev_revision, value, old_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  insert.run(2, '/r/a', 0, 0, 1, 1, 'a2', 'a1');
  insert.run(3, '/r/b', 1, 0, 3, 0, 'b1', null);
  insert.run(4, '/r/b', 0, 1, 3, 3, 'b1', 'b1');
  insert.run(5, '/r/b', 1, 0, 5, 4, 'b3', null);
  insert.run(6, '/r/c', 1, 0, 6, 0, 'c1', null);
  old.prepare(`INSERT INTO kine_meta (key, value) VALUES ('compact_rev', 2)`).run();
  old.close();
  assert.deepEqual(indexes(file), ['kine_name_id_index', 'kine_name_prev_revision_uindex']);

  const storage = new SqliteStorage({ file });
  try {
    assert.deepEqual(indexes(file), ['kine_name_prev_revision_uindex']);
    assert.equal(await storage.currentRevision(), 6);
    assert.equal(await storage.compactedRevision(), 2);
    assert.deepEqual(await storage.get('/r/a'), { key: '/r/a', value: 'a2', modRevision: 2, createRevision: 1 });
    assert.deepEqual(await storage.get('/r/b'), { key: '/r/b', value: 'b3', modRevision: 5, createRevision: 5 });
    assert.equal((await storage.get('/r/b', 3))?.value, 'b1');
    assert.equal(await storage.get('/r/b', 4), null);
    assert.equal(await storage.get('/r/c', 5), null);
    assert.deepEqual(
      (await storage.list({ prefix: '/r/', revision: 4 })).items.map((kv) => [kv.key, kv.value]),
      [['/r/a', 'a2']],
    );
    assert.deepEqual(
      (await storage.list({ prefix: '/r/' })).items.map((kv) => [kv.key, kv.value, kv.modRevision]),
      [
        ['/r/a', 'a2', 2],
        ['/r/b', 'b3', 5],
        ['/r/c', 'c1', 6],
      ],
    );
    // The compare-and-swap still holds on the remaining index, and new rows continue the log.
    const r7 = await storage.update('/r/a', 'a3', 2);
    assert.equal(r7, 7);
    await assert.rejects(storage.update('/r/a', 'a4', 2));
    const r8 = await storage.create('/r/d', 'd1');
    assert.deepEqual(await storage.get('/r/d'), { key: '/r/d', value: 'd1', modRevision: r8, createRevision: r8 });
  } finally {
    await storage.close();
  }
  // Reopening an already migrated file changes nothing.
  const again = new SqliteStorage({ file });
  try {
    assert.deepEqual(indexes(file), ['kine_name_prev_revision_uindex']);
    assert.equal((await again.get('/r/a'))?.value, 'a3');
  } finally {
    await again.close();
  }
});

test('a key read at every revision of a long history, through deletes, re-creates and compaction', async () => {
  const file = newFile();
  const storage = new SqliteStorage({ file });
  try {
    // expected[revision] = the key's value at that revision (null: absent), built as the writes go.
    const history: Array<{ revision: number; value: string | null; createRevision: number }> = [];
    let live: { revision: number; createRevision: number } | null = null;
    for (let round = 0; round < 4; round++) {
      const created = await storage.create('/h/key', `v${round}.0`);
      // Other keys between the key's revisions, so its rows are not adjacent.
      await storage.create(`/h/other-${round}`, 'x');
      history.push({ revision: created, value: `v${round}.0`, createRevision: created });
      live = { revision: created, createRevision: created };
      for (let i = 1; i <= 3; i++) {
        const updated = await storage.update('/h/key', `v${round}.${i}`, live.revision);
        history.push({ revision: updated, value: `v${round}.${i}`, createRevision: live.createRevision });
        live = { revision: updated, createRevision: live.createRevision };
      }
      const deleted = await storage.delete('/h/key', live.revision);
      history.push({ revision: deleted, value: null, createRevision: 0 });
    }
    const head = await storage.currentRevision();
    const expectedAt = (revision: number) => [...history].reverse().find((h) => h.revision <= revision);
    const check = async (from: number) => {
      for (let revision = from; revision <= head; revision++) {
        const expected = expectedAt(revision);
        const kv = await storage.get('/h/key', revision);
        assert.deepEqual(
          kv && [kv.value, kv.modRevision, kv.createRevision],
          expected?.value ? [expected.value, expected.revision, expected.createRevision] : null,
          `at revision ${revision}`,
        );
      }
    };
    await check(1);
    const compactTo = history[9].revision;
    await storage.compact(compactTo);
    await check(compactTo);
    // After the last delete was compacted away, the key is created afresh and is its own create revision.
    await storage.compact(head);
    const recreated = await storage.create('/h/key', 'again');
    assert.deepEqual(await storage.get('/h/key'), { key: '/h/key', value: 'again', modRevision: recreated, createRevision: recreated });
  } finally {
    await storage.close();
  }
});

test('creates batched with refused writes each get their own revision as create revision', async () => {
  const storage = new SqliteStorage({ file: newFile() });
  try {
    await storage.create('/b/taken', 'x');
    const outcomes = await Promise.allSettled([
      storage.create('/b/one', '1'),
      storage.create('/b/taken', 'again'),
      storage.create('/b/two', '2'),
      storage.update('/b/taken', 'stale', 999),
      storage.create('/b/three', '3'),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
    for (const key of ['/b/one', '/b/two', '/b/three']) {
      const kv = await storage.get(key);
      assert.ok(kv);
      assert.equal(kv.createRevision, kv.modRevision, key);
    }
  } finally {
    await storage.close();
  }
});

test('every statement of the log reads through an index, never a scan of the table', async () => {
  const file = newFile();
  const storage = new SqliteStorage({ file });
  for (let i = 0; i < 200; i++) await storage.create(`/p/${String(i).padStart(3, '0')}`, 'v');
  const db = new Database(file);
  try {
    db.exec('ANALYZE');
    // The statements as the two classes prepared them (better-sqlite3 keeps each one's text).
    const statements = {
      ...(new KineReader(db) as unknown as { stmt: Record<string, Database.Statement> }).stmt,
      ...(storage as unknown as { stmt: Record<string, Database.Statement> }).stmt,
    };
    const plans = Object.entries(statements)
      .filter(([, statement]) => /\bkine\b/.test(statement.source))
      .map(([name, statement]) => {
        const parameters = (statement.source.match(/\?/g) ?? []).map(() => 1);
        const plan = db.prepare(`EXPLAIN QUERY PLAN ${statement.source}`).all(...parameters) as Array<{ detail: string }>;
        return [name, plan.map((row) => row.detail)] as const;
      });
    assert.ok(plans.length >= 10, `${plans.length} statements`);
    for (const [name, details] of plans) {
      assert.ok(!details.some((d) => /^SCAN (kine|k)\b/.test(d)), `${name} scans the table: ${details.join('; ')}`);
    }
    // A key's newest row, and a range's rows in key order, come straight off the index: no sort of all its rows.
    const plan = Object.fromEntries(plans);
    for (const name of ['latest', 'atRevision', 'listRange']) {
      assert.ok(plan[name].some((d) => d.includes('USING INDEX kine_name_prev_revision_uindex') || d.includes('USING COVERING INDEX kine_name_prev_revision_uindex')), `${name}: ${plan[name].join('; ')}`);
      assert.ok(!plan[name].some((d) => d.includes('TEMP B-TREE')), `${name} sorts: ${plan[name].join('; ')}`);
    }
  } finally {
    db.close();
    await storage.close();
  }
});
