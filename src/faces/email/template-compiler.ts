/**
 * Handlebars compiled to render within a TemplateBudget (template-budget.ts), through the compilers' own
 * extension points: each run of a block's body first spends its size in steps; each piece of text or value
 * written spends its characters (a block's result, made of what its body wrote, is not counted again); a
 * path the data lacks fails with a message in the project's words rather than a JavaScript TypeError.
 */
import { createRequire } from 'node:module';
import type HandlebarsModule from 'handlebars';
import { BudgetExceeded, type Compiled, type TemplateBudget } from './template-budget.js';

/** A path that cannot be read from the data; its message says which and where. */
export class TemplateDataError extends Error {}

interface Opcode {
  opcode: string;
  args: unknown[];
}
interface Location {
  start: { line: number; column: number };
}
/** The parts of Handlebars' compilers extended here, which its type declarations leave out. */
interface OpcodeCompiler {
  opcodes: Opcode[];
  compile(program: hbs.AST.Program, options: object): { opcodes: Opcode[] };
  BlockStatement(block: unknown): void;
}
interface JavaScriptCompiler {
  source: { currentLocation?: Location };
  pendingContent?: string;
  compile(environment: { opcodes: Opcode[] }, options: object, context: unknown, asObject: boolean): unknown;
  createFunctionContext(asObject: boolean): unknown;
  mergeSource(varDeclarations: string): unknown;
  appendToBuffer(source: unknown, location?: unknown, explicit?: boolean): unknown;
  append(): void;
  appendEscaped(): void;
  resolvePath(type: string, parts: string[], start: number, falsy: boolean, strict: boolean): void;
  popStack(): unknown;
  push(expression: unknown): unknown;
  pushSource(source: unknown): void;
  nameLookup(parent: unknown, name: string, type: string): unknown;
  quotedString(value: string): string;
}
export interface Lexer {
  EOF: number;
  yy: object;
  setInput(input: string): void;
  lex(): number;
}
interface Handlebars {
  Compiler: new () => OpcodeCompiler;
  JavaScriptCompiler: new () => JavaScriptCompiler;
  Parser: { lexer: Lexer; symbols_: Record<string, number> };
}

/** The render in progress: rendering is synchronous, so the compiled code's hooks find it here. */
let rendering: { budget: TemplateBudget; limit: number; length: number } | undefined;

/** What the compiled code calls (named `meter` in it). */
const meter = {
  /** A block's body starts: its steps, and the characters of its text, which it writes whole. */
  enter(steps: number, text: number): void {
    rendering!.budget.spendSteps(steps);
    write(text);
  },
  out(value: unknown): string {
    // As the buffer would have made it a string (and a string always, so that 1 and 2 make "12", not 3).
    const text = String(value);
    write(text.length);
    return text;
  },
  escape(value: unknown): string {
    // Made a string first: an object of the data is never asked for a `toHTML` of its own.
    return loaded!.hb.escapeExpression(value == null ? '' : String(value));
  },
  /** The parent of a path's next part, which must be there to read it; `line` and `column` say where the path is. */
  from(parent: unknown, path: string, parentPath: string, line: number, column: number): unknown {
    if (parent == null) throw unreadable(path, parentPath, parent, line, column);
    return parent;
  },
  /** The parent of a path's last part in a strict position, which must hold it. */
  has(parent: unknown, name: string, path: string, parentPath: string, line: number, column: number): unknown {
    if (parent === null || (typeof parent !== 'object' && typeof parent !== 'function')) throw unreadable(path, parentPath, parent, line, column);
    if (!(name in parent)) throw new TemplateDataError(`"${path}" is not in the data at line ${line}, column ${column}`);
    return parent;
  },
};

function write(characters: number): void {
  const render = rendering!;
  if ((render.length += characters) > render.limit) throw new BudgetExceeded('length', render.limit);
  render.budget.spendOutput(characters);
}

function unreadable(path: string, parentPath: string, parent: unknown, line: number, column: number): TemplateDataError {
  const what = parent === undefined ? 'missing' : parent === null ? 'null' : typeof parent === 'string' ? 'a text' : typeof parent === 'number' ? 'a number' : String(parent);
  const from = parentPath ? `"${parentPath}"` : 'the current value';
  return new TemplateDataError(`"${path}" cannot be read at line ${line}, column ${column}: ${from} is ${what}`);
}

let loaded: { hb: typeof HandlebarsModule; Visitor: typeof HandlebarsModule.Visitor; Parser: Handlebars['Parser']; Blocks: new () => OpcodeCompiler; Metered: new () => JavaScriptCompiler } | undefined;

/**
 * Handlebars, loaded on the first template rather than with the server (it is large, and most servers never
 * see a template), in an environment of its own: no helper registered elsewhere leaks in.
 */
export function handlebars(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const internals = require('handlebars') as typeof HandlebarsModule & Handlebars;
  loaded = { hb: internals.create(), Visitor: internals.Visitor, Parser: internals.Parser, ...meteredCompilers(internals) };
  return loaded;
}

