// Provisions a real Apache Kafka broker (KRaft, single node) and a Mongo-wire server
// (mongo-java-server) on free loopback ports, for machines without Docker.
// Jars come from Maven Central through mvn, once per pom.xml into the user's cache folder
// (~/.cache/convops-test-jars, or TEST_JAR_CACHE), which fresh clones on the machine share.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, writeFileSync, rmSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

export interface RunningServer {
  readonly url: string;
  /** The server process now (benchmarks read its CPU time); a restarted server has a new one. */
  readonly pid?: number | undefined;
  stop(): Promise<void>;
}

/** A server that fault tests can take down and bring back on the same address with its data. */
export interface RestartableServer extends RunningServer {
  halt(): Promise<void>;
  resume(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/**
 * The folder holding the jars of a Maven profile (kafka | mongo), fetched once per pom.xml and
 * machine (a JVM start and a resolve each, about 25 s on a 2-core machine). Async, so the rest
 * of the set-up goes on meanwhile.
 */
export function ensureJars(profile: 'kafka' | 'mongo'): Promise<string> {
  let pending = jarsFetched.get(profile);
  if (!pending) {
    // One Maven at a time: two resolving into an empty ~/.m2 at once may write the same file.
    pending = lastFetch.catch(() => undefined).then(() => fetchJars(profile));
    lastFetch = pending;
    jarsFetched.set(profile, pending);
    pending.catch(() => jarsFetched.delete(profile));
  }
  return pending;
}

const jarsFetched = new Map<string, Promise<string>>();
let lastFetch: Promise<unknown> = Promise.resolve();

async function fetchJars(profile: 'kafka' | 'mongo'): Promise<string> {
  const pomHash = createHash('sha256').update(readFileSync(join(here, 'pom.xml'))).digest('hex').slice(0, 16);
  const cache = process.env.TEST_JAR_CACHE ?? join(homedir(), '.cache', 'convops-test-jars');
  const lib = join(cache, `${profile}-${pomHash}`);
  if (existsSync(lib)) return lib;
  // Fetched beside and renamed into place, so a run cut short or another clone fetching at the
  // same time never leaves a folder that looks complete and is not.
  mkdirSync(cache, { recursive: true });
  const fetching = mkdtempSync(join(cache, `.${profile}-`));
  process.stderr.write(`[test-servers] fetching ${profile} jars from Maven Central into ${lib}\n`);
  try {
    await run('mvn', ['-B', '-q', '-f', join(here, 'pom.xml'), `-P${profile}`, 'dependency:copy-dependencies',
      '-DincludeScope=runtime', `-DoutputDirectory=${fetching}`]);
    if (readdirSync(fetching).filter((f) => f.endsWith('.jar')).length === 0) throw new Error(`mvn fetched no jars for ${profile}`);
    try {
      renameSync(fetching, lib);
    } catch (err) {
      if (!existsSync(lib)) throw err;
    }
  } finally {
    rmSync(fetching, { recursive: true, force: true });
  }
  return lib;
}

/** Runs a command to its end without holding the event loop; its errors go to stderr. */
function run(command: string, args: string[], stdout: 'inherit' | 'ignore' = 'inherit'): Promise<void> {
  return new Promise((res, rej) => {
    const child = spawn(command, args, { stdio: ['ignore', stdout, 'inherit'] });
    child.on('error', rej);
    child.on('exit', (code, signal) => (code === 0 ? res() : rej(new Error(`${command} ${args.slice(0, 6).join(' ')} ended with ${code ?? signal}`))));
  });
}

function startJava(args: string[], logName: string, workDir: string): ChildProcess {
  const child = spawn('java', args, { cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const tail: string[] = [];
  const keep = (chunk: Buffer): void => {
    tail.push(chunk.toString());
    if (tail.length > 50) tail.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code, signal) => {
    if (code !== 0 && code !== 143 && code !== null && signal === null) {
      process.stderr.write(`[test-servers] ${logName} exited with ${code}:\n${tail.join('')}\n`);
    }
  });
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  try {
    process.kill(-(child.pid ?? 0), 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try { process.kill(-(child.pid ?? 0), 'SIGKILL'); } catch { /* already gone */ }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

async function waitFor(what: string, child: ChildProcess, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited early with code ${child.exitCode}`);
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms`);
}

/** Launches a server; halt and resume stop and relaunch it on the same address and data; stop also removes `dir`. */
async function restartable(url: string, launch: () => Promise<ChildProcess>, dir: string | undefined): Promise<RestartableServer> {
  let child = await launch();
  return {
    url,
    get pid() { return child.pid; },
    async halt() { await stopChild(child); },
    async resume() { child = await launch(); },
    async stop() {
      await stopChild(child);
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Where a server listens and keeps its data when asked (a trial: scripts/trial-servers.ts); a free port and a temporary folder otherwise. */
export interface ServerPlace {
  readonly port?: number;
  /** Kept on stop, and used again by the next start on it. */
  readonly dir?: string;
}

export async function startKafka(place: ServerPlace = {}): Promise<RestartableServer> {
  const lib = await ensureJars('kafka');
  const port = place.port ?? await freePort();
  const controllerPort = await freePort();
  const dir = place.dir ?? mkdtempSync(join(tmpdir(), 'convops-kafka-'));
  mkdirSync(dir, { recursive: true });
  const props = join(dir, 'server.properties');
  writeFileSync(props, [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${join(dir, 'logs')}`,
    'num.partitions=1',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.num.partitions=1',
    'transaction.state.log.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=false',
    '',
  ].join('\n'));
  // G1 with a fixed heap and a 20 ms pause goal, like Kafka's own start script: with the serial
  // collector the broker's pauses stalled produce requests under the benchmark's load (issue
  // 33, docs/benchmarks.md). C1 only: the broker starts in seconds, and its share of the
  // benchmark's CPU is small either way.
  const jvm = ['-Xms512m', '-Xmx512m', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:TieredStopAtLevel=1',
    `-Dlog4j.configuration=file:${join(here, 'log4j.properties')}`, '-cp', `${lib}/*`];
  // A kept folder is formatted once: its topics and offsets stay.
  await run('java', [...jvm, 'kafka.tools.StorageTool', 'format', '-t', 'convopsTestCluster00000', '-c', props, '--ignore-formatted'], 'ignore');
  const url = `127.0.0.1:${port}`;
  const kafka = new Kafka({ clientId: 'readiness', brokers: [url], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const launch = async (): Promise<ChildProcess> => {
    const child = startJava([...jvm, 'kafka.Kafka', props], 'kafka', dir);
    await waitFor('kafka', child, 90_000, async () => {
      const admin = kafka.admin();
      try {
        await admin.connect();
        const meta = await admin.describeCluster();
        return meta.brokers.length > 0 && meta.controller !== null;
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    });
    return child;
  };
  return restartable(url, launch, place.dir === undefined ? dir : undefined);
}

/**
 * `heapMb`: the benchmarks hold a million documents; tests need far less. In memory by default;
 * `persistent` keeps the data in an H2 file, so the server can be halted and resumed.
 * `port`: a server on an address a service was already told about (start-up waits for it).
 */
export async function startMongo(heapMb = 768, persistent = false, chosenPort?: number, keptDir?: string): Promise<RestartableServer> {
  const lib = await ensureJars('mongo');
  const port = chosenPort ?? await freePort();
  if (keptDir !== undefined) mkdirSync(keptDir, { recursive: true });
  const dir = keptDir ?? (persistent ? mkdtempSync(join(tmpdir(), 'convops-mongo-')) : undefined);
  const url = `mongodb://127.0.0.1:${port}`;
  const launch = async (): Promise<ChildProcess> => {
    // The whole database lives on the heap, so it only grows: with the serial collector its old
    // generation filled and full collections stopped the server for up to 0.4 s at 1,000
    // webhooks/s (45 pauses, 2.5 s in all, over the benchmark). G1 with the heap fixed at its
    // size (no resizing) and a 20 ms pause goal: 64 pauses, 1.6 s in all, the longest 64 ms
    // (issue 33, docs/benchmarks.md).
    const child = startJava([`-Xms${heapMb}m`, `-Xmx${heapMb}m`, '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', `${lib}/*`,
      join(here, 'MongoLauncher.java'), '127.0.0.1', String(port), ...(dir ? [join(dir, 'data.mv')] : [])], 'mongo-java-server', root);
    await waitFor('mongo-java-server', child, 60_000, async () => {
      const client = new MongoClient(url, { serverSelectionTimeoutMS: 500, directConnection: true });
      try {
        await client.connect();
        await client.db('admin').command({ ping: 1 });
        return true;
      } finally {
        await client.close().catch(() => undefined);
      }
    });
    return child;
  };
  return restartable(url, launch, keptDir === undefined ? dir : undefined);
}
