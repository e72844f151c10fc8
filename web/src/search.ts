// Searching the catalogue by words, free of the DOM so that the ranking is
// unit-tested on its own. A query word matches a word of a ruleset's name,
// slug or description that it is, or that it begins ("pet" finds "pets"
// and "petition", never "incompetent"); every query word must match
// somewhere, and a match in the name counts most.

/** What a search looks at in one catalogue entry. */
export interface Searchable {
  name: string;
  slug: string;
  description: string;
}

/** words splits text into lower-case words of letters and digits, accents folded. */
export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

// What a query word earns matching a word of each part: a whole word
// more than a word's beginning, the name more than the slug, the slug
// more than the description.
const weights = {
  name: { whole: 100, prefix: 60 },
  slug: { whole: 30, prefix: 20 },
  description: { whole: 10, prefix: 5 },
} as const;

type Part = keyof typeof weights;

/** bestMatch is what query word q earns in a part's words: 0 when no word is or begins with q. */
function bestMatch(q: string, partWords: string[], part: Part): number {
  let best = 0;
  for (const w of partWords) {
    if (w === q) return weights[part].whole;
    if (w.startsWith(q)) best = weights[part].prefix;
  }
  return best;
}

/**
 * score rates entry against the query's words: 0 when a query word matches
 * nothing, else the sum over the query words of each one's best match.
 */
export function score(entry: Searchable, queryWords: string[]): number {
  const parts: Record<Part, string[]> = { name: words(entry.name), slug: words(entry.slug), description: words(entry.description) };
  let total = 0;
  for (const q of queryWords) {
    const best = Math.max(bestMatch(q, parts.name, 'name'), bestMatch(q, parts.slug, 'slug'), bestMatch(q, parts.description, 'description'));
    if (best === 0) return 0;
    total += best;
  }
  return total;
}

/**
 * rank returns the entries matching query, the best first, ties in name
 * order; an empty query returns every entry in name order.
 */
export function rank<T extends Searchable>(entries: T[], query: string): T[] {
  const q = words(query);
  const byName = (a: T, b: T): number => a.name.localeCompare(b.name, 'en');
  if (!q.length) return [...entries].sort(byName);
  return entries
    .map((e) => ({ e, s: score(e, q) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || byName(a.e, b.e))
    .map((x) => x.e);
}
