import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getTurbopackChunkGroupBootstrap } from 'next/dist/server/get-page-files';
import { htmlEscapeJsonString } from 'next/dist/shared/lib/htmlescape';

/**
 * The hashes of the one inline script a page runs: a Turbopack production build writes, in each page's HTML, a
 * `<script>` that queues the chunks of `/_app` and of the page (next/document's bootstrap). Its text follows from
 * the build manifest, so the hash is computed here with Next's own functions rather than by a nonce, which would
 * need every (statically optimised) page rendered per request. `next dev` and webpack builds write none.
 */

interface BootstrapManifest {
  pagesChunkGroupBootstrapParams?: Record<string, object>;
  chunkLoadingGlobal?: string;
}

/** The pages an error renders instead of the one asked for. */
const ERROR_PAGES = ['/404', '/500', '/_error'];

/** `/[orgId]/source/[id]` → a pattern over a request's path (`[...x]` and `[[...x]]` for completeness). */
function pagePattern(page: string): RegExp {
  const source = page
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      if (/^\[\[\.\.\..+\]\]$/.test(segment)) return '(?:/.*)?';
      if (/^\[\.\.\..+\]$/.test(segment)) return '/.+';
      if (/^\[.+\]$/.test(segment)) return '/[^/]+';
      return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    })
    .join('');
  return new RegExp(`^${source || '/'}$`);
}

export class PageScripts {
  private readonly pages: Array<{ page: string; pattern: RegExp }>;
  private readonly hashes = new Map<string, string | null>();

  constructor(private readonly manifest: BootstrapManifest) {
    this.pages = Object.keys(manifest.pagesChunkGroupBootstrapParams ?? {})
      .filter((page) => page !== '/_app')
      .map((page) => ({ page, pattern: pagePattern(page) }));
  }

  /** `'sha256-…'` of the bootstrap script of `page` exactly as next/document writes it, or null if it writes none. */
  hashOf(page: string): string | null {
    if (!this.hashes.has(page)) {
      const { pagesChunkGroupBootstrapParams: params, chunkLoadingGlobal } = this.manifest;
      const script =
        params && chunkLoadingGlobal ? getTurbopackChunkGroupBootstrap(params, chunkLoadingGlobal, ['/_app', page]) : undefined;
      this.hashes.set(page, script ? `'sha256-${createHash('sha256').update(htmlEscapeJsonString(script)).digest('base64')}'` : null);
    }
    return this.hashes.get(page)!;
  }

  /** The hashes a response for `pathname` may need: every page whose route matches it, and the error pages. */
  hashesFor(pathname: string): string[] {
    const pages = this.pages.filter(({ page, pattern }) => ERROR_PAGES.includes(page) || pattern.test(pathname));
    return [...new Set(pages.map(({ page }) => this.hashOf(page)).filter((hash): hash is string => hash !== null))];
  }
}

let loaded: PageScripts | undefined;

/**
 * The running build's page scripts, read once from `<distDir>/build-manifest.json` (the standalone server and
 * `next start` run from the folder that holds the dist folder). Without one (`next dev`), none.
 */
export function pageScripts(distDir: string = process.env.BUILD_DIST_DIR || '.next'): PageScripts {
  if (!loaded) {
    let manifest: BootstrapManifest = {};
    try {
      manifest = JSON.parse(readFileSync(path.resolve(process.cwd(), distDir, 'build-manifest.json'), 'utf8')) as BootstrapManifest;
    } catch (error) {
      // A production server without its manifest would block every page's scripts: say so once.
      if (process.env.NODE_ENV === 'production') console.error('[securityHeaders] cannot read the build manifest', error);
    }
    loaded = new PageScripts(manifest);
  }
  return loaded;
}
