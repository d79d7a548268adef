/** The `Content-Disposition` of a download offered under a file name. */

/** `attachment` under a file name, with its UTF-8 form for names beyond ASCII (RFC 6266). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // RFC 5987 leaves out of a value what encodeURIComponent keeps: ' ( ) * !
  const utf8 = encodeURIComponent(filename).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}
