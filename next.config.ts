import type { NextConfig } from 'next';

// Content-Security-Policy and HSTS are middleware.ts's: they depend on the page and on APP_URL at run time.
const securityHeaders = [
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()' },
];

const distDir = process.env.NEXT_DIST_DIR || '.next';

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm run build` (scripts/build.ts): a server that runs with `node` and the files it traces, nothing else.
  output: 'standalone',
  // The e2e build goes to its own folder so it never clobbers `next dev`.
  distDir,
  // Compiled in: middleware.ts reads the build's manifest from it (lib/server/http/pageScripts.ts).
  env: { BUILD_DIST_DIR: distDir },
  // `npm test` type-checks the whole project first (tsc --noEmit); the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [{ source: '/:path*', headers: securityHeaders }];
  },
};

export default nextConfig;
