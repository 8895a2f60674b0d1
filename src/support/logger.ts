import { pino, type Logger as PinoLogger, type LevelWithSilent } from 'pino';

export type Logger = PinoLogger;

export function createLogger(level: LevelWithSilent = 'info'): Logger {
  return pino({ level, base: { service: 'convops' }, redact: ['req.headers.authorization', 'req.headers.signature'] });
}
