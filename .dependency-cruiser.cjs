/**
 * The import graph has no circle, type-only imports included (docs/architecture/overview.md, "Layers the import checker holds").
 * ESLint's import/no-cycle skips `import type`; dependency-cruiser reads the TypeScript before it is
 * compiled (tsPreCompilationDeps), so a circle made of types alone is found too.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'firestore-only-in-repos',
      severity: 'error',
      comment:
        'Firestore is read and written only under lib/server/repos/ (docs/architecture/overview.md, "Layers"): a service asks a repo. ' +
        'firebaseAdmin.ts initialises the SDK, writeTrace.ts and costTrace.ts instrument it for the bench; scripts, tests and the sandbox are not the product.',
      from: {
        path: '^(lib|pages|workers|components|store|layouts|middleware\\.ts)',
        pathNot: '^lib/server/(repos/|firebaseAdmin\\.ts$|writeTrace\\.ts$|costTrace\\.ts$)',
      },
      to: { path: '^node_modules/(@google-cloud/firestore|firebase-admin/lib/firestore)' },
    },
    {
      name: 'admin-sdk-only-in-repos-and-auth',
      severity: 'error',
      comment:
        'firebaseAdmin.ts hands out the Firestore client as well as Auth: besides the repos, only the modules that verify callers ' +
        '(http/authenticate.ts, http/session.ts, middleware.ts) and the health check (its Auth probe) may import it.',
      from: {
        path: '^(lib|pages|workers|components|store|layouts|middleware\\.ts)',
        pathNot:
          '^(lib/server/repos/|lib/server/http/(authenticate|session)\\.ts$|lib/server/health\\.ts$|middleware\\.ts$|lib/server/firebaseAdmin\\.ts$)',
      },
      to: { path: '^lib/server/firebaseAdmin\\.ts$' },
    },
    {
      name: 'repos-are-the-bottom',
      severity: 'error',
      comment:
        'A repo reads and writes documents and nothing else: it never calls a service, raises an alert, calls a vendor or a platform, ' +
        'or runs a pipeline. Whatever follows a write (an alert, an email, a Stripe call) belongs to the service that made it.',
      from: { path: '^lib/server/repos/' },
      to: {
        path: '^lib/server/(services|alerts|vendors|connectors|delivery|counted|sync|queue|oauth|analytics\\.ts|intercom\\.ts|invitationEmail\\.ts|credentials\\.ts)',
        pathNot: '^lib/server/connectors/[^/]+/platform\\.ts$',
      },
    },
    {
      name: 'browser-takes-only-platform-records',
      severity: 'error',
      comment:
        'What the browser bundles (pages outside pages/api, components, store, layouts, lib/shared, lib/client) reaches into lib/server/ ' +
        "only for a connector folder's platform.ts: its catalogue record, plain data (docs/architecture/recipes.md).",
      from: { path: '^(pages/(?!api/)|components/|store/|layouts/|lib/shared/|lib/client/)' },
      to: { path: '^lib/server/', pathNot: '^lib/server/connectors/[^/]+/platform\\.ts$' },
    },
    {
      name: 'platform-records-are-plain-data',
      severity: 'error',
      comment: "A connector folder's platform.ts is shared with the browser: it imports nothing but lib/shared.",
      from: { path: '^lib/server/connectors/[^/]+/platform\\.ts$' },
      to: { pathNot: '^lib/shared/' },
    },
    {
      name: 'api-handlers-call-services',
      severity: 'error',
      comment:
        'A pages/api handler parses, checks access and calls a service (docs/architecture/recipes.md, "Add an API route"): ' +
        'what follows a write (an email, analytics, a platform, Stripe, the pipelines) belongs to the service, so no handler can forget it. ' +
        'Only the analytics endpoints themselves (customerio/*, identifyUserWithOrganization) call analytics.',
      from: { path: '^pages/api/', pathNot: '^pages/api/(customerio/|identifyUserWithOrganization\\.ts$)' },
      to: {
        path: '^lib/server/(vendors|connectors|credentials\\.ts|invitationEmail\\.ts|analytics\\.ts|sync|counted|queue|delivery/(?!snippet\\.ts$)|alerts/(?!settings\\.ts$))',
      },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module that another imports must not import it back, not even its types: move the shared part into its own module.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(tools|dist|\\.next|\\.bench|\\.stack|test-results|playwright-report)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
