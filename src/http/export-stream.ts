// Exports as a stream of rows: CSV (RFC 4180: a header row, CRLF line ends, fields quoted when
// they hold a comma, a quote or a line break) or JSON lines, written as the client reads them.
//
// Formula injection (OWASP "CSV Injection"): a spreadsheet runs a cell that starts with `=`,
// `+`, `-` or `@` (or a tab or carriage return, which some strip first) as a formula, and a fan
// or chatter id, a message, any text from outside, could be one. Every string cell that starts
// with one of them (or with their full-width forms, which Apple Numbers folds) is written with
// a single quote before it, which spreadsheets show as text. Number cells are never changed: a
// JavaScript number written out is digits with at most a leading minus, never a formula, and a
// negative amount must stay a number a spreadsheet can sum. So `-2` the number is `-2`, and "-2" the string is `'-2`. csv-stringify
// does exactly this with `escape_formulas` (it leaves numbers alone). JSON lines are not
// escaped: nothing evaluates them.
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { stringify, type Options as CsvOptions } from 'csv-stringify';

export type Cell = string | number | boolean | null;
export type Row = Readonly<Record<string, Cell>>;

export type ExportFormat = 'csv' | 'ndjson';

export const EXPORT_MEDIA_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
};

/**
 * JSON lines when the caller's Accept names `application/x-ndjson` above `text/csv` (by its
 * q-value); CSV otherwise, a browser's `*\/*` included.
 */
export function formatOf(accept: string | undefined): ExportFormat {
  if (!accept) return 'csv';
  let ndjson = 0;
  let csv = 0;
  for (const part of accept.toLowerCase().split(',')) {
    const [type, ...params] = part.split(';').map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight)) continue;
    if (type === 'application/x-ndjson') ndjson = Math.max(ndjson, weight);
    else if (type === 'text/csv') csv = Math.max(csv, weight);
  }
  return ndjson > 0 && ndjson > csv ? 'ndjson' : 'csv';
}

/** Text handed to the socket at once: one write per 64 K characters rather than one per row. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Gathers the rows' text into chunks of about `size` characters, as text (one encoding per
 * chunk, not per row), keeping backpressure: it holds at most one chunk.
 */
function coalescing(size: number): Transform {
  let text = '';
  return new Transform({
    writableObjectMode: true,
    readableHighWaterMark: size,
    transform(chunk: string, _encoding: BufferEncoding, done: TransformCallback) {
      text += chunk;
      if (text.length < size) return done();
      const out = text;
      text = '';
      done(null, out);
    },
    flush(done: TransformCallback) {
      done(null, text.length > 0 ? text : undefined);
    },
  });
}

export interface ExportStreamOptions {
  readonly format: ExportFormat;
  /** The CSV header row, in column order; every row has these keys. */
  readonly columns: readonly string[];
  /** Called once the stream ends: `err` when it failed (the store, or the client left), with the rows written. */
  readonly onEnd?: (err: Error | null, rows: number) => void;
}

/**
 * A readable of the rows as CSV or JSON lines, pulling the next row only as the reader takes
 * what came before (a slow client slows the store reads; nothing piles up). An error from
 * `rows` destroys the stream with it: the caller's HTTP answer, already under way, is cut off.
 */
export function exportStream(rows: AsyncIterable<Row>, options: ExportStreamOptions): Readable {
  let count = 0;
  const source = Readable.from(rows, { objectMode: true, highWaterMark: 64 });
  // Both encoders hand on text (object mode), which the next stage gathers into chunks.
  const encode = options.format === 'csv'
    ? stringify({
      header: true,
      columns: [...options.columns],
      record_delimiter: '\r\n',
      // csv-stringify quotes a field holding the whole delimiter (CRLF); a bare LF or CR breaks a
      // row too (and could start a line with a formula), so any of them is quoted.
      quoted_match: /[\r\n]/,
      escape_formulas: true,
      cast: { boolean: (v: boolean) => (v ? 'true' : 'false') },
      // Passed on to the Transform it is: rows go out as text.
      readableObjectMode: true,
    } satisfies CsvOptions & { readableObjectMode: boolean } as CsvOptions).on('record', () => { count++; })
    : new Transform({
      objectMode: true,
      transform(row: Row, _encoding: BufferEncoding, done: TransformCallback) {
        count++;
        done(null, `${JSON.stringify(row)}\n`);
      },
    });
  return pipeline(source, encode, coalescing(CHUNK_CHARS), (err) => options.onEnd?.(err ?? null, count));
}

/** A file name that is safe everywhere: `sessions-20261123T090000Z-20261124T090000Z.csv`. */
export function exportFileName(kind: string, from: number, to: number, format: ExportFormat): string {
  const part = (ms: number, open: string): string => (Number.isFinite(ms) ? new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.000Z$/, 'Z') : open);
  return `${kind}-${part(from, 'beginning')}-${part(to, 'now')}.${format === 'csv' ? 'csv' : 'ndjson'}`;
}

/**
 * The documents of `source` as rows, with the first one read before this resolves: a store that
 * fails at once fails the request with a status (503), not a cut-off transfer. Stopping early
 * (the client left) releases the store's cursor.
 */
export async function primed<D>(source: AsyncIterable<D>, toRow: (d: D) => Row): Promise<AsyncIterable<Row>> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  return (async function* () {
    try {
      if (first.done) return;
      yield toRow(first.value);
      for (;;) {
        const next = await it.next();
        if (next.done) return;
        yield toRow(next.value);
      }
    } finally {
      await it.return?.();
    }
  })();
}
