/**
 * `generated/client/package.json`: the generated client as an npm package. Its name comes from the
 * platform's title (`unified-dispatch-client`), its version from the API version it was generated for
 * (`2026-09-01` is `2026.9.1`: a newer API version is a newer client), its licence from `info.license`.
 * `dispatch client build` compiles the sources beside it into the `dist/` its `exports` name: ES modules and
 * CommonJS, each with its declarations.
 */
import type { Platform } from '../spec/model.js';

export const CLIENT_PACKAGE_PATH = 'client/package.json';

/**
 * What the client's runtime imports, in the ranges this repository installs and tests it with (a test
 * holds them to package.json's).
 */
export const CLIENT_DEPENDENCIES = { 'eventsource-parser': '^3.1.1', standardwebhooks: '^1.1.1' };

export function clientPackageOf(platform: Platform): { name: string; version: string } {
  const name = `${platform.info.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}-client`;
  const version = platform.latest
    .split('-')
    .map((part) => String(Number(part)))
    .join('.');
  return { name, version };
}

export function emitClientPackage(platform: Platform): string {
  const { name, version } = clientPackageOf(platform);
  const types = (dir: string) => ({ types: `./dist/${dir}/index.d.ts`, default: `./dist/${dir}/index.js` });
  const manifest = {
    name,
    version,
    description: `Typed client of ${platform.info.title}, API version ${platform.latest}: one method per action, typed errors, streams, pages and webhooks.`,
    license: platform.info.license?.identifier ?? 'UNLICENSED',
    type: 'module',
    sideEffects: false,
    exports: { '.': { import: types('esm'), require: types('cjs') }, './package.json': './package.json' },
    main: './dist/cjs/index.js',
    module: './dist/esm/index.js',
    types: './dist/esm/index.d.ts',
    files: ['dist', 'README.md'],
    engines: { node: '>=18' },
    dependencies: CLIENT_DEPENDENCIES,
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
