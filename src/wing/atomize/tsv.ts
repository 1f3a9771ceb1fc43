/**
 * Tab-separated tables of a work folder (chapters.tsv, chunks.tsv,
 * registry.tsv): one header row, one row per record. A person edits them in
 * any editor or spreadsheet, so the format is the plainest there is; a tab,
 * newline or backslash inside a value is written `\t`, `\n`, `\\`.
 */
export function escapeCell(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r?\n/g, '\\n');
}

export function unescapeCell(cell: string): string {
  return cell.replace(/\\(\\|t|n)/g, (_, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : '\\'));
}

export function formatTsv(columns: readonly string[], rows: readonly Record<string, string>[]): string {
  return [columns.join('\t'), ...rows.map((r) => columns.map((c) => escapeCell(r[c] ?? '')).join('\t'))].join('\n') + '\n';
}

export interface TsvTable {
  header: string[];
  /** Data rows with their 1-based line in the file (the header is line 1). */
  rows: { line: number; cells: string[] }[];
}

/** Rows of a TSV text; blank lines are skipped (a trailing newline, an editor's empty last line). */
export function parseTsv(text: string): TsvTable {
  const lines = text.replace(/^\ufeff/, '').split(/\r?\n/);
  const header = (lines[0] ?? '').split('\t').map((h) => h.trim());
  const rows: TsvTable['rows'] = [];
  for (let i = 1; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    rows.push({ line: i + 1, cells: raw.split('\t').map(unescapeCell) });
  }
  return { header, rows };
}

/** `a; b; c` lists inside one cell (aliases, chunk ids). */
export function splitList(cell: string): string[] {
  return cell
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function joinList(items: readonly string[]): string {
  return items.join('; ');
}
