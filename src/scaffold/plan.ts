/**
 * What `dispatch new face` (a face file and its module, or the module of a face file that has none) and
 * `dispatch new action` will write, worked out in full before anything is:
 * every name, scope and file is checked first, so a refusal leaves the tree as it was. The plan also holds
 * the faces directory as it will be, for the generator to run on in memory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { GeneratorPaths } from '../cli/paths.js';
import { fromRoot } from '../package-root.js';
import { pascalCase } from '../spec/resolve.js';
import { moduleFiles } from '../spec/handler-lint.js';
import { shownPath } from '../spec/shown-path.js';
import { addAction, newFaceFile, starterAction } from './face-stanza.js';
import { checkActionName, checkFaceName, checkNotBuiltin, ScaffoldError } from './names.js';
import { builtinFaces, chooseScope, readWorkspace, type FacesWorkspace } from './workspace.js';

export { ScaffoldError };

export interface ScaffoldPaths extends GeneratorPaths {
  testsDir: string;
}

export interface FileWrite {
  path: string;
  text: string;
  kind: 'created' | 'updated';
}

export interface ScaffoldPlan {
  /** What the author writes next: `<face>.<action>`, or the handlers of a face. */
  todo: string;
  writes: FileWrite[];
  /** Every face file and platform.yaml by file name, the new or changed one included. */
  faceFiles: Map<string, string>;
  handlerFile: string;
  /** The test written, or the folder of those written; none when no action had an example to test. */
  tests?: string;
}

export interface NewFaceOptions {
  action?: string;
  scope?: string;
  summary?: string;
}

export async function planNewFace(paths: ScaffoldPaths, face: string, options: NewFaceOptions = {}): Promise<ScaffoldPlan> {
  // The checks that need no file come first.
  checkFaceName(face);
  const action = options.action ?? 'get';
  checkActionName(action);
  const workspace = readWorkspace(paths.facesDir);
  checkNotBuiltin(face, builtinFaces(workspace));
  const faceFile = join(paths.facesDir, `${face}.yaml`);
  const { moduleDir, moduleFile, handlerFile, tablesFile, testFile } = targets(paths, face, action);
  if (workspace.faces.has(face) && !existsSync(moduleDir)) return planFaceModule(paths, face, workspace, options);
  if (workspace.faces.has(face) || existsSync(faceFile)) throw new ScaffoldError(`face "${face}" already exists (${shownPath(faceFile)}).`);
  if (existsSync(moduleDir)) throw new ScaffoldError(`${shownPath(moduleDir)} already exists.`);
  refuseExistingTest(testFile);
  // A scope of the face's own family is the sensible default when there is exactly one.
  const scope = chooseScope(workspace, options.scope, workspace.scopes.filter((s) => s.startsWith(`${face}:`)));

  const { newHandlerModule, newModuleIndex, newTablesFile, newTestFile } = await writers();
  const summary = options.summary ?? `TODO: say in one line what the ${face} face offers.`;
  const stanza = starterAction(face, action, scope);
  const faceText = newFaceFile({ face, summary, since: workspace.since, action, stanza, schemaPath: importPath(paths.facesDir, join(paths.outDir, 'editor', 'face.schema.json')) });
  const typeName = pascalCase(face);
  const handlerText = newHandlerModule({ face, typeName, summary, action, typesModule: typesModule(paths, face) });
  const testText = await newTestFile({ face, action, example: stanza.examples[0]!, faceFile: shownPath(faceFile), handlerFile: shownPath(handlerFile) });
  return {
    todo: `${face}.${action}`,
    writes: [
      { path: faceFile, text: faceText, kind: 'created' },
      { path: moduleFile, text: newModuleIndex({ face, typeName, typesModule: typesModule(paths, face) }), kind: 'created' },
      { path: handlerFile, text: handlerText, kind: 'created' },
      { path: tablesFile, text: newTablesFile(face), kind: 'created' },
      { path: testFile, text: testText, kind: 'created' },
    ],
    faceFiles: withFile(workspace, `${face}.yaml`, faceText),
    handlerFile,
    tests: testFile,
  };
}

/**
 * The module of a face file that has none yet (copied from another project, or written by hand): its index,
 * a handler skeleton for each action, its empty tables file, and a test of each action that has an example.
 * The face file is left as it is.
 */
