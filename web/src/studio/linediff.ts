// A line diff for comparing two versions of a draft: the longest common
// subsequence of lines, so that a moved block shows as removed and added
// and everything else lines up. Drafts are at most a few thousand lines;
// past a bound the table would be too big, so the diff falls back to
// trimming the common head and tail and showing the middle as replaced.

/** One line of a diff: kept, added (only in the newer text) or removed (only in the older). */
export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
  /** oldLine and newLine are 1-based line numbers in each text (absent on the side the line is not in). */
  oldLine?: number;
  newLine?: number;
}

/** The most cells of the LCS table worked out (4 million: a 2,000-line draft against itself). */
const maxCells = 4_000_000;

/** lineDiff compares older with newer, line by line. */
export function lineDiff(older: string, newer: string): DiffLine[] {
  const a = older.split('\n');
  const b = newer.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: DiffLine[] = [];
  for (let i = 0; i < head; i++) out.push({ kind: 'same', text: a[i] ?? '', oldLine: i + 1, newLine: i + 1 });
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  out.push(...middle(am, bm, head));
  for (let i = tail; i > 0; i--) {
    out.push({ kind: 'same', text: a[a.length - i] ?? '', oldLine: a.length - i + 1, newLine: b.length - i + 1 });
  }
  return out;
}

function middle(a: string[], b: string[], offset: number): DiffLine[] {
  const out: DiffLine[] = [];
  if ((a.length + 1) * (b.length + 1) > maxCells) {
    a.forEach((text, i) => out.push({ kind: 'removed', text, oldLine: offset + i + 1 }));
    b.forEach((text, j) => out.push({ kind: 'added', text, newLine: offset + j + 1 }));
    return out;
  }
  // lcs[i][j]: the length of the longest common subsequence of a[i:] and b[j:].
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? (lcs[(i + 1) * w + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * w + j] ?? 0, lcs[i * w + j + 1] ?? 0);
    }
  }
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i] ?? '', oldLine: offset + i + 1, newLine: offset + j + 1 });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || (lcs[(i + 1) * w + j] ?? 0) >= (lcs[i * w + j + 1] ?? 0))) {
      out.push({ kind: 'removed', text: a[i] ?? '', oldLine: offset + i + 1 });
      i++;
    } else {
      out.push({ kind: 'added', text: b[j] ?? '', newLine: offset + j + 1 });
      j++;
    }
  }
  return out;
}

/** diffSummary says in words how much changed: "2 lines added, 1 removed". */
export function diffSummary(lines: DiffLine[]): string {
  const added = lines.filter((l) => l.kind === 'added').length;
  const removed = lines.filter((l) => l.kind === 'removed').length;
  if (added === 0 && removed === 0) return 'No differences.';
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(added, 'line')} added, ${removed} removed.`;
}
