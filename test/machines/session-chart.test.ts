// docs/session-chart.md is drawn from the machine's definition; a chart change without
// `npm run chart` fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chartEdges, renderChart } from '../../scripts/chart-diagram.js';
import { sessionMachine } from '../../machines/session-machine.js';

describe('the session chart document', () => {
  it('is what the machine draws now (run `npm run chart` after changing the chart)', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/session-chart.md'), 'utf8');
    expect(doc).toBe(renderChart(sessionMachine));
  });

  it('draws the lifecycle transitions a manager names', () => {
    const edges = chartEdges(sessionMachine).map((e) => `${e.from} -${e.event}[${e.guard ?? ''}]-> ${e.to ?? '.'}`);
    expect(edges).toEqual(expect.arrayContaining([
      'noSession -(always)[fanMessageHeld]-> session',
      'session.awaiting -(always)[pastUnansweredLimit]-> closed.unanswered',
      'session.answered -(always)[pastIdleDeadline]-> closed.idle',
      'session -(always)[closeRequestedForOpenSession]-> closed.forced',
      'session.awaiting -human.reply[answersTheFan]-> session.answered',
      'closed -(always)[fanMessageHeld]-> session',
    ]));
  });
});
