/**
 * The generated markdown docs as web pages: `/docs/errors` is `errors.md` rendered to HTML, each heading with
 * the id the generator's links name (`errors.md#card_declined`), so an error's `docUrl` opens on its entry.
 * Links between the docs lead to the rendered pages; the page's styles are `src/reference/page.css`.
 */
import { Marked, type Token, type Tokens } from 'marked';
import { pageSlugs } from '../core/heading-slug.js';

/** A link to another doc (`faces/ai.md#aigenerate`, `../errors.md`), not to another site or an absolute URL. */
const DOC_LINK = /^(?![a-z][a-z0-9+.-]*:|\/\/)([^?#]*)\.md(#.*)?$/i;

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The page's markdown as HTML, and its first top-level heading as plain text. */
function render(markdown: string): { html: string; title: string | undefined } {
  // GitHub's rule for a heading seen again on a page: its anchor gets -1, -2, … in order.
  const anchorOf = pageSlugs();
  let title: string | undefined;
  const marked = new Marked({
    gfm: true,
    walkTokens(token: Token) {
      if (token.type === 'link') token.href = token.href.replace(DOC_LINK, '$1$2');
    },
    renderer: {
      heading({ tokens, depth }: Tokens.Heading) {
        const text = this.parser.parseInline(tokens, this.parser.textRenderer);
        if (depth === 1) title ??= text;
        const id = anchorOf(text);
        return `<h${depth} id="${id}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
    },
  });
  const html = marked.parse(markdown, { async: false });
  return { html, title };
}

/**
 * `name` is the doc's path under docs/ (`faces/ai.md`); `site` the name the page's title ends with. Links to
 * the reference and the stylesheet are relative, so the pages also work under a public URL with a path.
 */
export function docPage(name: string, markdown: string, site: string | undefined): string {
  const { html, title } = render(markdown);
  const up = '../'.repeat(name.split('/').length - 1);
  const heading = title ?? name.replace(/\.md$/, '');
  const fullTitle = site && site !== heading ? `${heading} · ${site}` : heading;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(fullTitle)}</title>
    <link rel="icon" href="${up}../dashboard/favicon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="${up}page.css" />
  </head>
  <body>
    <nav><a href="${up}../docs">API reference</a> · <a href="${up}index">Guide</a> · <a href="${up}errors">Errors</a></nav>
    <main>
${html}
    </main>
  </body>
</html>
`;
}

/** The text of a doc's first top-level heading (`Unified Dispatch API` of index.md). */
export const docTitle = (markdown: string): string | undefined => render(markdown).title;
