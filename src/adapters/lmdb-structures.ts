/**
 * Where an LMDB database keeps msgpack's record structures (its values' key lists), so a
 * value holds only its values. Without it, every value carried its own key list and every
 * read parsed it and built a reader: 3 of a worker's 27 busy seconds at 1,000 webhooks/s.
 * Values written before keep their inline lists and still read (msgpackr restores shared
 * structures an inline one shadowed). Used by the embedded store and the embedded log.
 */
export const SHARED_STRUCTURES = Symbol.for('structures');
