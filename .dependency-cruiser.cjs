/**
 * The import graph has no circle, type-only imports included (docs/ARCHITECTURE.md, "Import rules").
 * ESLint's import/no-cycle skips `import type`; dependency-cruiser reads the TypeScript before it is
 * compiled (tsPreCompilationDeps), so a circle made of types alone is found too.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
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
    exclude: { path: '^(node_modules|tools|dist|\\.next|\\.bench|\\.stack|test-results|playwright-report)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
