import type { MixpanelResidency } from '@/lib/shared/integrations/platforms';
import { link, type Variable } from '@/lib/server/envVariable';

/** Mixpanel's app API host per data residency. */
export const mixpanelConfig = () => ({
  appApiUrl: {
    US: process.env.MIXPANEL_API_URL_US || 'https://mixpanel.com',
    EU: process.env.MIXPANEL_API_URL_EU || 'https://eu.mixpanel.com',
    IN: process.env.MIXPANEL_API_URL_IN || 'https://in.mixpanel.com',
  },
});

/** Mixpanel's own app hosts and the ingestion host of each (docs/PLATFORMS.md, "Mixpanel"). */
const INGESTION_HOST: Record<string, string> = {
  'https://mixpanel.com': 'https://api.mixpanel.com',
  'https://eu.mixpanel.com': 'https://api-eu.mixpanel.com',
  'https://in.mixpanel.com': 'https://api-in.mixpanel.com',
};

/**
 * The ingestion host (`/import`) of a residency. Mixpanel serves it apart from the app API
 * (api.mixpanel.com, not mixpanel.com); any other configured host (the sandbox, a proxy) serves
 * both, so one variable per residency points everything of Mixpanel at it.
 */
export function mixpanelIngestionUrl(residency: MixpanelResidency): string {
  const appApiUrl = mixpanelConfig().appApiUrl[residency].replace(/\/$/, '');
  return INGESTION_HOST[appApiUrl] ?? appApiUrl;
}

/** Mixpanel's own app hosts and the raw-data export host of each (data.mixpanel.com, not mixpanel.com). */
const EXPORT_HOST: Record<string, string> = {
  'https://mixpanel.com': 'https://data.mixpanel.com',
  'https://eu.mixpanel.com': 'https://data-eu.mixpanel.com',
  'https://in.mixpanel.com': 'https://data-in.mixpanel.com',
};

/**
 * The Export API host (`/api/2.0/export`) of a residency. Like ingestion, Mixpanel serves it apart
 * from the app API; any other configured host (the sandbox, a proxy) serves it too.
 */
export function mixpanelExportUrl(residency: MixpanelResidency): string {
  const appApiUrl = mixpanelConfig().appApiUrl[residency].replace(/\/$/, '');
  return EXPORT_HOST[appApiUrl] ?? appApiUrl;
}

/** Its configuration variables (lib/server/env.ts lists every folder's; .env.example documents them): where each of Mixpanel's data residencies lives. */
export const MIXPANEL_VARIABLES = {
  MIXPANEL_API_URL_US: link,
  MIXPANEL_API_URL_EU: link,
  MIXPANEL_API_URL_IN: link,
} as const satisfies Record<string, Variable>;
