/**
 * A node:test reporter that adds, after the TAP output, the test files whose
 * top-level tests and suites (their hooks included) took longest, and the
 * slowest of those tests and suites. CI shows the tail of the output, so a suite
 * that got slower names its culprits there.
 */
import { relative } from 'node:path';

const SHOWN = 15;

export default async function* slowestFiles(source) {
  const topLevel = [];
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      topLevel.push({ file: event.data.file, name: event.data.name, ms: event.data.details?.duration_ms ?? 0 });
    }
  }
  const shown = (file) => relative(process.cwd(), file);
  const byFile = new Map();
  for (const { file, ms } of topLevel) byFile.set(file, (byFile.get(file) ?? 0) + ms);
  const seconds = (ms) => (ms / 1000).toFixed(1).padStart(7);
  yield `\n# slowest test files (sum of their top-level tests and suites):\n`;
  for (const [file, ms] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SHOWN)) yield `# ${seconds(ms)} s  ${shown(file)}\n`;
  yield `# slowest top-level tests and suites (hooks included):\n`;
  for (const { file, name, ms } of topLevel.sort((a, b) => b.ms - a.ms).slice(0, SHOWN)) yield `# ${seconds(ms)} s  ${shown(file)}: ${name}\n`;
}