async function planFaceModule(paths: ScaffoldPaths, face: string, workspace: FacesWorkspace, options: NewFaceOptions): Promise<ScaffoldPlan> {
  const faceFile = join(paths.facesDir, `${face}.yaml`);
  if (options.scope !== undefined || options.summary !== undefined) {
    throw new ScaffoldError(`${shownPath(faceFile)} already exists: --scope and --summary are for a new face file, and its module is written from the file as it is.`);
  }
  const declared = workspace.faces.get(face)!;
  const [first, ...others] = declared.actions;
  if (first === undefined) throw new ScaffoldError(`${shownPath(faceFile)} declares no action to write a handler for.`);
  for (const action of declared.actions) checkActionName(action);
  const { moduleFile, handlerFile, tablesFile } = targets(paths, face, first);
  const tested = declared.actions.filter((action) => declared.examples.has(action)).map((action) => ({ action, file: targets(paths, face, action).testFile }));
  for (const { file } of tested) refuseExistingTest(file);

  const { newHandlerModule, addHandlerMethod, newModuleIndex, newTablesFile, newTestFile } = await writers();
  const typeName = pascalCase(face);
  const summary = declared.summary ?? `the ${face} face.`;
  const handlerText = others.reduce(
    (text, action) => addHandlerMethod(text, shownPath(handlerFile), face, action),
    newHandlerModule({ face, typeName, summary, action: first, typesModule: typesModule(paths, face) }),
  );
  const tests = await Promise.all(
    tested.map(async ({ action, file }): Promise<FileWrite> => ({
      path: file,
      text: await newTestFile({ face, action, example: declared.examples.get(action)!, faceFile: shownPath(faceFile), handlerFile: shownPath(handlerFile) }),
      kind: 'created',
    })),
  );
  return {
    todo: `the handlers of ${face} (${declared.actions.join(', ')})`,
    writes: [
      { path: moduleFile, text: newModuleIndex({ face, typeName, typesModule: typesModule(paths, face) }), kind: 'created' },
      { path: handlerFile, text: handlerText, kind: 'created' },
      { path: tablesFile, text: newTablesFile(face), kind: 'created' },
      ...tests,
    ],
    faceFiles: workspace.files,
    handlerFile,
    tests: tests.length === 1 ? tests[0]!.path : tests.length ? join(paths.testsDir, face) : undefined,
  };
}

export interface NewActionOptions {
  scope?: string;
  summary?: string;
}

export async function planNewAction(paths: ScaffoldPaths, face: string, action: string, options: NewActionOptions = {}): Promise<ScaffoldPlan> {
  checkActionName(action);
  const workspace = readWorkspace(paths.facesDir);
  const declared = workspace.faces.get(face);
  if (!declared) throw new ScaffoldError(`unknown face "${face}"; the faces are: ${[...workspace.faces.keys()].join(', ')}.`);
  if (declared.builtin) throw new ScaffoldError(`face "${face}" is built in: the runtime serves it, with no handler module to add to.`);
  const faceName = `${face}.yaml`;
  if (declared.actions.includes(action)) throw new ScaffoldError(`${shownPath(join(paths.facesDir, faceName))} already declares action "${action}".`);
  const { handlerFile, testFile } = targets(paths, face, action);
  if (!existsSync(handlerFile)) throw new ScaffoldError(`${shownPath(handlerFile)} does not exist; face "${face}" needs its module first.`);
  refuseExistingTest(testFile);
  // The face's own scope is the sensible default when all its actions share one.
  const scope = chooseScope(workspace, options.scope, declared.scopes);

  const { addHandlerMethod, newTestFile } = await writers();
  const stanza = starterAction(face, action, scope, options.summary);
  const faceText = addAction(workspace.files.get(faceName)!, shownPath(join(paths.facesDir, faceName)), action, stanza);
  const handlerText = addHandlerMethod(readFileSync(handlerFile, 'utf8'), shownPath(handlerFile), face, action);
  const testText = await newTestFile({ face, action, example: stanza.examples[0]!, faceFile: shownPath(join(paths.facesDir, faceName)), handlerFile: shownPath(handlerFile) });
  return {
    todo: `${face}.${action}`,
    writes: [
      { path: join(paths.facesDir, faceName), text: faceText, kind: 'updated' },
      { path: handlerFile, text: handlerText, kind: 'updated' },
      { path: testFile, text: testText, kind: 'created' },
    ],
    faceFiles: withFile(workspace, faceName, faceText),
    handlerFile,
    tests: testFile,
  };
}

/** ts-morph and prettier, loaded once the input has passed its checks: a refusal answers at once without them. */
async function writers() {
  const [handlerModule, moduleFiles, testFile] = await Promise.all([import('./handler-module.js'), import('./module-files.js'), import('./test-file.js')]);
  return { ...handlerModule, ...moduleFiles, ...testFile };
}


/** The face's module folder and its files (the handlers where lint reads them), and the action's test. */
function targets(paths: ScaffoldPaths, face: string, action: string) {
  const moduleDir = join(paths.handlersDir, face);
  const { index, handlers } = moduleFiles(paths.handlersDir, face);
  return { moduleDir, moduleFile: index, handlerFile: handlers, tablesFile: join(moduleDir, 'tables.ts'), testFile: join(paths.testsDir, face, `${action}.test.ts`) };
}

function refuseExistingTest(testFile: string): void {
  if (existsSync(testFile)) throw new ScaffoldError(`${shownPath(testFile)} already exists.`);
}

/** The generated server types, as the module's files import them (`../../../generated/server/types.js`). */
const typesModule = (paths: ScaffoldPaths, face: string) => importPath(join(paths.handlersDir, face), join(paths.outDir, 'server', 'types.js'));

/** A relative module specifier with forward slashes, `./` first when it does not start with `..`. */
function importPath(fromDir: string, target: string): string {
  const path = relative(fromDir, target).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

function withFile(workspace: FacesWorkspace, name: string, text: string): Map<string, string> {
  return new Map([...workspace.files, [name, text]]);
}
