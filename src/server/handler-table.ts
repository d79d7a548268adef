/**
 * The handlers a server calls, by action id (`face.action`), read once from the modules of the catalogue it
 * serves. A module's handlers are typed by its face's generated interface; here they are called as the
 * pipeline calls every handler, with a payload the action's validator has checked.
 */
import type { AnyHandler } from '../core/context.js';
import type { AnyFaceModule } from '../core/face-module.js';

export type HandlerTable = ReadonlyMap<string, AnyHandler>;

export function handlerTable(modules: readonly AnyFaceModule[]): HandlerTable {
  const table = new Map<string, AnyHandler>();
  for (const module of modules) {
    const handlers: Partial<Record<string, unknown>> = module.handlers;
    for (const [name, handler] of Object.entries(handlers)) {
      if (typeof handler === 'function') table.set(`${module.face}.${name}`, handler.bind(module.handlers) as AnyHandler);
    }
  }
  return table;
}
