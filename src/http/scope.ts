// Account scopes in queries. A scoped key sees only its accounts; another account's id is
// answered like an id that does not exist (404, or an empty list), so the key learns nothing
// about it, not even that it exists.
import type { FastifyRequest } from 'fastify';
import type { Filter } from '../adapters/store/store.js';
import { canSee } from '../access/access-model.js';
import { requestScope } from './access.js';
import { ApiError } from './errors.js';

/**
 * The filter on `field` for a request that may name one account (`requested`, from the query
 * parameter `param`): that account when visible, else the caller's scope, else nothing.
 */
export function accountFilter(request: FastifyRequest, requested: string | undefined, param = 'accountId', field = 'accountId'): Filter {
  const scope = requestScope(request);
  if (requested !== undefined) {
    if (!canSee(scope, requested)) throw new ApiError('NOT_FOUND', `${param}: no account ${requested}`);
    return { [field]: requested };
  }
  return scope === null ? {} : { [field]: { $in: [...scope] } };
}

/** Throws the same 404 as a missing document when the caller may not see its account. */
export function assertVisible(request: FastifyRequest, accountId: string | null | undefined, notFound: string): void {
  if (!canSee(requestScope(request), accountId)) throw new ApiError('NOT_FOUND', notFound);
}
