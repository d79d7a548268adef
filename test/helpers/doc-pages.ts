/**
 * The documentation as its readers meet it: README.md and the pages under docs/, each read into its shell
 * blocks (with the heading they sit under and the `<!-- skip: reason -->` marker just above them, if any), its
 * headings and its links, outside code blocks. The tests that run the blocks and check the links read it here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { pageSlugs } from '../../src/core/heading-slug.js';
import { fromRoot } from '../../src/package-root.js';

export interface Block {
  /** The page, relative to the checkout (`docs/faces/ai.md`). */
  page: string;
  /** The line of its opening fence. */
  line: number;
  /** The heading it sits under (the page's title before any other). */
  heading: string;
  language: string;
  script: string;
  /** Why the documentation says it is not run, from the marker just above it. */
  skip?: string;
}

export interface Page {
  path: string;
  blocks: Block[];
  /** GitHub's anchors of its headings. */
  anchors: Set<string>;
  /** Its links, as written. */
  links: string[];
}

const SHELLS = new Set(['sh', 'bash', 'shell']);

/** README.md, then every page under docs/ in the order the README's links name them, then any other. */
export function documentationPages(): string[] {
  const all = markdownUnder('docs').sort();
  const linked = readPage('README.md').links.map((link) => link.split('#')[0]!).filter((path) => all.includes(path));
  return ['README.md', ...new Set([...linked, ...all])];
}

export function readPage(path: string): Page {
  const lines = readFileSync(fromRoot(path), 'utf8').split('\n');
  const page: Page = { path, blocks: [], anchors: new Set(), links: [] };
  let heading = '';
  let marker: string | undefined;
  const anchorOf = pageSlugs();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^( *)```(\S*)\s*$/.exec(line);
    if (fence) {
      const [, indent, language] = fence;
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== `${indent}\`\`\``; i++) body.push(lines[i]!.slice(indent!.length));
      if (SHELLS.has(language!)) page.blocks.push({ page: path, line: i - body.length, heading, language: language!, script: body.join('\n'), ...(marker ? { skip: marker } : {}) });
      marker = undefined;
      continue;
    }
    const title = /^#{1,6} (.+)$/.exec(line)?.[1];
    if (title) {
      heading = title;
      page.anchors.add(anchorOf(title));
    }
    page.links.push(...[...line.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => resolveLink(path, m[1]!)));
    if (line.trim()) marker = /^<!-- skip: (.+) -->$/.exec(line.trim())?.[1];
  }
  return page;
}

/** The first `language` block of `page` under `heading` (at any level), or of the whole page. */
export function pageBlock(page: string, heading?: string, language = 'sh'): string {
  const lines = readFileSync(fromRoot(page), 'utf8').split('\n');
  const from = heading === undefined ? 0 : lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '') === heading);
  if (from < 0) throw new Error(`${page} has no "${heading}" heading.`);
  const start = lines.indexOf('```' + language, from);
  if (start < 0) throw new Error(`${page} has no ${language} block${heading ? ` under "${heading}"` : ''}.`);
  return lines.slice(start + 1, lines.indexOf('```', start + 1)).join('\n');
}

/** A relative link as a path from the checkout's root (its anchor kept); any other link as written. */
function resolveLink(page: string, link: string): string {
  if (/^[a-z]+:/.test(link)) return link;
  if (link.startsWith('#')) return `${page}${link}`;
  return normalize(join(dirname(page), link)).replaceAll('\\', '/');
}

function markdownUnder(dir: string): string[] {
  return readdirSync(fromRoot(dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => relative(fromRoot(), fromRoot(dir, name)).replaceAll('\\', '/'));
}
