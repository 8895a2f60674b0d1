// POST /api/admin/backup: a consistent copy of the embedded DATA_DIR while the service runs
// (src/adapters/embedded-backup.ts), for the operator to keep elsewhere and restore by copying
// it back (docs/operations.md "Backing up and restoring").
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { BackupResult } from '../../adapters/embedded-backup.js';
import { BusyError } from '../../support/one-at-a-time.js';
import { ApiError, errorResponses } from '../errors.js';

export interface AdminBackupOptions {
  /** Null when the log or the store is Kafka or MongoDB: their own tools back them up. */
  readonly backup: (() => Promise<BackupResult>) | null;
}

const BackupSchema = Type.Object({
  path: Type.String({ description: 'the backup folder on the server: copy it somewhere safe; to restore, stop convops and make a copy of it the DATA_DIR' }),
  name: Type.String(),
  startedAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.String({ format: 'date-time' }),
  bytes: Type.Integer({ minimum: 0 }),
  files: Type.Array(Type.Object({ path: Type.String({ description: 'relative to the backup folder, as under DATA_DIR' }), bytes: Type.Integer({ minimum: 0 }) })),
});

export const adminBackupRoutes: FastifyPluginAsyncTypebox<AdminBackupOptions> = async (app, opts) => {
  app.post('/api/admin/backup', {
    config: { access: 'admin' },
    schema: {
      summary: 'Copy the embedded log and store into a new folder under BACKUP_DIR while the service runs: one consistent state (positions, then the store, then the records), restored by copying the folder to DATA_DIR. One at a time; embedded deployments only',
      security: [{ adminToken: [] }],
      body: Type.Optional(Type.Object({}, { additionalProperties: false, description: 'none: where and what are the settings\' (BACKUP_DIR)' })),
      response: {
        201: BackupSchema,
        ...errorResponses('INVALID_INPUT', 'UNAUTHORIZED', 'FORBIDDEN', 'CONFLICT', 'RATE_LIMITED'),
      },
    },
  }, async (request, reply) => {
    if (opts.backup === null) {
      throw new ApiError('CONFLICT', 'backup: this deployment runs on Kafka and MongoDB, which are backed up with their own tools (mongodump, and the topics\' replication); see docs/operations.md');
    }
    try {
      const result = await opts.backup();
      request.log.info({ path: result.path, bytes: result.bytes }, 'backup written');
      return reply.code(201).send({ ...result, files: [...result.files] });
    } catch (err) {
      if (err instanceof BusyError) throw new ApiError('CONFLICT', 'backup: another backup is under way; retry when it has finished');
      throw err;
    }
  });
};
