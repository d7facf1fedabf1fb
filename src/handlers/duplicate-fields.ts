/**
 * Finds duplicate object keys in JSON text (SPEC 4.9 field validation: `Warn`
 * reports them, `Strict` refuses them). JSON.parse keeps the last value
 * silently, so the raw text is scanned once for them, key paths in upstream's
 * form (`metadata.name`, `spec.ingress[0].ports`). Assumes text JSON.parse
 * accepted; it only tracks structure, strings and keys.
 */

interface Frame {
  kind: 'object' | 'array';
  path: string;
  keys?: Set<string>;
  index: number;
  /** The key whose value comes next (objects). */
  pendingKey?: string;
}

function childPath(frame: Frame | undefined): string {
  if (!frame) return '';
  if (frame.kind === 'array') return `${frame.path}[${frame.index}]`;
  const key = frame.pendingKey ?? '';
  return frame.path ? `${frame.path}.${key}` : key;
}

/** Returns the paths of every duplicated key, in order of appearance. */
export function findDuplicateFields(text: string): string[] {
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      let end = i + 1;
      let escaped = false;
      while (end < text.length && text.charCodeAt(end) !== 0x22) {
        if (text.charCodeAt(end) === 0x5c) {
          escaped = true;
          end += 2;
        } else end++;
      }
      const top = stack[stack.length - 1];
      if (expectKey && top?.kind === 'object') {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
        if (top.keys!.has(key)) duplicates.push(top.path ? `${top.path}.${key}` : key);
        else top.keys!.add(key);
        top.pendingKey = key;
        expectKey = false;
      }
      i = end;
    } else if (ch === 0x7b /* { */) {
      stack.push({ kind: 'object', path: childPath(stack[stack.length - 1]), keys: new Set(), index: 0 });
      expectKey = true;
    } else if (ch === 0x5b /* [ */) {
      stack.push({ kind: 'array', path: childPath(stack[stack.length - 1]), index: 0 });
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      stack.pop();
    } else if (ch === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.kind === 'object') expectKey = true;
      else if (top) top.index++;
    }
  }
  return duplicates;
}
