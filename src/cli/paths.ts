/**
 * Where the CLI reads and writes, resolved once from the options: the faces directory, the handler modules
 * checked against them, and the output directory, relative to the working directory.
 */
import { resolve } from 'node:path';

export interface GeneratorPaths {
  facesDir: string;
  handlersDir: string;
  outDir: string;
}

export function generatorPaths(options: { faces?: string; handlers?: string; out?: string }): GeneratorPaths {
  return {
    facesDir: resolve(options.faces ?? 'faces'),
    handlersDir: resolve(options.handlers ?? 'src/faces'),
    outDir: resolve(options.out ?? 'generated'),
  };
}
