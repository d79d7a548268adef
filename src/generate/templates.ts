/**
 * The Handlebars templates of the docs (`templates/docs/*.md.hbs`), each read and compiled once per
 * process on first use. Files whose name starts with `_` are partials, registered under the rest of their
 * name (`_table.md.hbs` → `{{> table}}`).
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

let env: typeof Handlebars | undefined;
const compiled = new Map<DocTemplate, Handlebars.TemplateDelegate>();

/** Renders one page template with a plain view model. */
export function renderDoc(name: DocTemplate, view: object): string {
  let template = compiled.get(name);
  if (!template) {
    template = environment().compile(read(`${name}${SUFFIX}`), COMPILE_OPTIONS);
    compiled.set(name, template);
  }
  return template(view);
}

/** An isolated Handlebars instance, so partials never leak into (or from) other users of the library. */
function environment(): typeof Handlebars {
  if (env) return env;
  env = Handlebars.create();
  for (const file of readdirSync(DIR).sort()) {
    if (file.startsWith('_') && file.endsWith(SUFFIX)) {
      env.registerPartial(file.slice(1, -SUFFIX.length), env.compile(read(file), COMPILE_OPTIONS));
    }
  }
  return env;
}

function read(file: string): string {
  return readFileSync(new URL(file, DIR), 'utf8');
}
