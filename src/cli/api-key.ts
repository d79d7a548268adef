/**
 * The API key the client commands (`usage`, `mcp`, `listen`, `trigger`) send, checked before it reaches a request: a key is sent in
 * the Authorization header, and a placeholder copied from a document (`sk_test_…`) or a key with a stray space
 * would otherwise fail inside fetch as a TypeError with a stack trace rather than as one line that says what to do.
 */

/** Why `key` cannot be sent as a key, in one line, or undefined when it can. */
export function keyProblem(key: string): string | undefined {
  // Keys are base62 after their prefix (docs/contract.md § Keys, modes, entities and scopes); only characters a
  // header cannot carry are refused here, and the server judges the rest (401 api_key_invalid).
  const at = [...key].findIndex((c) => c < '!' || c > '~');
  if (at < 0) return undefined;
  const shown = JSON.stringify([...key][at]);
  return `The API key has ${shown} at character ${at + 1}, which no key has: set --key or DISPATCH_API_KEY to a whole key (\`dispatch keys create --mode test\` makes one), not a placeholder.`;
}
