/**
 * The Handlebars templates of the docs (`templates/docs/*.md.hbs`), read on every use and compiled again
 * whenever their text changed, so that a long `generate --watch` renders with the templates as saved (its
 * memo keys include their text). Files whose name starts with `_` are partials, registered under the rest of
 * their name (`_table.md.hbs` → `{{> table}}`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import Handlebars from 'handlebars';
import { fromRoot } from '../package-root.js';

/** The page templates; each renders one kind of markdown page. */
export type DocTemplate = 'index' | 'face' | 'events' | 'scopes' | 'errors' | 'versions';

const DIR = pathToFileURL(fromRoot('templates', 'docs') + '/');
const SUFFIX = '.md.hbs';
/*
 * Markdown, not HTML: escaping would turn `<`, `&` and quotes in descriptions into entities. Strict mode
 * makes a misspelt field in a template fail loudly instead of printing nothing.
 */
const COMPILE_OPTIONS: CompileOptions = { noEscape: true, strict: true };

interface Environment {
  /** The partials' names and texts, as registered. */
  partials: string;
  handlebars: typeof Handlebars;
  compiled: Map<DocTemplate, { text: string; template: Handlebars.TemplateDelegate }>;
}

let env: Environment | undefined;

/** Renders one page template with a plain view model. */
export function renderDoc(name: DocTemplate, view: object): string {
  const current = environment();
  const text = read(`${name}${SUFFIX}`);
  let page = current.compiled.get(name);
  if (page?.text !== text) {
    page = { text, template: current.handlebars.compile(text, COMPILE_OPTIONS) };
    current.compiled.set(name, page);
  }
  return page.template(view);
}

/**
 * An isolated Handlebars instance, so partials never leak into (or from) other users of the library; made
 * again, with every page recompiled, when a partial changed.
 */
function environment(): Environment {
  const files = readdirSync(DIR).filter((file) => file.startsWith('_') && file.endsWith(SUFFIX)).sort();
  const partials = files.map((file) => [file, read(file)] as const);
  const signature = JSON.stringify(partials);
  if (env?.partials === signature) return env;
  const handlebars = Handlebars.create();
  for (const [file, text] of partials) handlebars.registerPartial(file.slice(1, -SUFFIX.length), handlebars.compile(text, COMPILE_OPTIONS));
  env = { partials: signature, handlebars, compiled: new Map() };
  return env;
}

function read(file: string): string {
  return readFileSync(new URL(file, DIR), 'utf8');
}
