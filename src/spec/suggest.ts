/**
 * "Did you mean …?" for a name a face file gets wrong: the name it most likely meant, when it is close enough
 * to be a slip (two edits, or a fifth of its length for a long one, and under half of it) or a shortening (`minProps` for
 * `minProperties`, `ai:gen` for `ai:generate`: most of it is the start of the other).
 */
import { closest, distance } from 'fastest-levenshtein';

export function suggestion(name: string, candidates: Iterable<string>): string {
  const names = [...candidates].filter((candidate) => candidate !== name);
  if (names.length === 0) return '';
  const near = closest(name, names);
  const edits = distance(name, near);
  if (edits <= Math.max(2, Math.floor(name.length / 5)) && edits < name.length / 2) return ` Did you mean "${near}"?`;
  const [longest] = names.map((candidate) => ({ candidate, shared: sharedStart(name, candidate) })).sort((a, b) => b.shared - a.shared);
  return longest && longest.shared >= Math.max(3, Math.ceil(name.length * 0.6)) ? ` Did you mean "${longest.candidate}"?` : '';
}

function sharedStart(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
