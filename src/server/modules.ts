/**
 * The face modules as one process runs them (a server, or `dispatch worker`): each started with its host and
 * settings, in the catalogue's order; their background work started and stopped together; their routes, the
 * work they do after each answer, and the services they offer each other and the handlers.
 */
import type { FastifyInstance } from 'fastify';
import type { AfterAnswer } from '../core/answer.js';
import type { FaceEntry, PlatformData } from '../core/dispatch-types.js';
import type { AnyFaceModule, CrossOriginRoutes, ModuleHost, RunningModule } from '../core/face-module.js';
import type { Providers } from '../providers/index.js';
import type { Db } from '../store/schema.js';

export interface ModuleProcess {
  readonly db: Db;
  readonly providers: Providers;
  readonly platform: PlatformData;
  readonly faces: ReadonlyMap<string, FaceEntry>;
  readonly apiVersion: () => string;
  readonly process: ModuleHost<unknown>['process'];
  /** Each module's settings by face (`readModuleSettings`), whole or in part: laid over the module's defaults. */
  readonly settings?: Readonly<Record<string, unknown>>;
}

export interface RunningModules {
  readonly afterAnswer: readonly AfterAnswer[];
  /** The service a module offers, by its face. */
  service<T>(face: string): T | undefined;
  routes(app: FastifyInstance): void;
  /** The modules' routes that pages on other origins may call. */
  readonly crossOrigin: readonly CrossOriginRoutes[];
  startBackground(): void;
  /** The server begins to stop (before its calls end). */
  stopping(): void;
  /** Stops the background work, then lets each module release what it holds. */
  stop(): Promise<void>;
}

/**
 * Each module's settings as its `settings` reads them from `env` (read at start, before anything else: a
 * setting that cannot be used throws its module's one-line ConfigError).
 */
export function readModuleSettings(modules: readonly AnyFaceModule[], env: NodeJS.ProcessEnv): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const module of modules) if (module.settings) settings[module.face] = module.settings(env);
  return settings;
}

export async function startModules(modules: readonly AnyFaceModule[], common: ModuleProcess): Promise<RunningModules> {
  const running = new Map<string, RunningModule>();
  const service = <T>(face: string) => running.get(face)?.service as T | undefined;
  for (const module of modules) {
    if (!module.start) continue;
    // Defaults first, so that settings given in part (a test's, a server built in code) lack nothing.
    const settings = module.settings ? { ...(module.settings({}) as object), ...(common.settings?.[module.face] as object | undefined) } : undefined;
    const host: ModuleHost<unknown> = { db: common.db, providers: common.providers, platform: common.platform, faces: common.faces, apiVersion: common.apiVersion, process: common.process, settings, service };
    running.set(module.face, await module.start(host));
  }
  const all = [...running.values()];
  const background = all.flatMap((m) => m.background ?? []);
  return {
    afterAnswer: all.flatMap((m) => (m.afterAnswer ? [m.afterAnswer] : [])),
    service,
    routes: (app) => all.forEach((m) => m.routes?.(app)),
    crossOrigin: all.flatMap((m) => m.crossOrigin ?? []),
    startBackground: () => background.forEach((work) => work.start()),
    stopping: () => all.forEach((m) => m.stopping?.()),
    async stop() {
      // Every module is closed even when another's work fails to stop: a close writes what it holds (usage records).
      const stopped = await Promise.allSettled(background.map((work) => work.stop()));
      const closed = await Promise.allSettled(all.map((m) => m.close?.()));
      const failed = [...stopped, ...closed].find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
