/**
 * Catalogues for tests: a catalogue whose one face is served by other handlers (a login that pauses, an
 * injected clock), and modules made of handlers alone.
 */
import type { AnyHandler } from '../../src/core/context.js';
import type { Catalogue } from '../../src/core/catalogue.js';
import type { AnyFaceModule } from '../../src/core/face-module.js';

type HandlerMap = Record<string, AnyHandler>;

/** `catalogue` with the handlers of `face` replaced by what `change` makes of them. */
export function withHandlers(catalogue: Catalogue, face: string, change: (handlers: HandlerMap) => object): Catalogue {
  const module = catalogue.modules.find((m) => m.face === face);
  if (!module) throw new Error(`The catalogue serves no face "${face}".`);
  const handlers = change(module.handlers as HandlerMap);
  return { ...catalogue, modules: catalogue.modules.map((m) => (m === module ? { ...m, handlers } : m)) };
}

/** A module that is its handlers alone: no tables, no background work. */
export function handlersModule(face: string, handlers: object): AnyFaceModule {
  return { face, handlers };
}
