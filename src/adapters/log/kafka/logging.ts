// kafkajs's own log lines, routed into the service logger.
import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from '../../../support/logger.js';

// kafkajs reports retried, transient failures (leader moves, coordinator loading) as ERROR;
// the adapter surfaces real failures itself, so these are warnings at most.
export function kafkaLogs(logger: Logger): logCreator {
  const child = logger.child({ component: 'kafkajs' });
  return () => ({ level, log }) => {
    const { message, ...extra } = log;
    if (level <= logLevel.WARN) child.warn(extra, message);
    else if (level === logLevel.INFO) child.debug(extra, message);
    else child.trace(extra, message);
  };
}
