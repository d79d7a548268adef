// The breakdown table (by face, entity or key) over the current range. Its by-face read, the "overview",
// also tells which faces exist, which `filter.face` needs before the numbers or another breakdown can leave
// out the page's own calls; so the first numbers wait for it.
import { $, h, setText } from './dom.js';
import { formatCount, formatLatency, formatMoney, formatRate } from './format.js';
import { faceFilter, filterOf, summary } from './reads.js';
import { NAMES, OWN_FACE, currentRange, view } from './view.js';

/** Refreshed at most every 5 s (every 30 s when the key's rate limit runs low), and every 60 s without traffic. */
export const BREAKDOWN_MIN_MS = 5_000;
export const BREAKDOWN_SLOW_MS = 30_000;
export const BREAKDOWN_PERIOD_MS = 60_000;

/** Faces over the range (which also tells which faces `filter.face` names), then the open breakdown tab. */
export async function refreshOverview(s) {
  const generation = view.generation;
  const range = currentRange();
  const byFace = await summary(s, { from: range.from, groupBy: ['face'], filter: { entity: '*' } });
  if (!s.active) return;
  for (const group of byFace.groups) if (typeof group.face === 'string') s.knownFaces.add(group.face);
  const firstTime = !s.facesLoaded;
  s.facesLoaded = true;
  s.markFacesReady();
  if (firstTime) s.series.request(true);
  if (generation !== view.generation) return;
  const visible = byFace.groups.filter((g) => view.includeUsage || g.face !== OWN_FACE);
  s.breakdowns.face = { generation, groups: visible, currency: byFace.currency };
  if (view.breakdownBy === 'face') renderBreakdown(s);
  else await refreshBreakdown(s, view.breakdownBy, range, generation);
}

export async function refreshBreakdown(s, by, range, generation) {
  const faces = faceFilter(s);
  const result = faces.none
    ? { groups: [], currency: s.currency }
    : await summary(s, { from: range.from, groupBy: [by], filter: filterOf(faces) });
  if (!s.active || generation !== view.generation) return;
  s.breakdowns[by] = { generation, groups: result.groups, currency: result.currency };
  if (view.breakdownBy === by) renderBreakdown(s);
}

export function renderBreakdown(s) {
  const by = view.breakdownBy;
  setText('breakdown-name', NAMES[by]);
  for (const tab of $('breakdown-tabs').querySelectorAll('button')) tab.setAttribute('aria-selected', String(tab.dataset.by === by));
  const found = s.breakdowns[by];
  const body = $('breakdown-body');
  if (!found || found.generation !== view.generation) {
    body.replaceChildren();
    $('breakdown-empty').hidden = true;
    return;
  }
  const groups = [...found.groups].sort((a, b) => b.calls - a.calls || String(a[by]).localeCompare(String(b[by])));
  const total = groups.reduce((sum, g) => sum + g.calls, 0);
  body.replaceChildren(
    ...groups.map((g) => {
      const share = total ? g.calls / total : 0;
      const fill = h('span', { class: 'share-fill' });
      fill.style.width = `${(share * 100).toFixed(1)}%`;
      const name = String(g[by] ?? '—');
      return h(
        'tr',
        {},
        h('td', { class: by === 'face' ? 'name' : 'name mono', title: name }, name),
        h('td', { class: 'num' }, formatCount(g.calls)),
        h('td', { class: g.errors ? 'num err-count' : 'num', title: `${formatRate(g.errors, g.calls)} of calls` }, formatCount(g.errors)),
        h('td', { class: 'num' }, formatLatency(g.latencyMs?.p50 ?? null)),
        h('td', { class: 'num' }, formatLatency(g.latencyMs?.p99 ?? null)),
        h('td', { class: 'num' }, formatMoney(g.cost, found.currency)),
        h('td', {}, h('div', { class: 'share' }, h('span', { class: 'share-bar' }, fill), h('span', { class: 'share-text' }, `${Math.round(share * 100)}%`))),
      );
    }),
  );
  $('breakdown-empty').hidden = groups.length > 0;
}
