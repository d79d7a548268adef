#!/usr/bin/env node
// The `dispatch` executable: the compiled program under dist/, which `npm install` builds (`npm run build`
// rebuilds it after a change).
import { existsSync } from 'node:fs';

const main = new URL('../../dist/src/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('dispatch is not built yet: run `npm run build` in its directory.');
  process.exit(2);
}
await import(main.href);
