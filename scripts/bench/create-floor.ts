/**
 * The create floor (issue 10, create ≥ 0.2x http): the least any server must do
 * to answer a create durably over HTTPS, without an API server's own work, as a
 * raw baseline for the CREATE line. Per POST it reads the body, parses it,
 * gives the object a uid, a creationTimestamp and a resourceVersion, serializes
 * it, inserts it into a SQLite file (WAL, a row per write keyed by name and
 * previous revision as orch's store does), and answers 201 with it once the
 * commit is on disk. Writes arriving in the same event-loop turn share one
 * transaction and one fsync (`synchronous = FULL`), the group commit orch's
 * SQLite store does as well.
 *
 * What it leaves out is everything an API server adds: authentication and
 * authorization, the typed decode and field validation, defaulting, admission,
 * managedFields, the watch cache and its events. A name already taken is 409,
 * any other failure 500; neither happens in the benchmark.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

interface Pending {
  key: string;
  text: string;
  res: ServerResponse;
  revision?: number;
}

const answer = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

/** A request handler over a new SQLite file at `file`. */
export function createFloorHandler(file: string): (req: IncomingMessage, res: ServerResponse) => void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE kv (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, prev_revision INTEGER NOT NULL, value TEXT NOT NULL, UNIQUE(name, prev_revision))');
  const insert = db.prepare('INSERT INTO kv (name, prev_revision, value) VALUES (?, 0, ?)');
  const commitBatch = db.transaction((batch: Pending[]) => {
    for (const write of batch) {
      try {
        write.revision = Number(insert.run(write.key, write.text).lastInsertRowid);
      } catch {
        write.revision = undefined;
      }
    }
  });
  let pending: Pending[] = [];
  const commit = () => {
    const batch = pending;
    pending = [];
    try {
      commitBatch(batch);
    } catch (err) {
      for (const write of batch) answer(write.res, 500, JSON.stringify({ message: (err as Error).message }));
      return;
    }
    for (const write of batch) {
      if (write.revision === undefined) answer(write.res, 409, '{"reason":"AlreadyExists"}');
      // The stored text with the revision appended, as orch answers a create from its stored bytes.
      else answer(write.res, 201, `${write.text.slice(0, -1)},"resourceVersion":"${write.revision}"}`);
    }
  };
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let object: { metadata?: Record<string, unknown> };
      try {
        object = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        answer(res, 400, '{"reason":"BadRequest"}');
        return;
      }
      const metadata = (object.metadata ??= {});
      metadata.uid = randomUUID();
      metadata.creationTimestamp = `${new Date().toISOString().slice(0, 19)}Z`;
      if (pending.length === 0) setImmediate(commit);
      pending.push({ key: `${String(metadata.namespace)}/${String(metadata.name)}`, text: JSON.stringify(object), res });
    });
  };
}
