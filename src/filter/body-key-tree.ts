import type { PatternNode } from './pattern-node.js';

/**
 * The keys inside a JSON body that a filter's patterns read, as a tree: the root stands for the body,
 * each child for a key of the object at its parent's place (arrays on the way are transparent, as they
 * are to the matcher). The body scanner (json-body-scanner.ts) keeps only these keys; the matcher
 * (message-filter.ts) never reads any other, so it answers the same on the kept keys as on the whole body.
 */
export interface BodyKeyNode {
  /** The keys read at this place, each with its UTF-8 bytes and its own subtree. */
  readonly children: readonly BodyKeyChild[];
  /** The same children by key. */
  readonly byKey: ReadonlyMap<string, BodyKeyChild>;
  /**
   * Every child key can be compared with a body's raw key bytes: its UTF-8 form decodes back to it
   * (no lone surrogate) and it has no U+FFFD (which a body's invalid UTF-8 decodes to). When false, the
   * scanner decodes each body key at this place and looks it up in {@link BodyKeyNode.byKey}.
   */
  readonly bytesComparable: boolean;
}

/** One key of a {@link BodyKeyNode}. */
export interface BodyKeyChild {
  readonly key: string;
  readonly bytes: Uint8Array;
  readonly node: BodyKeyNode;
}

interface Building {
  readonly children: Map<string, Building>;
}

/** The keys inside `body` that the compiled patterns `nodes` read (their `body` fields, `$or` branches included). */
export function bodyKeyTree(nodes: readonly PatternNode[]): BodyKeyNode {
  const root: Building = { children: new Map() };
  const addTop = (node: PatternNode): void => {
    for (const field of node.fields) if (field.isBody && field.kind === 'object') addNode(root, field.node);
    for (const branches of node.orGroups) for (const branch of branches) addTop(branch);
  };
  for (const node of nodes) addTop(node);
  return freeze(root);
}

/** Adds the keys `node` reads at the place `at` (its fields' keys, its branches' on the same object). */
function addNode(at: Building, node: PatternNode): void {
  for (const field of node.fields) {
    let child = at.children.get(field.key);
    if (child === undefined) {
      child = { children: new Map() };
      at.children.set(field.key, child);
    }
    if (field.kind === 'object') addNode(child, field.node);
  }
  for (const branches of node.orGroups) for (const branch of branches) addNode(at, branch);
}

function freeze(building: Building): BodyKeyNode {
  const children: BodyKeyChild[] = [];
  const byKey = new Map<string, BodyKeyChild>();
  let bytesComparable = true;
  for (const [key, inner] of building.children) {
    const node = freeze(inner);
    const bytes = Buffer.from(key, 'utf8');
    if (bytes.toString('utf8') !== key || key.includes('\uFFFD')) bytesComparable = false;
    const child = { key, bytes, node };
    children.push(child);
    byKey.set(key, child);
  }
  return { children, byKey, bytesComparable };
}
