/**
 * Answers what Node's HTTP parser refuses before any route runs (a malformed request line, an unknown
 * method, a NUL byte or an oversized header block, bad chunking, a request that arrives too slowly) in the
 * error envelope of docs/contract.md § Errors, with a Request-Id like every other answer, instead of Node's or Fastify's own
 * bodies. Connections reset by the client get no answer: nobody is there to read it.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { newId } from '../store/secrets.js';
import { answerable, ApiError, type ErrorCode, type ErrorTable } from '../core/errors.js';
import { errorObject, responseMeta } from './envelope.js';

function refusal(error: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { code: 'request_timeout', message: 'The request was not received in time; send its headers and body without pausing.' };
  if (error.code === 'HPE_HEADER_OVERFLOW') return { code: 'headers_too_large', message: 'The request headers are larger than the server accepts.' };
  return { code: 'request_malformed', message: 'The HTTP request is malformed and was not read.' };
}

export function clientErrorHandler(serverVersion: string, errorDocsUrl: string, errors: ErrorTable) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // Only before anything was written: on a keep-alive connection a response may be under way, and an
    // answer in its middle would corrupt it. Node's own handler does the same.
    if (socket.writable && socket.bytesWritten === 0) {
      const { code, message } = refusal(error);
      const requestId = newId('req');
      const { error: apiError, meaning } = answerable(new ApiError(code, message), errors, requestId);
      const body = JSON.stringify({ error: errorObject(apiError, meaning, errorDocsUrl), meta: responseMeta(requestId, performance.now(), serverVersion) });
      socket.write(
        `HTTP/1.1 ${meaning.status} ${STATUS_CODES[meaning.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nRequest-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}
