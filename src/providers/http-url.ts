/**
 * A backend's address from the environment, checked at start-up: an http or https URL, or an error that
 * names the variable. The value itself is never echoed: a malformed URL may still carry credentials.
 */
export function httpUrl(variable: string, value: string, example: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${variable} is not a valid URL. Example: ${example}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${variable} must be an http or https URL, not ${url.protocol}`);
  }
  return url;
}
