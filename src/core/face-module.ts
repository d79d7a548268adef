/**
 * The contract of a face module: everything one face's server side is, as one typed value its folder exports
 * (`src/faces/<face>/index.ts`). Its handlers, and where it has them: the migrations of its own tables, its
 * settings read from the environment, and what it runs in a process (background work, HTTP routes of its own,
 * work after each answer, a service other modules call). `serve` and `dispatch worker` start, route and stop
 * the modules they are given without naming any.
 */
import type { FastifyInstance } from 'fastify';
import type { Migration } from 'kysely';
import type { Providers } from '../providers/index.js';
import type { Db } from '../store/schema.js';
import type { AfterAnswer } from './answer.js';
import type { FaceEntry, PlatformData } from './dispatch-types.js';

/**
 * A migration of the module's own tables, named as its place in the one global order (`0011_billing`). Each
 * name is given once, but for the migrations that made several owners' tables (store/migrations.ts,
 * SPLIT_MIGRATIONS): each owner gives its part under that name.
 */
export interface ModuleMigration extends Migration {
  readonly name: string;
}

/** Background work a module runs in a process: a queue's worker, a period closer. */
export interface BackgroundWork {
  start(): void;
  /** Resolves once the work under way has settled. */
  stop(): Promise<void>;
}

/** What a process gives a module it starts. */
export interface ModuleHost<S> {
  readonly db: Db;
  readonly providers: Providers;
  readonly platform: PlatformData;
  /** Every face the process serves, by name. */
  readonly faces: ReadonlyMap<string, FaceEntry>;
  /** The module's settings: what its `settings` read from the environment, or what a server was built with. */
  readonly settings: S;
  /** The API version in force now: events written outside a call (by background work) are written in it. */
  readonly apiVersion: () => string;
  /**
   * A server, or `dispatch worker`: a worker runs every module's queue work (deliveries, mail, billing
   * periods, `runsBackground`); a server runs what the module's settings leave to it (none, when the
   * deployment runs workers apart), and what only serving needs (usage's purge of its records).
   */
  readonly process: 'server' | 'worker';
  /** The service another module exports, by that module's face; undefined when it is not served here. */
  service<T>(face: string): T | undefined;
}

/**
 * Routes of a module's own that browser pages on other origins may call directly (storage's signed URLs):
 * the server answers them, preflights included, for the origins its `CORS_ORIGINS` names.
 */
export interface CrossOriginRoutes {
  /** The routes, as Fastify writes them. */
  readonly routes: readonly string[];
  readonly methods: string;
  /** What a page may send. */
  readonly allowHeaders: string;
  /** What a page may read besides the CORS-safelisted headers. */
  readonly exposeHeaders: string;
}

/** A module as one process runs it. */
export interface RunningModule {
  /** Started and stopped with the process (when it runs background work). */
  readonly background?: readonly BackgroundWork[];
  /** HTTP routes of its own beside `POST /do` (storage's signed URLs). */
  routes?(app: FastifyInstance): void;
  /** Which of those routes pages on other origins may call. */
  readonly crossOrigin?: readonly CrossOriginRoutes[];
  /** Work done once each call's answer is decided. */
  readonly afterAnswer?: AfterAnswer;
  /** What other modules call (through `ModuleHost.service`, and handlers through `ctx.service`). */
  readonly service?: object;
  /** The server begins to stop: ends what would hold the stop until its time-out (a live stream). */
  stopping?(): void;
  /** Releases what it holds, after its background work stopped and the server's calls ended. */
  close?(): Promise<void>;
}

/**
 * `H` is the face's generated handler interface (`BillingHandlers`), `S` its settings. Its functions are
 * methods, so that any module is also an `AnyFaceModule`.
 */
export interface FaceModule<H extends object = object, S = undefined> {
  /** The face it serves: the name of its face file. */
  readonly face: string;
  /** A method per action, each typed by the generated interface. */
  readonly handlers: H;
  readonly migrations?: readonly ModuleMigration[];
  /** Reads its settings from the environment (defaults for what is unset); throws a ConfigError of one line. */
  settings?(env: NodeJS.ProcessEnv): S;
  /** Starts the module in a process: a server, or `dispatch worker`. */
  start?(host: ModuleHost<S>): RunningModule | Promise<RunningModule>;
}

/**
 * Whether this process runs a module's queue work: `dispatch worker` runs all of it; a server runs it
 * unless the module's setting (`inServers`: `BILLING_CLOSER`, `EMAIL_WORKER`, ...) leaves it to workers.
 */
export function runsBackground(process: ModuleHost<unknown>['process'], inServers: boolean): boolean {
  return process === 'worker' || inServers;
}

/** A module of any face, as a server holds the modules it serves. */
export type AnyFaceModule = FaceModule<object, unknown>;

/** The migrations of `modules`, in their order: what a store serving them runs with the core's own. */
export function moduleMigrations(modules: readonly AnyFaceModule[]): ModuleMigration[] {
  return modules.flatMap((module) => module.migrations ?? []);
}
