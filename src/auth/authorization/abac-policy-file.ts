/**
 * `--authorization-policy-file` (SPEC 5.1 item 5, mode ABAC): one policy per
 * line, read once at start-up as upstream's abac.NewFromFile reads it. Blank
 * lines and lines starting with `#` are skipped but counted; the first line
 * that does not decode is the error, naming the file, the line number and the
 * line; a line longer than Go's bufio.Scanner takes ends the reading.
 */
import { readFileSync } from 'node:fs';
import { decodePolicyLine, goTrimSpace, type PolicySpec } from './abac-policy.ts';

/** bufio.MaxScanTokenSize: a line must fit, with its newline, in 64 KiB. */
const MAX_LINE_BYTES = 64 * 1024 - 1;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Go's texts for the open errors a policy file meets (os.PathError). */
const GO_ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
};

function readPolicyBytes(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    // Go opens a directory and fails on the first read.
    if (code === 'EISDIR') throw new Error(`error reading policy file ${path}: read ${path}: is a directory`);
    throw new Error(`open ${path}: ${GO_ERRNO_TEXT[code ?? ''] ?? message}`);
  }
}

/**
 * Reads and decodes a policy file, or throws upstream's policyLoadError text
 * (`error reading policy file <path>, line <n>: <line>: <error>`).
 */
export function loadPolicyFile(path: string): PolicySpec[] {
  const bytes = readPolicyBytes(path);
  const policies: PolicySpec[] = [];
  let unversionedLines = 0;
  let tooLong = false;
  let lineNumber = 0;
  for (let start = 0; start < bytes.length; ) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    if (end - start > MAX_LINE_BYTES) {
      tooLong = true;
      break;
    }
    lineNumber++;
    // bufio.ScanLines drops one carriage return before the newline.
    const line = bytes.toString('utf8', start, end > start && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end);
    start = end + 1;
    const trimmed = goTrimSpace(line);
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    try {
      const decoded = decodePolicyLine(line);
      if (decoded.unversioned) unversionedLines++;
      policies.push(decoded.spec);
    } catch (err) {
      throw new Error(`error reading policy file ${path}, line ${lineNumber}: ${line}: ${(err as Error).message}`);
    }
  }
  if (unversionedLines > 0) {
    console.warn(`Policy file ${path} contained unversioned rules. See docs/admin/authorization.md#abac-mode for ABAC file format details.`);
  }
  if (tooLong) throw new Error(`error reading policy file ${path}: bufio.Scanner: token too long`);
  return policies;
}
