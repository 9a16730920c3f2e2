/**
 * Runs in the browser before any page code. Zod probes `new Function` once to decide whether to compile its
 * parsers; our Content-Security-Policy has no 'unsafe-eval', so the probe is refused and reported as a violation
 * (docs/architecture/overview.md, "Security headers"). `jitless` skips the probe; the forms' small schemas lose nothing.
 * Set on the object every copy of zod shares (`z.config()` writes there too) rather than through `z.config`,
 * whose import would put zod's core in every page's first load; tests/e2e/console.spec.ts sees a violation if
 * zod ever stops reading it.
 */
const zodShared = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
(zodShared.__zod_globalConfig ??= {}).jitless = true;

export {};
