// JSON text for property tests of lossless parsing: `{raw}` leaves are spliced in as number
// literals of any size, which no JS value can hold.

/** A value's JSON text, with every `{ raw: "<literal>" }` written as that literal. */
export function renderJson(v: unknown): string {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { raw?: unknown }).raw === 'string') return (v as { raw: string }).raw;
  if (Array.isArray(v)) return `[${v.map(renderJson).join(',')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${renderJson(x)}`).join(',')}}`;
  return JSON.stringify(v);
}
