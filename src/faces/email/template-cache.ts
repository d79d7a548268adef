/**
 * Template parts compiled once per process, yet paid for by every call that uses them as if compiled in it
 * (so that what a call may do does not depend on what this process saw before): a call spends the tokens of
 * each part it uses once, and a part nested too deeply is refused. Both are measured with Handlebars' own
 * lexer before a part is first parsed, so that one too large or too deep never reaches the parser and
 * compiler, whose time grows with its tokens and whose recursion with its depth. The cache keeps the parts
 * used last, up to a total size.
 */
import { BudgetExceeded, TEMPLATE_LIMITS, type Compiled, type TemplateBudget } from './template-budget.js';
import { compile, handlebars, type Lexer } from './template-compiler.js';

interface Size {
  tokens: number;
  depth: number;
}

/** Characters of template source kept compiled at most (the compiled code is about as large). */
const CACHED_CHARACTERS = 4_000_000;
const cache = new Map<string, Size & { template: Compiled }>();
let cachedCharacters = 0;

/**
 * `source` compiled, HTML-escaping its values when `escape`, its size spent from `budget` unless this call
 * spent it already. `check` refuses, by throwing, what a template may name but not use.
 */
export function compiled(source: string, escape: boolean, budget: TemplateBudget, check: (ast: hbs.AST.Program) => void): Compiled {
  const key = `${escape ? 'html' : 'text'}:${source}`;
  const cached = cache.get(key);
  const size = cached ?? measure(source);
  if (!budget.counted.has(key)) {
    budget.spendTokens(size.tokens);
    if (size.depth > TEMPLATE_LIMITS.depth) throw new BudgetExceeded('depth', TEMPLATE_LIMITS.depth);
    budget.counted.add(key);
  }
  const template = cached?.template ?? compile(source, escape, check);
  // Kept as the last used: a Map iterates in insertion order, so the first entries are the oldest.
  if (cached) cache.delete(key);
  else cachedCharacters += key.length;
  cache.set(key, { ...size, template });
  for (const [oldest] of cache) {
    if (cachedCharacters <= CACHED_CHARACTERS) break;
    cache.delete(oldest);
    cachedCharacters -= oldest.length;
  }
  return template;
}

/**
 * The tokens of `source` as Handlebars' lexer reads them (counted until past the budget's), and how deeply its
 * blocks, `else if` chains, parentheses and a path's parts nest. A lexical error ends the count: the parser
 * reports it, with its line.
 */
function measure(source: string): Size {
  const { Parser } = handlebars();
  const s = Parser.symbols_;
  const lexer = Object.create(Parser.lexer) as Lexer;
  lexer.yy = {};
  lexer.setInput(source);
  // One entry per open block or parenthesis: 1, and 1 more per `else if` chained in it, all ended by its one close.
  const open: number[] = [];
  let tokens = 0;
  let depth = 0;
  let path = 0;
  let deepest = 0;
  let previous = 0;
  try {
    for (let token = lexer.lex(); token !== lexer.EOF && tokens <= TEMPLATE_LIMITS.tokens && deepest <= TEMPLATE_LIMITS.depth; token = lexer.lex()) {
      tokens++;
      if (token === s.OPEN_BLOCK || token === s.OPEN_INVERSE || token === s.OPEN_PARTIAL_BLOCK || token === s.OPEN_SEXPR) {
        open.push(1);
        depth++;
      } else if (token === s.OPEN_INVERSE_CHAIN && open.length > 0) {
        open[open.length - 1]!++;
        depth++;
      } else if (token === s.OPEN_ENDBLOCK || token === s.CLOSE_SEXPR) {
        depth -= open.pop() ?? 0;
      }
      // `a.b.c` reads each part from the one before: two levels more (the code compiled for it nests so).
      if (token === s.SEP) path++;
      else if (token !== s.ID || previous !== s.SEP) path = 0;
      previous = token;
      deepest = Math.max(deepest, depth + path);
    }
  } catch {
    // Reported by the parser.
  }
  return { tokens, depth: deepest };
}
