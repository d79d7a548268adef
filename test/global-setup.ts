/**
 * Builds the compiled program (dist/) before the tests, when its sources changed since the last build, so that
 * the process tests run `dispatch` as `npm start` and the `dispatch` binary do: compiled JavaScript, not
 * TypeScript through tsx.
 */
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: new URL('..', import.meta.url), stdio: 'inherit' });
}
