/**
 * One face's generated validator module, imported on first use. A server over a large catalogue would
 * otherwise parse every face's validators (megabytes of code for hundreds of actions) before it could
 * answer anything; this way it pays for a face when that face is first called, once.
 *
 * The generated tables name each module by a plain import function (`() => import('./validators/ai.js')`),
 * so that they import no value from the runtime and load wherever they are; the runtime keeps one
 * ValidatorModule per such function.
 */
import type { ValidateFunction } from 'ajv';
import type { ValidatorLoader, ValidatorRef } from '../core/dispatch-types.js';

export class ValidatorModule {
  #exports: Readonly<Record<string, ValidateFunction>> | undefined;
  #loading: Promise<void> | undefined;

  constructor(private readonly importModule: () => Promise<Record<string, unknown>>) {}

  /** Imports the module; undefined once it is loaded, so that a call awaits only the first time. */
  load(): Promise<void> | undefined {
    if (this.#exports) return undefined;
    this.#loading ??= this.importModule().then(
      (exports) => {
        this.#exports = exports as Record<string, ValidateFunction>;
      },
      (error: unknown) => {
        // A failed import is tried again by the next call rather than failing every call from now on.
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }

  /** A validator of the loaded module. */
  get(name: string): ValidateFunction {
    const validate = this.#exports?.[name];
    if (!validate) throw new Error(`Validator ${name} is not loaded: the call was routed before its module was.`);
    return validate;
  }
}

const modules = new WeakMap<ValidatorLoader, ValidatorModule>();

/** The one module of a generated import function. */
export function validatorModule(loader: ValidatorLoader): ValidatorModule {
  let module = modules.get(loader);
  if (!module) modules.set(loader, (module = new ValidatorModule(loader)));
  return module;
}

/** Loads every module not loaded yet; undefined when all are, so that the caller stays synchronous. */
export function loadAll(loaders: readonly ValidatorLoader[]): Promise<unknown> | undefined {
  let pending: Promise<void>[] | undefined;
  for (const loader of loaders) {
    const loading = validatorModule(loader).load();
    if (loading) (pending ??= []).push(loading);
  }
  return pending && Promise.all(pending);
}

/** The validator a reference names; its module must be loaded (loadAll). */
export const validatorOf = (ref: ValidatorRef): ValidateFunction => validatorModule(ref.module).get(ref.name);
