/**
 * Property names as expression identifiers (SPEC 2.11 "Property-name
 * escaping"; upstream apiserver pkg/cel/escaping.go `Escape`, `Unescape`):
 * only names matching `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` are accessible; `__`,
 * `.`, `-` and `/` are spelled `__underscores__`, `__dot__`, `__dash__`,
 * `__slash__`, and a reserved word `w` is `__w__`.
 */

/** cel-go's reserved symbols; no identifier may collide with them. */
const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

const PLAIN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const ESCAPABLE = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;
const EXPANSIONS: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

/** Upstream Escape: the identifier for a property name, or undefined when the name cannot be one. */
export function escapeName(name: string): string | undefined {
  if (name.length === 0 || (name[0] >= '0' && name[0] <= '9')) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (PLAIN.test(name) && !name.includes('__')) return name;
  if (!ESCAPABLE.test(name)) return undefined;
  // Left to right, `__` before a lone `_`, as Go's regexp finds the leftmost match.
  return name.replace(/__|[-./]/g, (m) => EXPANSIONS[m]);
}

const CONTRACTIONS: Record<string, string> = { underscores: '__', dot: '.', dash: '-', slash: '/' };

/** Upstream Unescape: the property name an identifier stands for, or undefined for an invalid escape. */
export function unescapeName(escaped: string): string | undefined {
  let ok = true;
  const out = escaped.replace(/_{2}[^_]+_{2}/g, (m) => {
    const contents = m.slice(2, -2);
    if (Object.hasOwn(CONTRACTIONS, contents)) return CONTRACTIONS[contents];
    if (RESERVED.has(contents)) {
      if (m.length !== escaped.length) ok = false;
      return contents;
    }
    ok = false;
    return '';
  });
  return ok ? out : undefined;
}
