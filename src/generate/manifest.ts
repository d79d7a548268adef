/**
 * `generated/manifest.json`: every generated file with the SHA-256 of its text. write.ts reads it to delete
 * what a run no longer produces; `check` reads it to hash the files on disk without loading the generator.
 */

export const MANIFEST_PATH = 'manifest.json';

export interface Manifest {
  generatedBy: string;
  /** Every generated file, the manifest included, sorted. */
  files: string[];
  /** SHA-256 of each generated file's text but the manifest's own. */
  sha256: Record<string, string>;
}
