/**
 * The seam between the poller and the consume modes (src/poller/consume-modes.ts): every mode the
 * option specs allow has its factory row, and nothing outside src/consumer tells the modes apart by
 * class (they share the contract of src/consumer/mapping-consumer.ts; `mode` says which is which).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CONSUMER_OPTION_SPECS } from '../../../src/consumer/consumer-option-specs.js';
import { CONSUME_MODES } from '../../../src/poller/consume-modes.js';

const SRC = path.join(import.meta.dirname, '../../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
}

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  node.forEachChild((child) => visit(child, each));
}

/** The classes of src/consumer that implement the consume-mode contract. */
function modeClasses(): string[] {
  const names: string[] = [];
  for (const file of sourceFiles(path.join(SRC, 'consumer'))) {
    visit(parse(file), (node) => {
      if (!ts.isClassDeclaration(node) || node.name === undefined) return;
      const implemented = (node.heritageClauses ?? [])
        .filter((clause) => clause.token === ts.SyntaxKind.ImplementsKeyword)
        .flatMap((clause) => clause.types.map((type) => type.expression.getText()));
      if (implemented.includes('MappingConsumer')) names.push(node.name.text);
    });
  }
  return names.sort();
}

/** `file:line instanceof Name` for every `instanceof` of one of `classes` in the files. */
function instanceofChecks(files: readonly string[], classes: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const source = parse(file);
    visit(source, (node) => {
      if (!ts.isBinaryExpression(node) || node.operatorToken.kind !== ts.SyntaxKind.InstanceOfKeyword) return;
      const name = node.right.getText();
      if (!classes.includes(name)) return;
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${path.relative(SRC, file)}:${line + 1} instanceof ${name}`);
    });
  }
  return found;
}

describe('consume modes', () => {
  it('has a factory for every consumeMode the option specs allow, and none other', () => {
    expect(Object.keys(CONSUME_MODES).sort()).toEqual([...CONSUMER_OPTION_SPECS.consumeMode.values].sort());
  });

  it('are told apart by mode, never by class, outside src/consumer', () => {
    const classes = modeClasses();
    expect(classes).toEqual(['ConsumerRuntime', 'PopConsumer']);
    const outside = sourceFiles(SRC).filter(
      (file) => !file.startsWith(path.join(SRC, 'consumer') + path.sep),
    );
    expect(instanceofChecks(outside, classes)).toEqual([]);
  });
});
