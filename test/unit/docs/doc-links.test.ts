import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

function markdownFiles(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return docs(relative);
      return entry.name.endsWith('.md') ? [relative] : [];
    });
  return ['README.md', 'bench/README.md', ...docs('docs')];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'results' ? [] : sourceFiles(relative);
    return /\.(ts|md|yml)$/.test(entry.name) ? [relative] : [];
  });
}

/** The text outside fenced code blocks: links and paths in examples are not the doc's own. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '));
}

/** GitHub's anchors of a markdown file's headings. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of prose(readFileSync(path.join(ROOT, file), 'utf8')).matchAll(
    /^#{1,6}\s+(.+?)\s*#*\s*$/gm,
  )) {
    const slug = (match[1] ?? '')
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The headings of a markdown file, as written. */
function headingsOf(file: string): Set<string> {
  const text = prose(readFileSync(path.join(ROOT, file), 'utf8'));
  return new Set([...text.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((match) => match[1] ?? ''));
}

describe('the docs', () => {
  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = prose(readFileSync(path.join(ROOT, file), 'utf8'));
      for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1] ?? '';
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [linkPath = '', anchor] = target.split('#');
        const resolved =
          linkPath === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), linkPath));
        if (!existsSync(path.join(ROOT, resolved))) {
          broken.push(`${file}: ${target} (no file ${resolved})`);
          continue;
        }
        if (
          anchor !== undefined &&
          anchor !== '' &&
          resolved.endsWith('.md') &&
          !anchorsOf(resolved).has(anchor)
        ) {
          broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('name only repository paths that exist', () => {
    const missing: string[] = [];
    for (const file of markdownFiles()) {
      const text = prose(readFileSync(path.join(ROOT, file), 'utf8'));
      for (const match of text.matchAll(/`((?:src|test|bench|infra|docs)\/[\w./-]*[\w/])`/g)) {
        const named = match[1] ?? '';
        if (/[*<>]/.test(named)) continue;
        if (!existsSync(path.join(ROOT, named))) missing.push(`${file}: ${named}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('have the sections that code comments cite (docs/<file>.md, "<heading>")', () => {
    const missing: string[] = [];
    for (const file of [
      ...sourceFiles('src'),
      ...sourceFiles('test'),
      ...sourceFiles('bench'),
      ...markdownFiles(),
    ]) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of text.matchAll(/(docs\/[\w/-]+\.md),\s*(?:\/\/\s*|\*\s*)?"([^"]+)"/g)) {
        const doc = match[1] ?? '';
        // A citation wrapped across comment lines: join the lines.
        const heading = (match[2] ?? '').replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, ' ');
        if (!existsSync(path.join(ROOT, doc)) || !headingsOf(doc).has(heading)) {
          missing.push(`${file}: ${doc}, "${heading}"`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
