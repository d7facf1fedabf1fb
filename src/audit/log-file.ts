/**
 * The audit log file as upstream writes it (pkg/server/options/audit.go
 * getWriter, gopkg.in/natefinch/lumberjack.v2 Logger): created 0600 in a 0700
 * directory; with a maximum size, a write that would pass it first renames the
 * file to `<name>-<UTC 2006-01-02T15-04-05.000><ext>` and starts a new one,
 * then old backups are removed past --audit-log-maxbackup and
 * --audit-log-maxage and, with --audit-log-compress, gzipped. Writes are
 * synchronous and whole, so lines never interleave within this process; one
 * process owns the file (worker-pool: workers send their events to the primary).
 */
import { closeSync, createReadStream, createWriteStream, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface LogFileOptions {
  path: string;
  /** Megabytes; 0: never rotated. */
  maxSizeMb: number;
  maxBackups: number;
  maxAgeDays: number;
  compress: boolean;
}

const MEGABYTE = 1024 * 1024;

export class RotatingLogFile {
  private fd: number;
  private size: number;
  private readonly max: number;
  private milling: Promise<void> = Promise.resolve();

  constructor(private readonly options: LogFileOptions) {
    mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
    this.fd = openSync(options.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
    this.max = options.maxSizeMb * MEGABYTE;
  }

  /** lumberjack Logger.Write. */
  write(text: string): void {
    const bytes = Buffer.from(text);
    if (this.max > 0) {
      if (bytes.length > this.max) throw new Error(`write length ${bytes.length} exceeds maximum file size ${this.max}`);
      if (this.size + bytes.length > this.max) this.rotate();
    }
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    this.size += bytes.length;
  }

  close(): Promise<void> {
    closeSync(this.fd);
    return this.milling;
  }

  private rotate(): void {
    closeSync(this.fd);
    renameSync(this.options.path, this.backupName(new Date()));
    this.fd = openSync(this.options.path, 'a', 0o600);
    this.size = 0;
    this.milling = this.milling.then(() => this.mill()).catch((err) => console.error(`audit log: ${(err as Error).message}`));
  }

  private prefixAndExt(): { prefix: string; ext: string } {
    const name = basename(this.options.path);
    const ext = extname(name);
    return { prefix: `${name.slice(0, name.length - ext.length)}-`, ext };
  }

  /** lumberjack backupName with LocalTime false. */
  private backupName(at: Date): string {
    const { prefix, ext } = this.prefixAndExt();
    const stamp = at.toISOString().slice(0, 23).replace(/:/g, '-');
    return join(dirname(this.options.path), `${prefix}${stamp}${ext}`);
  }

  /** lumberjack millRunOnce: the backups newest first, trimmed by count and age, then compressed. */
  private async mill(): Promise<void> {
    const { maxBackups, maxAgeDays, compress } = this.options;
    if (maxBackups === 0 && maxAgeDays === 0 && !compress) return;
    const dir = dirname(this.options.path);
    const { prefix, ext } = this.prefixAndExt();
    const backups = readdirSync(dir)
      .flatMap((name) => {
        const stem = name.endsWith(`${ext}.gz`) ? name.slice(0, -3) : name;
        if (!stem.startsWith(prefix) || !stem.endsWith(ext)) return [];
        const stamp = stem.slice(prefix.length, stem.length - ext.length);
        const match = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(stamp);
        if (!match) return [];
        return [{ name, stem, time: Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`) }];
      })
      .sort((a, b) => b.time - a.time);
    let keep = backups;
    const remove: typeof backups = [];
    if (maxBackups > 0 && maxBackups < keep.length) {
      const preserved = new Set<string>();
      const kept: typeof backups = [];
      for (const file of keep) {
        preserved.add(file.stem);
        if (preserved.size > maxBackups) remove.push(file);
        else kept.push(file);
      }
      keep = kept;
    }
    if (maxAgeDays > 0) {
      const cutoff = Date.now() - maxAgeDays * 24 * 3600_000;
      remove.push(...keep.filter((f) => f.time < cutoff));
      keep = keep.filter((f) => f.time >= cutoff);
    }
    for (const file of remove) unlinkSync(join(dir, file.name));
    if (!compress) return;
    for (const file of keep) {
      if (file.name.endsWith('.gz')) continue;
      const source = join(dir, file.name);
      const mode = statSync(source).mode & 0o777;
      // Written aside and renamed whole: a reader never finds half a .gz (lumberjack writes it in place).
      const partial = `${source}.gz.partial`;
      await pipeline(createReadStream(source), createGzip(), createWriteStream(partial, { mode }));
      renameSync(partial, `${source}.gz`);
      unlinkSync(source);
    }
  }
}
