// A real browser for the page tests: Debian's Chromium, driven by playwright-core (whose own
// browser download needs the internet these machines do not have). Installed with apt when it
// is missing, so a fresh machine needs nothing by hand; CHROMIUM_PATH points at another build.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium'];

function found(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist`);
    return configured;
  }
  return CANDIDATES.find((p) => existsSync(p));
}

/** The Chromium binary, installing Debian's package first when there is none. */
export function chromiumPath(): string {
  const present = found();
  if (present) return present;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const run = (args: string[]): void => {
    execFileSync(root ? args[0] as string : 'sudo', root ? args.slice(1) : ['-n', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 600_000,
    });
  };
  try {
    run(['apt-get', 'update', '-qq']);
    run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium']);
  } catch (err) {
    throw new Error(`Chromium is missing and could not be installed with apt-get (${err instanceof Error ? err.message : String(err)}); install Debian's chromium package or set CHROMIUM_PATH`, { cause: err });
  }
  const installed = found();
  if (!installed) throw new Error('apt-get installed chromium, but no binary was found at the usual paths; set CHROMIUM_PATH');
  return installed;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    // Containers run as root without the namespaces Chromium's sandbox needs.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}
