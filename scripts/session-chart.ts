// Writes docs/session-chart.md from the session machine's definition.
//   npm run chart
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderChart } from './chart-diagram.js';
import { sessionMachine } from '../machines/session-machine.js';

export const CHART_DOC = join(import.meta.dirname, '../docs/session-chart.md');

writeFileSync(CHART_DOC, renderChart(sessionMachine));
console.log(`wrote ${CHART_DOC}`);
