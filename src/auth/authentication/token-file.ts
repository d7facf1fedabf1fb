/**
 * Static bearer tokens (`--token-auth-file`, SPEC 5.2): CSV lines
 * `token,user,uid,"group1,group2"`, as kube-apiserver reads them.
 */
import { readFileSync } from 'node:fs';
import type { UserInfo } from '../../api/user.ts';

/** Splits one CSV line, honouring double quotes around a field. */
function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        current += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else current += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      fields.push(current);
      current = '';
    } else current += ch;
  }
  fields.push(current);
  return fields.map((f) => f.trim());
}

/** Parses a token file; a malformed line is a start-up error naming the line, as upstream. */
export function parseTokenFile(text: string, source: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim() || line.trim().startsWith('#')) return;
    const [token, name, uid, groups] = splitCsvLine(line);
    if (!token || !name) throw new Error(`${source}:${index + 1}: token file lines need at least token,user,uid`);
    if (tokens.has(token)) console.warn(`${source}:${index + 1}: duplicate token; the later line wins`);
    tokens.set(token, { name, uid: uid || undefined, groups: groups ? groups.split(',').map((g) => g.trim()).filter(Boolean) : [] });
  });
  return tokens;
}

export function loadTokenFile(path: string): Map<string, UserInfo> {
  return parseTokenFile(readFileSync(path, 'utf8'), path);
}
