import type { CatalogueEntry } from '@/lib/shared/integrations/catalogueEntry';

/** Mixpanel: ad performance imported as events, conversions imported into a project, and events read as a conversion source. Its catalogue record: plain data, shared with the browser. */
export const mixpanelRecord = {
  label: 'Mixpanel',
  kinds: ['destination'],
  conversionTarget: 'Project',
  conversionSource: true,
  adData: { writesTo: 'project' },
  accountNoun: null,
} as const satisfies CatalogueEntry;
