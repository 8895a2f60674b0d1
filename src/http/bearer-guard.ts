// Bearer-token guard for routes with a credential of their own (the connector). Compared in
// constant time; with no token configured, the route refuses everyone rather than open up.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

export function bearerGuard(token: string | null, variable: string) {
  const expected = token === null ? null : digest(token);
  return async (request: FastifyRequest): Promise<void> => {
    if (expected === null) throw new ApiError('UNAUTHORIZED', `authorization: this route is disabled until ${variable} is configured`);
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer[ \t]+(\S+)$/i.exec(header.trim()) : null;
    if (!match?.[1]) throw new ApiError('UNAUTHORIZED', 'authorization: missing bearer token');
    // Hashing first gives equal lengths, so the comparison time says nothing about the token.
    if (!timingSafeEqual(digest(match[1]), expected)) throw new ApiError('UNAUTHORIZED', 'authorization: wrong bearer token');
  };
}
