/**
 * The shared front half of `generate` and `check`: read the face files, build the catalogue, report every
 * diagnostic, and return the generated files when there is no error (emitted while lint runs, see below).
 */
import type { Diagnostic } from '../spec/diagnostics.js';
import type { Catalog } from '../spec/model.js';
import type { GeneratorPaths } from './paths.js';
import { reporter, type Reporter } from './report.js';

export interface BuiltOutput {
  files: Map<string, string>;
  /** The diagnostics reported (warnings only, since the catalogue built). */
  diagnostics: Diagnostic[];
  /** Hash of the inputs the output came from (see verified.ts). */
  inputs: string;
}

/** `pendingHandlers`: handler modules about to be written, by path (see BuildOptions). */
export async function buildOutput(
  paths: GeneratorPaths,
  texts?: Map<string, string>,
  pendingHandlers?: ReadonlyMap<string, string>,
  report: Reporter = reporter(),
): Promise<BuiltOutput | undefined> {
  // Loaded on use so that `serve` and `keys` never load the generator.
  const [{ buildCatalog }, { readFaceDirectory }, { generate }, { inputsHash }, { prepareFormatting, releaseFormatting }, { memoIsEmpty }] = await Promise.all([
    import('../spec/index.js'),
    import('../spec/face-directory.js'),
    import('../generate/index.js'),
    import('../generate/verified.js'),
    import('../generate/format.js'),
    import('../memo/memo.js'),
  ]);
  // A run that will format every file has the formatter's thread loading while the faces are read.
  if (memoIsEmpty()) prepareFormatting();
  const files = texts ?? readFaceDirectory(paths.facesDir);
  // The files are emitted, and handed to the formatter's thread, before lint's costly rules run rather than
  // after: the thread formats while this one lints. A build that fails drops them.
  let generating: Promise<Map<string, string>> | undefined;
  const beforeLint = (linked: Catalog) => {
    generating = generate(linked);
    generating.catch(() => undefined);
  };
  const { catalog, diagnostics } = buildCatalog(paths.facesDir, { files, handlersDir: paths.handlersDir, pendingHandlers, beforeLint });
  report.diagnostics(diagnostics);
  if (!catalog) {
    // What the thread still formats is for no one: the process need not wait for it.
    if (generating) releaseFormatting();
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    report.say(`${errors} error${errors === 1 ? '' : 's'}; nothing generated.`, 'err');
    return undefined;
  }
  return { files: await (generating ?? generate(catalog)), diagnostics, inputs: inputsHash(files, paths.handlersDir) };
}
