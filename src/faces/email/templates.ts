/**
 * Handlebars templates of the email face: checked when made (a syntax error is `template_invalid` at its
 * field, with Handlebars' line), rendered in strict mode when sent (a path the data lacks is a 400 at
 * `/payload/data` naming it, not a blank in the customer's inbox). Both happen within the call's
 * TemplateBudget: past it, `template_budget_exceeded` names the budget in `details`. Subjects and text
 * bodies are not HTML-escaped; html bodies are.
 */
import type HandlebarsModule from 'handlebars';
import { ApiError, invalidField } from '../../core/errors.js';
import { BudgetExceeded, TemplateBudget } from './template-budget.js';
import { compiled } from './template-cache.js';
import { handlebars, render, TemplateDataError } from './template-compiler.js';

export interface TemplateParts {
  subject: string;
  text?: string | null;
  html?: string | null;
}

type Part = keyof TemplateParts;

/** What a rendered part may hold: what a message given as it is may (the payload schema's limits). */
const PART_LIMITS: Record<Part, number> = { subject: 998, text: 1_000_000, html: 1_000_000 };

let Unsupported: (new () => HandlebarsModule.Visitor) | undefined;

/** How many arguments Handlebars' own helpers take: called otherwise, they fail at every send. */
const ARGUMENTS: Record<string, number> = { if: 1, unless: 1, each: 1, with: 1, lookup: 2 };

/** Refuses a call of Handlebars' own helpers with the wrong number of arguments. */
function checkArguments({ path, params, loc }: { path: hbs.AST.Expression; params: unknown[]; loc: hbs.AST.SourceLocation }): void {
  const { type, parts, original } = path as hbs.AST.PathExpression;
  const wanted = type === 'PathExpression' && parts.length === 1 && !/^(\.|this\b)/.test(original) ? ARGUMENTS[original] : undefined;
  if (wanted !== undefined && params.length !== wanted) {
    throw new Error(`${original} takes ${wanted} argument${wanted > 1 ? 's' : ''}, not ${params.length} (line ${loc.start.line}, column ${loc.start.column + 1})`);
  }
}

/**
 * Refuses what a template could name but never render here: partials (none are registered), decorators, and
 * Handlebars' own helpers called with the wrong number of arguments; other helpers are refused by the compiler.
 */
function checkSupported(ast: hbs.AST.Program): void {
  Unsupported ??= class extends handlebars().Visitor {
    override PartialStatement(): void {
      throw new Error('partials ({{> name}}) are not available in templates');
    }
    override PartialBlockStatement(): void {
      throw new Error('partials ({{#> name}}) are not available in templates');
    }
    override DecoratorBlock(): void {
      throw new Error('decorators are not available in templates');
    }
    override Decorator(): void {
      throw new Error('decorators are not available in templates');
    }
    override MustacheStatement(node: hbs.AST.MustacheStatement): void {
      checkArguments(node);
      super.MustacheStatement(node);
    }
    override BlockStatement(node: hbs.AST.BlockStatement): void {
      checkArguments(node);
      super.BlockStatement(node);
    }
    override SubExpression(node: hbs.AST.SubExpression): void {
      checkArguments(node);
      super.SubExpression(node);
    }
  };
  new Unsupported().accept(ast);
}

/**
 * Throws `template_invalid` at the first part that does not compile or names what is not available, and
 * `template_budget_exceeded` at the part that takes the template past the tokens or depth a call may compile.
 */
export function checkTemplate(parts: Partial<TemplateParts>, base = '/payload'): void {
  const budget = new TemplateBudget();
  for (const [field, source] of Object.entries(parts) as [Part, string | null | undefined][]) {
    if (typeof source !== 'string') continue;
    compilePart(source, field, budget, `${base}/${field}`, `The template's ${field}`);
  }
}

/** A part compiled within `budget`; a failure is `template_invalid` or `template_budget_exceeded` at `param`. */
function compilePart(source: string, field: Part, budget: TemplateBudget, param: string, what: string) {
  try {
    return compiled(source, field === 'html', budget, checkSupported);
  } catch (error) {
    throw error instanceof BudgetExceeded ? overBudget(error, param, what, field) : new ApiError('template_invalid', `${param}: ${compileFailure(error)}`, { param });
  }
}

/**
 * Renders every part of template `name` with `data`, within `budget`. A path the data lacks is a 400 at
 * `${base}/data`; `base` is where the payload is (`/payload`, or `/payload/messages/3` in a batch).
 */
export function renderTemplate(template: TemplateParts & { name: string }, data: Record<string, unknown>, base: string, budget: TemplateBudget): { subject: string; text?: string; html?: string } {
  const part = (field: Part, source: string) => {
    const what = `The ${field} of template "${template.name}"`;
    const compiledPart = compilePart(source, field, budget, `${base}/template`, what);
    try {
      return render(compiledPart, data, budget, PART_LIMITS[field]);
    } catch (error) {
      if (error instanceof BudgetExceeded) throw overBudget(error, `${base}/data`, what, field);
      throw invalidField(`${base}/data`, renderFailure(error), 'template');
    }
  };
  return {
    subject: part('subject', template.subject),
    ...(template.text ? { text: part('text', template.text) } : {}),
    ...(template.html ? { html: part('html', template.html) } : {}),
  };
}

/** `template_budget_exceeded` for `what` (`The html of template "welcome"`), naming the budget in `details`. */
function overBudget({ budget, limit }: BudgetExceeded, param: string, what: string, part: Part): ApiError {
  const messages: Record<BudgetExceeded['budget'], string> = {
    tokens: `${what} takes the call past the ${limit} tokens its templates may have`,
    depth: `${what} nests blocks, parentheses and the parts of a path more than ${limit} deep`,
    steps: `${what}, rendered with this data, takes the call past the ${limit} steps its templates may run (each text, expression and block counts every time it runs)`,
    output: `${what}, rendered with this data, takes the call past the ${limit} characters its templates may write`,
    length: `${what}, rendered with this data, is longer than the ${limit} characters a message's ${part} may hold`,
  };
  return new ApiError('template_budget_exceeded', `${param}: ${messages[budget]}.`, { param, details: { budget, limit, part } });
}

/** Handlebars' own words for a template that does not compile, never a JavaScript error's. */
function compileFailure(error: unknown): string {
  return error instanceof TypeError || error instanceof RangeError ? 'the template cannot be compiled' : firstLine(error);
}

/** Why rendering failed: a path the data lacks, a helper used wrongly (Handlebars' words), never a JavaScript error's. */
function renderFailure(error: unknown): string {
  if (error instanceof TemplateDataError || error instanceof handlebars().hb.Exception) return firstLine(error);
  return 'the template cannot be rendered with this data';
}

const firstLine = (error: unknown) => (error as Error).message.split('\n')[0]!;
