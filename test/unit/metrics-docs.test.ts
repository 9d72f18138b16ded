/**
 * The metrics the documentation names are metrics the service registers: every name in a table or
 * code span of docs/operations.md, docs/caching.md and docs/trusted-documents.md is either one of
 * ours (a name in src/telemetry/metrics.ts or src/cluster.ts) or one of prom-client's default
 * process metrics; and every metric of ours is named in the documentation.
 */
import fs from 'node:fs';
import path from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';

const root = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** How a metric's name ends (what tells a metric name from a label value or a table name). */
const SUFFIX = /_(total|seconds|bytes|entries|open|up|in_use|idle|requests|workers|documents)$/;

/** Our metric names: the string literals of the files that register them, shaped as metric names. */
function ourMetrics(): Set<string> {
  const source = read('src/telemetry/metrics.ts') + read('src/cluster.ts');
  return new Set([...source.matchAll(/'([a-z]+(?:_[a-z0-9]+)+)'/g)].map((m) => m[1]!).filter((n) => SUFFIX.test(n)));
}

/** prom-client's default process metrics, as a fresh registry holds them (histograms by family name). */
async function defaultMetrics(): Promise<Set<string>> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const names = (await registry.getMetricsAsJSON()).map((m) => m.name);
  registry.clear();
  return new Set(names);
}

const pages = ['docs/operations.md', 'docs/caching.md', 'docs/trusted-documents.md'];

/**
 * Metric names in code spans. A span that is only a name's end (`_idle`, `_misses_total`, after
 * `db_pool_connections_in_use` or `response_cache_hits_total`) stands for the name before it with its
 * end replaced: the shortest such name the service registers, else the family's first word and it.
 */
function documentedMetrics(ours: Set<string>): string[] {
  const names: string[] = [];
  for (const page of pages) {
    let family = '';
    for (const m of read(page).matchAll(/`([a-z_][a-z0-9_]*)(?:\{[^`]*\})?`/g)) {
      const name = m[1]!;
      if (/^_[a-z]/.test(name) && SUFFIX.test(name) && family) {
        const parts = family.split('_');
        const candidates = parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('_') + name);
        names.push(candidates.find((c) => ours.has(c)) ?? candidates[0]!);
        continue;
      }
      if (!/^(http|graphql|rest|db|api_key|response_cache|cluster|nodejs|process)_[a-z0-9_]+$/.test(name)) continue;
      if (!SUFFIX.test(name)) continue;
      family = name;
      names.push(name);
    }
  }
  return [...new Set(names)];
}

describe('metrics in the documentation', () => {
  it('names only metrics the service registers', async () => {
    const ours = ourMetrics();
    const defaults = await defaultMetrics();
    const documented = documentedMetrics(ours);
    expect(documented.length).toBeGreaterThan(25);
    expect(documented.filter((n) => !ours.has(n) && !defaults.has(n))).toEqual([]);
  });

  it('names every metric the service registers', () => {
    const ours = ourMetrics();
    const documented = new Set(documentedMetrics(ours));
    expect([...ours].filter((n) => !documented.has(n))).toEqual([]);
  });
});
