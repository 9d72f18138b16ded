#!/usr/bin/env node
/**
 * `npm run check:floors`: the floors of src/ (docs/architecture.md), measured from the code's own
 * imports. A room is a top-level entry of src/ (a folder, or a file such as app.ts); an arrow A -> B
 * says some file of A imports one of B (type-only imports included: they tie the code as much).
 *
 * It prints the rooms floor by floor (a room stands above every room it imports), every import
 * circle between files, and every arrow that runs back up a floor: arrows inside a circle of rooms,
 * of which the fewest are chosen to be "back" (Eades, Lin and Smyth's greedy order), named with the
 * files and imports that make them. Fails (exit 1) on any circle between files, or on more than
 * MAX_BACK arrows running back up. No dependency: it reads the files with a regular expression,
 * which is enough for this code base's `import ... from '...'` lines.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const MAX_BACK = 2;
const root = path.resolve(__dirname, '..');
const files = execFileSync('git', ['ls-files', 'src'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(ts|js)$/.test(f) && !f.startsWith('src/generated/'));
const known = new Set(files);

/** The file an import specifier names, or null (a package, or outside src/). */
function resolve(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.js`, `${base}/index.ts`]) if (known.has(candidate)) return candidate;
  return null;
}

const IMPORT = /(?:from|import|require)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;
const fileEdges = new Map(files.map((f) => [f, new Set()]));
for (const file of files) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  for (const m of text.matchAll(IMPORT)) {
    const target = resolve(file, m[1]);
    if (target && target !== file) fileEdges.get(file).add(target);
  }
}

/** Strongly connected components (Tarjan, iterative). */
function components(nodes, edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  for (const start of nodes) {
    if (idx.has(start)) continue;
    const work = [[start, [...(edges.get(start) ?? [])], 0]];
    idx.set(start, index);
    low.set(start, index++);
    stack.push(start);
    on.add(start);
    while (work.length) {
      const frame = work.at(-1);
      const [v, next] = frame;
      if (frame[2] < next.length) {
        const w = next[frame[2]++];
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index++);
          stack.push(w);
          on.add(w);
          work.push([w, [...(edges.get(w) ?? [])], 0]);
        } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
        continue;
      }
      work.pop();
      if (work.length) low.set(work.at(-1)[0], Math.min(low.get(work.at(-1)[0]), low.get(v)));
      if (low.get(v) === idx.get(v)) {
        const c = [];
        let w;
        do {
          w = stack.pop();
          on.delete(w);
          c.push(w);
        } while (w !== v);
        out.push(c);
      }
    }
  }
  return out;
}

const fileCircles = components(files, fileEdges).filter((c) => c.length > 1);

const room = (file) => file.split('/').slice(0, 2).join('/') + (file.split('/').length > 2 ? '/' : '');
const rooms = [...new Set(files.map(room))];
const roomEdges = new Map(rooms.map((r) => [r, new Set()]));
const why = new Map();
for (const [file, targets] of fileEdges) {
  for (const target of targets) {
    const [a, b] = [room(file), room(target)];
    if (a === b) continue;
    roomEdges.get(a).add(b);
    const key = `${a} -> ${b}`;
    why.set(key, [...(why.get(key) ?? []), `${file} -> ${target}`]);
  }
}

/** An order of `nodes` (top first) with few arrows against it: Eades, Lin and Smyth's greedy heuristic. */
function greedyOrder(nodes, edges) {
  const left = new Set(nodes);
  const ins = (v) => [...left].filter((u) => u !== v && edges.get(u)?.has(v)).length;
  const outs = (v) => [...(edges.get(v) ?? [])].filter((w) => w !== v && left.has(w)).length;
  const top = [];
  const bottom = [];
  while (left.size) {
    let changed = true;
    while (changed) {
      changed = false;
      for (const v of [...left]) {
        if (outs(v) === 0) {
          bottom.unshift(v);
          left.delete(v);
          changed = true;
        } else if (ins(v) === 0) {
          top.push(v);
          left.delete(v);
          changed = true;
        }
      }
    }
    if (!left.size) break;
    const v = [...left].sort((a, b) => outs(b) - ins(b) - (outs(a) - ins(a)))[0];
    top.push(v);
    left.delete(v);
  }
  return [...top, ...bottom];
}

const back = [];
for (const circle of components(rooms, roomEdges).filter((c) => c.length > 1)) {
  const order = greedyOrder(circle, roomEdges);
  const position = new Map(order.map((r, i) => [r, i]));
  for (const a of circle)
    for (const b of roomEdges.get(a))
      if (position.has(b) && position.get(b) < position.get(a)) back.push(`${a} -> ${b}`);
}

// Floors: longest path down to the ground, arrows running back up left out.
const backSet = new Set(back);
const floor = new Map();
const floorOf = (r, seen = new Set()) => {
  if (floor.has(r)) return floor.get(r);
  if (seen.has(r)) return 1;
  seen.add(r);
  let f = 1;
  for (const b of roomEdges.get(r)) if (!backSet.has(`${r} -> ${b}`)) f = Math.max(f, floorOf(b, seen) + 1);
  floor.set(r, f);
  return f;
};
for (const r of rooms) floorOf(r);
const byFloor = [...rooms].sort((a, b) => floor.get(b) - floor.get(a) || a.localeCompare(b));
console.log('Floors of src/ (a room stands above every room it imports):');
for (const r of byFloor) console.log(`  floor ${String(floor.get(r)).padStart(2)}  ${r}`);
console.log(`\nImport circles between files: ${fileCircles.length}`);
for (const c of fileCircles) console.log(`  ${c.join(' <-> ')}`);
console.log(`\nArrows running back up a floor: ${back.length} (at most ${MAX_BACK})`);
for (const arrow of back) {
  console.log(`  ${arrow}`);
  for (const line of why.get(arrow)) console.log(`      ${line}`);
}
if (fileCircles.length > 0 || back.length > MAX_BACK) process.exitCode = 1;
