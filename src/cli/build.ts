/**
 * The shared front half of `generate` and `check`: build the catalogue, print every diagnostic, and
 * generate the files when there is no error.
 */
import { formatDiagnostic } from '../spec/diagnostics.js';
import type { GeneratorPaths } from './paths.js';

export async function buildOutput(paths: GeneratorPaths, files?: Map<string, string>): Promise<Map<string, string> | undefined> {
  // Loaded on use so that `serve` and `keys` never load the generator.
  const [{ buildCatalog }, { generate }] = await Promise.all([import('../spec/index.js'), import('../generate/index.js')]);
  const { catalog, diagnostics } = buildCatalog(paths.facesDir, { files, handlersDir: paths.handlersDir });
  for (const d of diagnostics) console.error(formatDiagnostic(d));
  if (!catalog) {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    console.error(`${errors} error${errors === 1 ? '' : 's'}; nothing generated.`);
    return undefined;
  }
  return generate(catalog);
}