function meteredCompilers({ Compiler, JavaScriptCompiler }: Handlebars) {
  class Blocks extends Compiler {
    override BlockStatement(block: unknown): void {
      super.BlockStatement(block);
      // Its last opcode appends the block's result, which Metered.appendBlock does without counting it again.
      this.opcodes.at(-1)!.opcode = 'appendBlock';
    }
  }
  class Metered extends JavaScriptCompiler {
    bodySteps = 1;
    bodyText = 0;
    /** Set while what is appended is counted already: a block's result (made of what its body wrote), or text. */
    alreadyCounted = false;

    override compile(environment: { opcodes: Opcode[] }, options: object, context: unknown, asObject: boolean): unknown {
      // What one run of this body does whatever the data: its opcodes, and the parts of the paths they read.
      const parts = (op: Opcode) => op.args.reduce<number>((n, arg) => n + (Array.isArray(arg) ? arg.length : 0), 0);
      this.bodySteps = Math.max(1, environment.opcodes.reduce((n, op) => n + 1 + parts(op), 0));
      return super.compile(environment, options, context, asObject);
    }

    override mergeSource(varDeclarations: string): unknown {
      // A declaration, not a statement: a statement would change how Handlebars lays out the body's return.
      return super.mergeSource(`, entered = meter.enter(${this.bodySteps}, ${this.bodyText})${varDeclarations}`);
    }

    override createFunctionContext(asObject: boolean): unknown {
      const source = super.createFunctionContext(false);
      return asObject ? (new Function('meter', `return ${String(source)}`) as (hooks: typeof meter) => unknown)(meter) : source;
    }

    override pushSource(source: unknown): void {
      // The body's text is written whole every time it runs: counted when it starts (see mergeSource).
      if (this.pendingContent) {
        this.bodyText += this.pendingContent.length;
        const alreadyCounted = this.alreadyCounted;
        this.alreadyCounted = true;
        super.pushSource('');
        this.alreadyCounted = alreadyCounted;
      }
      super.pushSource(source);
    }

    override appendToBuffer(source: unknown, location?: unknown, explicit?: boolean): unknown {
      return super.appendToBuffer(this.alreadyCounted ? source : ['meter.out(', source, ')'], location, explicit);
    }

    appendBlock(): void {
      this.alreadyCounted = true;
      this.append();
      this.alreadyCounted = false;
    }

    override appendEscaped(): void {
      this.pushSource(this.appendToBuffer(['meter.escape(', this.popStack(), ')']));
    }

    /** Templates are strict: every part a path reads must have a parent, and its last part be there. */
    override resolvePath(type: string, parts: string[], start: number, falsy: boolean, strict: boolean): void {
      const { line, column } = this.source.currentLocation!.start;
      const shown = (end: number) => this.quotedString((type === 'data' ? '@' : '') + parts.slice(0, end).join('.'));
      let value = this.popStack();
      for (let i = start; i < parts.length; i++) {
        const name = this.quotedString(parts[i]!);
        const where = `${shown(i + 1)}, ${i > 0 ? shown(i) : '""'}, ${line}, ${column + 1})`;
        const parent = strict && i === parts.length - 1 ? ['meter.has(', value, `, ${name}, ${where}`] : ['meter.from(', value, `, ${where}`];
        value = this.nameLookup(parent, parts[i]!, type);
      }
      this.push(value);
    }
  }
  for (const [subclass, self] of [
    [Blocks.prototype, Blocks],
    [Metered.prototype, Metered],
  ] as const) {
    // Handlebars makes the compiler of a block's body as `new this.compiler()`.
    Object.assign(subclass, { compiler: self });
  }
  return { Blocks, Metered };
}

/** Handlebars' own helpers, the only ones a template may call (`log` would write customer text to the server's log). */
const KNOWN_HELPERS = { if: true, unless: true, each: true, with: true, lookup: true, log: false, blockHelperMissing: true, helperMissing: true };

/**
 * `source` compiled, HTML-escaping its values when `escape`: Handlebars' compile() made of its parts, so that
 * it runs now rather than at the first render. `check` refuses, by throwing, what a template may name but not use.
 */
export function compile(source: string, escape: boolean, check: (ast: hbs.AST.Program) => void): Compiled {
  const { hb, Blocks, Metered } = handlebars();
  const options = { strict: true, noEscape: !escape, knownHelpers: KNOWN_HELPERS, knownHelpersOnly: true, data: true };
  const ast = hb.parse(source, options as HandlebarsModule.ParseOptions);
  check(ast);
  const spec = new Metered().compile(new Blocks().compile(ast, options), options, undefined, true);
  return hb.template(spec as TemplateSpecification) as Compiled;
}

/** Renders a compiled template with `data`, writing at most `limit` characters. */
export function render(template: Compiled, data: object, budget: TemplateBudget, limit: number): string {
  rendering = { budget, limit, length: 0 };
  try {
    return template(data);
  } finally {
    rendering = undefined;
  }
}
