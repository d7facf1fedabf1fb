/**
 * Finds duplicate object keys in JSON text (SPEC 4.9 field validation: `Warn`
 * reports them, `Strict` refuses them). JSON.parse keeps the last value
 * silently, so the raw text is scanned once for them, key paths in upstream's
 * form (`metadata.name`, `spec.ingress[0].ports`). Assumes text JSON.parse
 * accepted; it only tracks structure, strings and keys.
 */

interface Frame {
  isObject: boolean;
  parent: Frame | undefined;
  /** Where this container sits in its parent: the key (in an object) or the index (in an array). */
  at: string | number;
  /** Keys seen so far (objects): a short list, turned into a set past SMALL_OBJECT keys. */
  keys: string[] | Set<string> | undefined;
  index: number;
  /** The key whose value comes next (objects). */
  pendingKey: string;
}

/** Objects up to this many keys look keys up in a list: cheaper than a Set for the small objects of most bodies. */
const SMALL_OBJECT = 16;

/** A container's path in upstream's form, built only for a duplicate: most bodies have none. */
function pathOf(frame: Frame | undefined): string {
  // Iterative: a body may nest thousands of levels deep.
  const chain: Frame[] = [];
  for (let f = frame; f?.parent; f = f.parent) chain.push(f);
  let path = '';
  for (let i = chain.length - 1; i >= 0; i--) {
    const f = chain[i]!;
    if (!f.parent!.isObject) path = `${path}[${f.at}]`;
    else path = path ? `${path}.${f.at}` : String(f.at);
  }
  return path;
}

/** Records `key` in an object frame; true when it was there already. */
function seen(frame: Frame, key: string): boolean {
  const keys = frame.keys!;
  if (Array.isArray(keys)) {
    if (keys.includes(key)) return true;
    if (keys.length < SMALL_OBJECT) keys.push(key);
    else frame.keys = new Set([...keys, key]);
    return false;
  }
  if (keys.has(key)) return true;
  keys.add(key);
  return false;
}

/** Every key of every object in a parsed JSON value. */
function keyCount(value: unknown): number {
  // Iterative: a body may nest thousands of levels deep.
  let n = 0;
  const pending: unknown[] = [value];
  while (pending.length) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object') continue;
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
      continue;
    }
    for (const key in next) {
      n++;
      pending.push((next as Record<string, unknown>)[key]);
    }
  }
  return n;
}

/** Colons in `text`: one per key, plus any inside strings. */
function colonCount(text: string): number {
  let n = 0;
  for (let at = text.indexOf(':'); at >= 0; at = text.indexOf(':', at + 1)) n++;
  return n;
}

/**
 * Returns the paths of every duplicated key, in order of appearance. With
 * `parsed` (JSON.parse of `text`, which keeps one of each repeated key), a
 * text with no more colons than the value has keys repeats none, and is not
 * walked: most bodies have no colon inside a string.
 */
export function findDuplicateFields(text: string, parsed?: unknown): string[] {
  if (parsed !== undefined && colonCount(text) === keyCount(parsed)) return [];
  const duplicates: string[] = [];
  let top: Frame | undefined;
  let expectKey = false;
  // Strings are most of a body: their ends are found with indexOf, and only a string holding
  // a backslash (the next one in the text lies inside it) is walked character by character.
  let backslash = text.indexOf('\\');
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      if (backslash >= 0 && backslash < i) backslash = text.indexOf('\\', i);
      let end = text.indexOf('"', i + 1);
      if (end < 0) end = text.length;
      const escaped = backslash >= 0 && backslash < end;
      if (escaped) {
        end = i + 1;
        while (end < text.length && text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      }
      if (expectKey && top?.isObject) {
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
        if (seen(top, key)) {
          const path = pathOf(top);
          duplicates.push(path ? `${path}.${key}` : key);
        }
        top.pendingKey = key;
        expectKey = false;
      }
      i = end;
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      const isObject = ch === 0x7b;
      const at = top ? (top.isObject ? top.pendingKey : top.index) : '';
      top = { isObject, parent: top, at, keys: isObject ? [] : undefined, index: 0, pendingKey: '' };
      expectKey = isObject;
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      top = top?.parent;
    } else if (ch === 0x2c /* , */) {
      if (top?.isObject) expectKey = true;
      else if (top) top.index++;
    }
  }
  return duplicates;
}
