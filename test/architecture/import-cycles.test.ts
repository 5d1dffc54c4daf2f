// No import cycles anywhere in server/, main/ or renderer/, type imports included: a cycle means two
// files can only be understood together (docs/architecture.md, "Layers").
import { describe, expect, it } from 'vitest';
import { resolveTarget, sourceFiles } from '../support/imports.js';

/** The strongly connected components with more than one file (or a file importing itself), Tarjan. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Iterative, so a long chain of imports cannot overflow the stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++];
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges.includes(frame.node)) found.push(component.sort());
      }
    }
  }
  return found;
}

describe('import cycles', () => {
  it('finds cycles, including a file importing itself and long chains', () => {
    const g = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
    expect(cycles(g({ a: ['b'], b: ['c'], c: [] }))).toEqual([]);
    expect(cycles(g({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }))).toEqual([['a', 'b', 'c']]);
    expect(cycles(g({ a: ['a'] }))).toEqual([['a']]);
    const chain = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`n${i}`, [`n${(i + 1) % 20_000}`]]));
    expect(cycles(g(chain))[0]).toHaveLength(20_000);
  });

  it('server/, main/ and renderer/ have none, type imports included', () => {
    const graph = new Map<string, string[]>();
    let edges = 0;
    for (const { file, imports } of sourceFiles()) {
      const targets = imports.flatMap((i) => (i.target === null ? [] : [resolveTarget(i.target)])).filter((t): t is string => t !== null);
      edges += targets.length;
      graph.set(file, targets);
    }
    expect(edges).toBeGreaterThan(300);
    expect(cycles(graph)).toEqual([]);
  });
});
