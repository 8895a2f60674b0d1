// Mends one wait in the MongoDB Node driver at install time, so a command sent on a connection
// that is closing fails instead of waiting for ever.
//
// Why: Connection.writeCommand (mongodb 6.22.0, unchanged in 7.9.0) awaits the serialised
// command, then writes it to the socket and, when write() returns false, waits for 'drain' or
// 'error'. A socket that was destroyed meanwhile (the connection closed in that await, or closed
// by its own socket timeout while the write waited for the server to read) returns false and
// emits neither, so the command never settles. When the Mongo-wire server restarted under load,
// this froze the server monitor's check (the client held the server unknown for good, every
// call failing with the first error) or a projector round's write (its lag frozen, nothing
// logged): docs/benchmarks.md, "Issue 29", and test/adapters/mongo-stall.int.test.ts.
//
// Plain JavaScript with no dependencies: it runs before anything else is installed or built.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PINNED = '6.22.0';
const FILE = 'lib/cmap/connection.js';
const MARK = '/* convops: scripts/patch-mongodb.mjs */';
const closedError = 'this.error ?? new error_1.MongoNetworkError(`connection ${this.id} to ${this.address} closed`)';
const EDITS = [
  {
    // A socket destroyed before the write: fail now, as a read on a closed connection does.
    from: '        if (this.socket.write(buffer))\n            return;\n',
    to: `        ${MARK}\n        if (this.closed || this.socket.destroyed)\n            throw ${closedError};\n        if (this.socket.write(buffer))\n            return;\n`,
  },
  {
    // A socket destroyed while the write waits for the server to read: stop waiting on 'close'.
    from: "        const drainEvent = (0, utils_1.once)(this.socket, 'drain', options);\n",
    // The close wait is aborted once the write is settled, so listeners do not pile up on a long-lived socket.
    to: `        const closeWait = new AbortController();\n        const drainEvent = Promise.race([(0, utils_1.once)(this.socket, 'drain', options), (0, utils_1.once)(this.socket, 'close', { signal: closeWait.signal }).then(() => { throw ${closedError}; })]).finally(() => closeWait.abort());\n`,
  },
];

const driverDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'mongodb');
if (!existsSync(join(driverDir, 'package.json'))) process.exit(0); // not installed (yet): nothing to mend
const version = JSON.parse(readFileSync(join(driverDir, 'package.json'), 'utf8')).version;
const path = join(driverDir, FILE);
let source = readFileSync(path, 'utf8');
if (source.includes(MARK)) process.exit(0);

function fail(message) {
  console.error(`\nconvops: ${message}\nconvops: without this mend, a MongoDB client can stop recovering after its server restarts (scripts/patch-mongodb.mjs).\n`);
  process.exit(1);
}
if (version !== PINNED) fail(`the driver mend is written for mongodb ${PINNED}, but ${version} is installed: check Connection.writeCommand's wait for 'drain', then update scripts/patch-mongodb.mjs`);
for (const { from, to } of EDITS) {
  if (source.split(from).length !== 2) fail(`${FILE} does not hold the expected code exactly once; the mend cannot be applied`);
  source = source.replace(from, to);
}
writeFileSync(path, source);
