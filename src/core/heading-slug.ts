/**
 * The anchor of a markdown heading, as GitHub (and most renderers) make it: the generator links to headings
 * by it, and the server gives the headings of the pages it renders the same ids, so one link works on both.
 */

/** Lower case, punctuation dropped, spaces to dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of one page's headings, in order: a repeated heading's gets `-1`, `-2`, ... as GitHub's do. */
export function pageSlugs(): (heading: string) => string {
  const used = new Map<string, number>();
  return (heading) => {
    const base = slug(heading);
    const seen = used.get(base);
    used.set(base, (seen ?? 0) + 1);
    return seen === undefined ? base : `${base}-${seen}`;
  };
}
