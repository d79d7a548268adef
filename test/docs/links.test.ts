/**
 * The documentation's links hold: every relative link of the README and of docs/ names a file or folder of the
 * checkout, a link to a heading names one the page has, and every page under docs/ is linked from the README or
 * from another page, so that a reader who starts at the README can reach it.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/package-root.js';
import { documentationPages, readPage } from '../helpers/doc-pages.js';

const pages = documentationPages().map(readPage);

describe('the documentation links', () => {
  for (const page of pages) {
    it(`${page.path} links to what exists`, () => {
      const broken = page.links
        .filter((link) => !/^[a-z]+:/.test(link))
        .filter((link) => {
          const [path, anchor] = link.split('#') as [string, string | undefined];
          if (!existsSync(fromRoot(path))) return true;
          return anchor !== undefined && path.endsWith('.md') && !readPage(path).anchors.has(anchor);
        });
      expect(broken).toEqual([]);
    });
  }

  it('reaches every page under docs/ from the README, link by link', () => {
    const byPath = new Map(pages.map((page) => [page.path, page]));
    const reached = new Set(['README.md']);
    for (const path of reached) for (const link of byPath.get(path)!.links) if (byPath.has(link.split('#')[0]!)) reached.add(link.split('#')[0]!);
    expect([...byPath.keys()].filter((path) => !reached.has(path))).toEqual([]);
  });
});
