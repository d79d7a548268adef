/**
 * How `serve` and `worker` stop on SIGINT and SIGTERM (docs/operations.md § Deployment modes). The first signal starts the
 * orderly stop (calls in flight finish, buffered usage is written, the store closes) and the process exits 0
 * when it ends. A second is ignored with a note: `npm start` forwards to its child the signal that a Ctrl-C
 * already sent the whole process group, so one Ctrl-C arrives twice. A third ends the process at once.
 */
import { constants } from 'node:os';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** What the stop listens on and acts through: this process, or a stand-in in a test. */
export interface StopHost {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  exit(code: number): void;
  say(line: string): void;
}

const thisProcess: StopHost = {
  on: (signal, listener) => process.on(signal, listener),
  exit: (code) => process.exit(code),
  say: (line) => console.error(line),
};

export function stopOnSignals(stop: () => Promise<void>, host: StopHost = thisProcess): void {
  let received = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    received += 1;
    if (received === 1) {
      stop().then(
        () => host.exit(0),
        (error: unknown) => {
          host.say(`The stop failed: ${error instanceof Error ? error.message : String(error)}`);
          host.exit(1);
        },
      );
    } else if (received === 2) {
      host.say(`${signal} again: still stopping (calls in flight finish, buffered usage is written); a third signal stops at once.`);
    } else {
      host.say(`${signal} a third time: stopping at once; calls in flight are cut and usage not yet written is lost.`);
      host.exit(128 + constants.signals[signal]);
    }
  };
  for (const signal of SIGNALS) host.on(signal, () => onSignal(signal));
}
