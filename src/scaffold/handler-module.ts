/**
 * The handler side of `dispatch new`: a new file `src/faces/<face>/handlers.ts` exporting `handlers: <Face>Handlers`,
 * and one more method in an existing one's exported object. Each method is a skeleton that type-checks
 * against the generated interface and answers `501 not_implemented` until it is written. Changes go through
 * the TypeScript syntax tree (ts-morph), never through text patterns.
 */
import { IndentationText, Node, Project, QuoteKind, SyntaxKind, type ObjectLiteralExpression, type SourceFile } from 'ts-morph';
import { ScaffoldError } from './names.js';

/** Face modules sit in `src/faces/<face>/`, beside the core in `src/`, as the generated module table and types assume. */
export const ERRORS_MODULE = '../../core/errors.js';

export interface NewHandlerModule {
  face: string;
  /** The face's type name, e.g. `Widgets` for `WidgetsHandlers`. */
  typeName: string;
  summary: string;
  action: string;
  /** Import specifier of the generated server types, relative to the module. */
  typesModule: string;
}

export function newHandlerModule(input: NewHandlerModule): string {
  const text = [
    '/**',
    ` * The \`${input.face}\` face: ${input.summary.replaceAll('*/', '*\\/')}`,
    ' * Each action answers 501 not_implemented until its handler is written.',
    ' */',
    `import type { ${input.typeName}Handlers } from '${input.typesModule}';`,
    `import { ApiError } from '${ERRORS_MODULE}';`,
    '',
    `export const handlers: ${input.typeName}Handlers = {};`,
    '',
  ].join('\n');
  return addHandlerMethod(text, `${input.face}/handlers.ts`, input.face, input.action);
}

/** The handlers with a skeleton method `action` added last to `export const handlers = { ... }`. */
export function addHandlerMethod(text: string, file: string, face: string, action: string): string {
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: { indentationText: IndentationText.TwoSpaces, quoteKind: QuoteKind.Single },
  });
  const source = project.createSourceFile(`/${file}`, text);
  const handlers = () => handlerObject(source, file);
  const properties = handlers().getProperties();
  if (properties.some((p) => Node.hasName(p) && p.getName() === action)) {
    throw new ScaffoldError(`${file} already has a handler "${action}".`);
  }
  // Follow the module's own layout: a trailing comma and blank lines between methods, as prettier leaves them.
  const last = properties.at(-1);
  const trailingComma = !last || last.getNextSibling()?.getKind() === SyntaxKind.CommaToken;
  const previous = properties.at(-2);
  const multiline = !!last && last.getStartLineNumber() > handlers().getStartLineNumber();
  const blankLine = multiline && (!previous || /\n[ \t]*\n/.test(text.slice(previous.getEnd(), last.getStart())));

  const method = handlers().addMethod({
    name: action,
    isAsync: true,
    parameters: [{ name: '_payload' }, { name: '_ctx' }],
    statements: [`throw new ApiError('not_implemented', '${face}.${action} is not implemented yet.');`],
  });
  if (trailingComma) source.insertText(method.getEnd(), ',');
  if (blankLine) {
    const comma = handlers().getPropertyOrThrow(action).getPreviousSiblingIfKindOrThrow(SyntaxKind.CommaToken);
    source.insertText(comma.getEnd(), '\n');
  }
  importApiError(source);
  return source.getFullText();
}

/** The object literal of `export const handlers = { ... }` (with or without a type, `satisfies` or `as`). */
function handlerObject(source: SourceFile, file: string): ObjectLiteralExpression {
  let value = source.getVariableDeclaration('handlers')?.getInitializer();
  while (value && (Node.isSatisfiesExpression(value) || Node.isAsExpression(value) || Node.isParenthesizedExpression(value))) {
    value = value.getExpression();
  }
  if (!value || !Node.isObjectLiteralExpression(value)) {
    throw new ScaffoldError(`${file} has no \`export const handlers = { ... }\` to add the handler to.`);
  }
  return value;
}

function importApiError(source: SourceFile): void {
  const imports = source.getImportDeclarations();
  if (imports.some((d) => d.getNamedImports().some((n) => (n.getAliasNode()?.getText() ?? n.getName()) === 'ApiError'))) return;
  const errors = imports.find((d) => d.getModuleSpecifierValue() === ERRORS_MODULE && !d.isTypeOnly());
  if (errors) errors.addNamedImport('ApiError');
  else source.addImportDeclaration({ moduleSpecifier: ERRORS_MODULE, namedImports: ['ApiError'] });
}
