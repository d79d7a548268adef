/**
 * Where the CLI reads and writes, resolved once from the options: the faces directory and the output
 * directory, relative to the working directory.
 */
import { resolve } from 'node:path';

export interface GeneratorPaths {
  facesDir: string;
  outDir: string;
}

export function generatorPaths(options: { faces?: string; out?: string }): GeneratorPaths {
  return { facesDir: resolve(options.faces ?? 'faces'), outDir: resolve(options.out ?? 'generated') };
}
