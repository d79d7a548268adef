/**
 * The shared front half of `generate` and `check`: read the face files, build the catalogue, print every
 * diagnostic, and generate the files when there is no error.
 */
import { formatDiagnostic } from '../spec/diagnostics.js';
import type { GeneratorPaths } from './paths.js';

export interface BuiltOutput {
  files: Map<string, string>;
  /** The diagnostics printed (warnings only, since the catalogue built). */
  diagnostics: string[];
  /** Hash of the inputs the output came from (see verified.ts). */
  inputs: string;
}

export async function buildOutput(paths: GeneratorPaths, texts?: Map<string, string>): Promise<BuiltOutput | undefined> {
  // Loaded on use so that `serve` and `keys` never load the generator.
  const [{ buildCatalog }, { readFaceDirectory }, { generate }, { inputsHash }] = await Promise.all([
    import('../spec/index.js'),
    import('../spec/face-directory.js'),
    import('../generate/index.js'),
    import('../generate/verified.js'),
  ]);
  const files = texts ?? readFaceDirectory(paths.facesDir);
  const { catalog, diagnostics } = buildCatalog(paths.facesDir, { files, handlersDir: paths.handlersDir });
  const printed = diagnostics.map(formatDiagnostic);
  for (const line of printed) console.error(line);
  if (!catalog) {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    console.error(`${errors} error${errors === 1 ? '' : 's'}; nothing generated.`);
    return undefined;
  }
  return { files: await generate(catalog), diagnostics: printed, inputs: inputsHash(files, paths.handlersDir) };
}
