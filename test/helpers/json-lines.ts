/**
 * The JSON values of a log's whole lines. A test that polls a log the server is
 * still appending to may read a long line half written; that line has no
 * newline yet and is left for the next read.
 */
export function wholeJsonLines(text: string): any[] {
  return text
    .split('\n')
    .slice(0, -1)
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
