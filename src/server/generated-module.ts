/**
 * One face's generated module (its validators, its pipelines), imported on first use. A server over a large
 * catalogue would otherwise parse every face's code (megabytes for hundreds of actions) before it could
 * answer anything; this way it pays for a face when that face is first called, once.
 *
 * The generated tables name each module by a plain import function (`() => import('./validators/ai.js')`),
 * so that they import no value from the runtime and load wherever they are; the runtime keeps one
 * GeneratedModule per such function.
 */
import type { ValidateFunction } from 'ajv';
import type { GeneratedLoader, GeneratedRef, ValidatorRef } from '../core/dispatch-types.js';
import { kit, type ActionChecksMaker } from './stages/kit.js';
import type { ActionChecks } from './call.js';

export class GeneratedModule {
  #exports: Readonly<Record<string, unknown>> | undefined;
  #loading: Promise<void> | undefined;

  constructor(private readonly importModule: GeneratedLoader) {}

  /** Imports the module; undefined once it is loaded, so that a call awaits only the first time. */
  load(): Promise<void> | undefined {
    if (this.#exports) return undefined;
    this.#loading ??= this.importModule().then(
      (exports) => {
        this.#exports = exports;
      },
      (error: unknown) => {
        // A failed import is tried again by the next call rather than failing every call from now on.
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }

  /** An export of the loaded module. */
  get(name: string): unknown {
    const value = this.find(name);
    if (value === undefined) throw new Error(`Generated export ${name} is not loaded: the call was routed before its module was.`);
    return value;
  }

  /** An export of the module, or undefined while it is not loaded. */
  find(name: string): unknown {
    return this.#exports?.[name];
  }
}

const modules = new WeakMap<GeneratedLoader, GeneratedModule>();

/** The one module of a generated import function. */
export function generatedModule(loader: GeneratedLoader): GeneratedModule {
  let module = modules.get(loader);
  if (!module) modules.set(loader, (module = new GeneratedModule(loader)));
  return module;
}

/** Loads every module not loaded yet; undefined when all are, so that the caller stays synchronous. */
export function loadAll(loaders: readonly GeneratedLoader[]): Promise<unknown> | undefined {
  let pending: Promise<void>[] | undefined;
  for (const loader of loaders) {
    const loading = generatedModule(loader).load();
    if (loading) (pending ??= []).push(loading);
  }
  return pending && Promise.all(pending);
}

/** The validator a reference names; its module must be loaded (loadAll). */
export const validatorOf = (ref: ValidatorRef): ValidateFunction => generatedModule(ref.module).get(ref.name) as ValidateFunction;

/** Each action's checks, made once from its generated maker with the stage kit, by the reference that names them. */
const made = new WeakMap<GeneratedRef, ActionChecks>();

/** The checks a reference names (generated/server/pipelines/); its module must be loaded (loadAll). */
export function checksOf(ref: GeneratedRef): ActionChecks {
  let checks = made.get(ref);
  if (!checks) made.set(ref, (checks = (generatedModule(ref.module).get(ref.name) as ActionChecksMaker)(kit)));
  return checks;
}
