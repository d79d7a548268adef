/**
 * Handlebars templates of the email face: checked when made (a syntax error is `template_invalid` at its
 * field, with Handlebars' line), rendered in strict mode when sent (a variable the data lacks is a 400 at
 * `/payload/data`, not a blank in the customer's inbox). Subjects and text bodies are not HTML-escaped; html
 * bodies are.
 */
import { createRequire } from 'node:module';
import type HandlebarsModule from 'handlebars';
import { ApiError, invalidField } from '../runtime/errors.js';

const require = createRequire(import.meta.url);
let loaded: { handlebars: typeof HandlebarsModule; Unsupported: new () => HandlebarsModule.Visitor } | undefined;

/**
 * Handlebars, loaded on the first template rather than with the server (it is large, and most servers
 * never see a template), in an environment of its own: no helper registered elsewhere leaks in.
 */
function templating(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  const Handlebars = require('handlebars') as typeof HandlebarsModule;
  loaded = { handlebars: Handlebars.create(), Unsupported: unsupported(Handlebars) };
  return loaded;
}

export interface TemplateParts {
  subject: string;
  text?: string | null;
  html?: string | null;
}

/**
 * Refuses what a template could name but never render here: partials (none are registered), decorators, and
 * helpers beyond Handlebars' own (`if`, `each`, `with`, `unless`, `lookup`; `log` would write customer text to
 * the server's log).
 */
function unsupported(Handlebars: typeof HandlebarsModule) {
  return class Unsupported extends Handlebars.Visitor {
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
  };
}

/** Handlebars' own block helpers, the only ones a template may call. */
const KNOWN_HELPERS = { if: true, unless: true, each: true, with: true, lookup: true, log: false, blockHelperMissing: true, helperMissing: true };

/** Throws `template_invalid` at the first part that does not parse, or names what is not available. */
export function checkTemplate(parts: Partial<TemplateParts>, base = '/payload'): void {
  const { handlebars, Unsupported } = templating();
  for (const [field, source] of Object.entries(parts)) {
    if (typeof source !== 'string') continue;
    try {
      new Unsupported().accept(handlebars.parse(source));
      handlebars.precompile(source, { knownHelpers: KNOWN_HELPERS, knownHelpersOnly: true, strict: true });
    } catch (error) {
      const param = `${base}/${field}`;
      throw new ApiError('template_invalid', `${param}: ${(error as Error).message.split('\n')[0]}`, { param });
    }
  }
}

/** Renders every part of a template with `data`; a missing variable is a 400 at `param`. */
export function renderTemplate(parts: TemplateParts, data: Record<string, unknown>, param: string): { subject: string; text?: string; html?: string } {
  const { handlebars } = templating();
  const render = (source: string, escape: boolean) => {
    try {
      return handlebars.compile(source, { strict: true, noEscape: !escape, knownHelpers: KNOWN_HELPERS, knownHelpersOnly: true })(data);
    } catch (error) {
      const message = (error as Error).message.split('\n')[0]!;
      throw invalidField(param, message, 'template');
    }
  };
  return {
    subject: render(parts.subject, false),
    ...(parts.text ? { text: render(parts.text, false) } : {}),
    ...(parts.html ? { html: render(parts.html, true) } : {}),
  };
}
