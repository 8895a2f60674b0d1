// The two pages convops serves: /floor (the wallboard, public) and /console (the manager's page,
// whose data calls carry an access key the person types in). Plain HTML, CSS and ES modules
// from web/, read once at start (a few kilobytes), served with ETags: pages revalidate on every
// load so a deploy shows at once, assets are cached for an hour. Only the files listed here are
// served, so no path a client sends can reach the disk.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

export const WEB_DIR = join(import.meta.dirname, '../../../web');
/** Under `dist/` after a build the folder is two levels further up; the start script runs from either. */
const candidates = [WEB_DIR, join(import.meta.dirname, '../../../../web')];

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
  readonly cache: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const PAGES = { '/floor': 'floor.html', '/console': 'console.html' } as const;
const ASSETS = ['common.css', 'common.js', 'floor.js', 'console.js', 'favicon.svg'] as const;

/** No inline script or style, nothing from elsewhere, not framed: the console holds a key. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function load(file: string, cache: string): Asset {
  const dir = candidates.find((d) => { try { readFileSync(join(d, file)); return true; } catch { return false; } });
  if (!dir) throw new Error(`web/${file} is missing: the pages cannot be served`);
  const body = readFileSync(join(dir, file));
  const ext = file.slice(file.lastIndexOf('.'));
  return { body, type: TYPES[ext] ?? 'application/octet-stream', etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`, cache };
}

function serve(asset: Asset, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  void reply.header('etag', asset.etag).header('cache-control', asset.cache).header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
  if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
  return reply.type(asset.type).send(asset.body);
}

export const pageRoutes: FastifyPluginAsync = async (app) => {
  for (const [path, file] of Object.entries(PAGES)) {
    const page = load(file, 'no-cache');
    app.get(path, {
      config: { access: 'public' },
      schema: { summary: path === '/floor' ? 'The floor wallboard page (live, public)' : 'The manager console page (asks for an access key)', hide: true },
    }, async (request, reply) => serve(page, request, reply));
  }
  const assets = new Map(ASSETS.map((f) => [f, load(f, 'public, max-age=3600')]));
  // Browsers ask for /favicon.ico whatever a page links; every current one takes the SVG.
  const icon = assets.get('favicon.svg') as Asset;
  app.get('/favicon.ico', { config: { access: 'public' }, schema: { summary: 'The pages\' icon', hide: true } }, async (request, reply) => serve(icon, request, reply));
  app.get('/assets/:name', {
    config: { access: 'public' },
    schema: { summary: 'Scripts and styles of the pages', hide: true, params: { type: 'object', properties: { name: { type: 'string', maxLength: 64 } }, required: ['name'] } },
  }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const asset = assets.get(name as (typeof ASSETS)[number]);
    if (!asset) throw new ApiError('NOT_FOUND', `name: no asset ${name}`);
    return serve(asset, request, reply);
  });
};
