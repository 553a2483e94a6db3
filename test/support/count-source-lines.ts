/**
 * Lines of the TypeScript under a directory (src/ by default), by kind: a line with any token is code, a
 * line with only comments is a comment line, the rest are blank. Counts `@example` blocks and their lines
 * too (the tag to the next tag or the end of the comment). For before/after figures of a change:
 *
 *   npx tsx test/support/count-source-lines.ts [dir]
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface SourceLines {
  readonly files: number;
  readonly total: number;
  readonly code: number;
  readonly comment: number;
  readonly blank: number;
  readonly examples: number;
  readonly exampleLines: number;
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The line kinds of one file's text. */
function countText(fileName: string, text: string): Omit<SourceLines, 'files'> {
  const sourceFile = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const lineCount = sourceFile.getLineStarts().length - (text.endsWith('\n') ? 1 : 0);
  const isCode = new Uint8Array(lineCount + 1);
  const isComment = new Uint8Array(lineCount + 1);
  const lineOf = (position: number) => sourceFile.getLineAndCharacterOfPosition(position).line;
  const mark = (lines: Uint8Array, start: number, end: number) => {
    for (let line = lineOf(start); line <= lineOf(Math.max(start, end - 1)); line++) lines[line] = 1;
  };
  const seen = new Set<number>();
  const comments = (position: number) => {
    const ranges = [
      ...(ts.getLeadingCommentRanges(text, position) ?? []),
      ...(ts.getTrailingCommentRanges(text, position) ?? []),
    ];
    for (const range of ranges) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      mark(isComment, range.pos, range.end);
    }
  };
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(sourceFile);
    if (children.length > 0) {
      for (const child of children) visit(child);
      return;
    }
    comments(node.pos);
    const start = node.getStart(sourceFile);
    if (node.end > start) mark(isCode, start, node.end);
    comments(node.end);
  };
  visit(sourceFile);
  let code = 0;
  let comment = 0;
  let blank = 0;
  for (let line = 0; line < lineCount; line++) {
    if (isCode[line]) code++;
    else if (isComment[line]) comment++;
    else blank++;
  }
  let examples = 0;
  let exampleLines = 0;
  let inExample = false;
  for (const line of text.split('\n')) {
    if (/^\s*\*\s*@example\b/.test(line)) {
      inExample = true;
      examples++;
      exampleLines++;
    } else if (inExample && (/^\s*\*\s*@/.test(line) || line.includes('*/'))) {
      inExample = false;
    } else if (inExample) {
      exampleLines++;
    }
  }
  return { total: lineCount, code, comment, blank, examples, exampleLines };
}

export function countSourceLines(dir: string): SourceLines {
  const totals = { files: 0, total: 0, code: 0, comment: 0, blank: 0, examples: 0, exampleLines: 0 };
  for (const file of typeScriptFiles(dir)) {
    const counts = countText(file, readFileSync(file, 'utf8'));
    totals.files++;
    for (const key of Object.keys(counts) as (keyof typeof counts)[]) totals[key] += counts[key];
  }
  return totals;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? fileURLToPath(new URL('../../src', import.meta.url));
  const counts = countSourceLines(dir);
  console.log(
    JSON.stringify({ ...counts, commentShare: Number((counts.comment / counts.total).toFixed(3)) }),
  );
}
