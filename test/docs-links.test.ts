/**
 * No dead link in the documentation: every relative link in README.md and docs/*.md points at a file
 * of the repository, and every #anchor at a heading (or an explicit `<a id>`) of its target, by
 * GitHub's anchor rules. Links are found by a markdown parser (markdown-it), not by a regular
 * expression, so code spans and fenced blocks are never mistaken for links; anchors are the slugs
 * GitHub gives headings (github-slugger, with its numbering of repeated headings).
 */
import fs from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';

const root = path.resolve(__dirname, '..');
const md = new MarkdownIt({ html: true });

const files = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

function tokensOf(file: string): Token[] {
  const flat: Token[] = [];
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      flat.push(t);
      if (t.children) walk(t.children);
    }
  };
  walk(md.parse(fs.readFileSync(path.join(root, file), 'utf8'), {}));
  return flat;
}

/** The anchors a markdown file offers: its headings' GitHub slugs and explicit `id`s in inline HTML. */
function anchorsOf(file: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  const tokens = tokensOf(file);
  tokens.forEach((t, i) => {
    if (t.type === 'heading_open') {
      const inline = tokens[i + 1]!;
      const text = (inline.children ?? [])
        .filter((c) => c.type === 'text' || c.type === 'code_inline')
        .map((c) => c.content)
        .join('');
      anchors.add(slugger.slug(text));
    }
    if (t.type === 'html_inline' || t.type === 'html_block') {
      for (const m of t.content.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
    }
  });
  return anchors;
}

interface Link {
  file: string;
  href: string;
}

function linksOf(file: string): Link[] {
  return tokensOf(file)
    .filter((t) => t.type === 'link_open')
    .map((t) => ({ file, href: t.attrGet('href') ?? '' }));
}

const links = files.flatMap(linksOf);

describe('links in README.md and docs/', () => {
  it('finds the documentation and its links', () => {
    expect(files).toContain('docs/getting-started.md');
    expect(links.length).toBeGreaterThan(20);
  });

  it('never leaves the repository (no http links: the docs stand on their own)', () => {
    expect(links.filter((l) => /^[a-z]+:/i.test(l.href)).map((l) => `${l.file}: ${l.href}`)).toEqual([]);
  });

  it('every relative link reaches a file, and every #anchor a heading of it', () => {
    const anchors = new Map<string, Set<string>>();
    const dead: string[] = [];
    for (const { file, href } of links) {
      if (/^[a-z]+:/i.test(href)) continue;
      const [target = '', anchor] = href.split('#');
      const resolved = target ? path.normalize(path.join(path.dirname(file), decodeURI(target))) : file;
      if (!fs.existsSync(path.join(root, resolved))) {
        dead.push(`${file}: ${href} (no file ${resolved})`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!resolved.endsWith('.md')) {
        dead.push(`${file}: ${href} (an anchor into a file that is not markdown)`);
        continue;
      }
      if (!anchors.has(resolved)) anchors.set(resolved, anchorsOf(resolved));
      if (!anchors.get(resolved)!.has(anchor)) dead.push(`${file}: ${href} (no heading #${anchor} in ${resolved})`);
    }
    expect(dead).toEqual([]);
  });

  it('names no file outside the repository and no issue numbers', () => {
    const stale: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      for (const [pattern, why] of [
        [/\bAPI\.md\b/, 'API.md is not in the repository'],
        [/petstore-spec\.md/, 'petstore-spec.md is not in the repository'],
        [/\bissues? \d+\b/, 'an issue number: explain it instead'],
      ] as const) {
        if (pattern.test(text)) stale.push(`${file}: ${why}`);
      }
    }
    expect(stale).toEqual([]);
  });
});
