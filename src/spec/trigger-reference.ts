/**
 * The references in the payloads of an event's fixture (a face's `trigger:`): a string `"${name.field}"`, the
 * whole string, stands for a field of the result of the earlier step called `name` (`"${customer.id}"`,
 * `"${signup.user.id}"`, an array's element by its index: `"${import.users.0.id}"`). The generator checks them
 * (rules/trigger-fixtures.ts); `dispatch trigger` puts the values in as it runs the steps.
 */

export interface Reference {
  /** The name of the step whose result it reads. */
  step: string;
  /** The field's path in that result. */
  path: string[];
}

/** A string of a payload that holds `${`, where it is, and the reference it is (absent: it is not one). */
export interface ReferenceText {
  path: (string | number)[];
  text: string;
  reference?: Reference;
}

const WHOLE = /^\$\{([a-z][a-zA-Z0-9]*)((?:\.[A-Za-z0-9_-]+)+)\}$/;

/** Every string of a payload that holds `${`: each a reference, or a mistake to report. */
export function referencesIn(value: unknown, path: (string | number)[] = []): ReferenceText[] {
  if (typeof value === 'string') {
    if (!value.includes('${')) return [];
    const match = WHOLE.exec(value);
    return [{ path, text: value, ...(match ? { reference: { step: match[1]!, path: match[2]!.slice(1).split('.') } } : {}) }];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => referencesIn(item, [...path, i]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => referencesIn(item, [...path, key]));
  return [];
}

/** The value at `path` in a result, or undefined when it has none there. */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, step) => (node !== null && typeof node === 'object' && Object.hasOwn(node, step) ? (node as Record<string, unknown>)[step] : undefined), value);
}

/** Sets the value at `path` in a payload (a plain JSON value the caller copied): a reference's value, in its place. */
export function setAt(target: unknown, path: readonly (string | number)[], value: unknown): void {
  const parent = path.slice(0, -1).reduce<unknown>((node, step) => (node as Record<string, unknown>)[String(step)], target);
  (parent as Record<string, unknown>)[String(path.at(-1))] = value;
}
