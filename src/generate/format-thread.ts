/**
 * One worker thread that formats the generated TypeScript prettier formats (see format.ts) beside the
 * generator: a file posted here as soon as it is emitted is formatted on the second core while the next one is
 * emitted, and prettier loads there, while the faces are read and linted. The thread holds the process open
 * only while a file is being formatted, so a run ends when its work does and a watch keeps the thread between
 * runs.
 */
import { Worker } from 'node:worker_threads';
import { fromProgram } from '../package-root.js';

/** A job posted and not yet answered. */
interface Waiting {
  resolve: (text: string) => void;
  reject: (error: Error) => void;
}

/** What the thread formats: a text, with prettier's `parser`. */
export interface FormatJob {
  parser: string;
  text: string;
}

interface FormatThread {
  worker: Worker;
  jobs: Map<number, Waiting>;
  next: number;
}

let thread: FormatThread | undefined;

/**
 * Starts the thread, so that prettier is loaded by the time the first file is emitted; a later
 * call keeps the running one. `options` are prettier's, the same for every file.
 */
export function startFormatThread(options: object): FormatThread {
  if (thread) return thread;
  // No execArgv: the thread is plain JavaScript and needs none of the loaders the sources run under.
  const worker = new Worker(fromProgram('src', 'generate', 'format.worker.mjs'), { workerData: { options }, execArgv: [] });
  const started: FormatThread = { worker, jobs: new Map(), next: 0 };
  worker.on('message', ({ id, text, error }: { id: number; text?: string; error?: string }) => {
    const job = started.jobs.get(id);
    started.jobs.delete(id);
    if (started.jobs.size === 0) worker.unref();
    if (error !== undefined) job?.reject(new Error(error));
    else job?.resolve(text!);
  });
  // A thread that failed (a broken install, out of memory) fails the files it held; the next run starts another.
  const fail = (why: string) => {
    if (thread === started) thread = undefined;
    for (const job of started.jobs.values()) job.reject(new Error(`The formatter's thread failed: ${why}`));
    started.jobs.clear();
  };
  worker.on('error', (error) => fail(error.message));
  worker.on('exit', (code) => fail(`it stopped with exit code ${code}.`));
  // After the listeners: a 'message' listener holds the thread's port open again, and a run that fails before
  // it posts any file (a face file that does not parse) would then never end.
  worker.unref();
  return (thread = started);
}

/** The job's TypeScript, formatted on the thread by prettier with `options`. */
export function formatOnThread(job: FormatJob, options: object): Promise<string> {
  const running = startFormatThread(options);
  const id = running.next++;
  return new Promise((resolve, reject) => {
    running.worker.postMessage({ id, ...job });
    running.worker.ref();
    running.jobs.set(id, { resolve, reject });
  });
}

/**
 * Lets the process end without waiting for the files the thread is formatting; the next file posted holds it
 * again. For the command line, which builds one catalogue at a time: it lets go of every file on the thread.
 */
export function releaseFormatThread(): void {
  thread?.worker.unref();
}
