import { pino, stdTimeFunctions, type Logger as PinoLogger, type LevelWithSilent } from 'pino';
import PinoPretty from 'pino-pretty';

export type Logger = PinoLogger;

export type LogFormat = 'json' | 'pretty';

/** `auto` is what a person at a terminal reads (pretty) and what a collector parses (JSON) otherwise. */
export function resolveLogFormat(asked: LogFormat | 'auto', stdoutIsTty: boolean): LogFormat {
  return asked === 'auto' ? (stdoutIsTty ? 'pretty' : 'json') : asked;
}

export function createLogger(level: LevelWithSilent = 'info', format: LogFormat = 'json'): Logger {
  const options = { level, base: { service: 'convops' }, redact: ['req.headers.authorization', 'req.headers.signature'] };
  // ISO times: a person reading a collector's raw lines can, and every collector parses them.
  if (format === 'json') return pino({ ...options, timestamp: stdTimeFunctions.isoTime });
  // Synchronous, in this thread: a start-up failure's last lines are on the terminal before exit.
  return pino(options, PinoPretty({
    sync: true,
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,service,reqId',
    singleLine: true,
  }));
}
