/**
 * The structure kinds the emitters build without loading ts-morph are ts-morph's own, and a generate whose
 * printed chunks and handler checks all come from the memo loads no TypeScript compiler.
 */
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tsMorph from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { StructureKind, VariableDeclarationKind } from '../../src/generate/structure-kinds.js';
import { DISPATCH, ROOT, runProgram } from '../helpers/process.js';

describe('structure kinds', () => {
  it("are ts-morph's", async () => {
    for (const [name, value] of Object.entries(StructureKind)) expect(value, name).toBe(tsMorph.StructureKind[name as keyof typeof tsMorph.StructureKind]);
    for (const [name, value] of Object.entries(VariableDeclarationKind)) expect(value, name).toBe(tsMorph.VariableDeclarationKind[name as keyof typeof tsMorph.VariableDeclarationKind]);
  });

  it('leave TypeScript unloaded on a run the memo answers whole, handler modules included', async () => {
    const work = mkdtempSync(join(tmpdir(), 'dispatch-kinds-'));
    cpSync(join(ROOT, 'faces'), join(work, 'faces'), { recursive: true });
    cpSync(join(ROOT, 'src', 'faces'), join(work, 'handlers'), { recursive: true });
    // Says on stderr when the compiler's module is loaded (ts-morph requires it through CommonJS).
    const probe = join(work, 'probe.cjs');
    writeFileSync(probe, "const Module = require('node:module'); const load = Module._load; Module._load = function (request, ...rest) { if (/typescript(\\.js)?$/.test(request)) process.stderr.write('LOADED typescript\\n'); return load.call(this, request, ...rest); };\n");
    const run = () =>
      runProgram(process.execPath, ['--require', probe, DISPATCH, 'generate', '--faces', 'faces', '--handlers', 'handlers', '--out', 'generated'], {
        cwd: work,
        env: { ...process.env, DISPATCH_CACHE_DIR: join(work, 'cache') },
      });
    const loadsTypeScript = (stderr: string) => stderr.includes('LOADED typescript');
    const first = await run();
    expect(first.status, first.stderr.slice(-2000)).toBe(0);
    expect(loadsTypeScript(first.stderr)).toBe(true);
    const second = await run();
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(/0 written, 0 deleted/);
    expect(loadsTypeScript(second.stderr)).toBe(false);
  }, 120_000);
});
