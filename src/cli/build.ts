/**
 * The shared front half of `generate` and `check`: read the face files, build the catalogue, report every
 * diagnostic, and generate the files when there is no error.
 */
import type { Diagnostic } from '../spec/diagnostics.js';
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
  const [{ buildCatalog }, { readFaceDirectory }, { generate }, { inputsHash }] = await Promise.all([
    import('../spec/index.js'),
    import('../spec/face-directory.js'),
    import('../generate/index.js'),
    import('../generate/verified.js'),
  ]);
  const files = texts ?? readFaceDirectory(paths.facesDir);
  const { catalog, diagnostics } = buildCatalog(paths.facesDir, { files, handlersDir: paths.handlersDir, pendingHandlers });
  report.diagnostics(diagnostics);
  if (!catalog) {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    report.say(`${errors} error${errors === 1 ? '' : 's'}; nothing generated.`, 'err');
    return undefined;
  }
  return { files: await generate(catalog), diagnostics, inputs: inputsHash(files, paths.handlersDir) };
}
