import type { Identifier } from '@/lib/shared/conversions/identifiers';
import type { MatchKeyForms } from '@/lib/shared/conversions/matchKeyForms';

/**
 * The shape of a platform's catalogue record. Each record lives in its connector's folder
 * (lib/server/connectors/<platform>/platform.ts: the one file of a folder the browser may import, plain
 * data) and lib/shared/integrations/platforms.ts lists them.
 */

/** A source is an ad account ad data is read from; a destination receives ad data or conversions. */
export const INTEGRATION_KINDS = ['source', 'destination'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

export interface CatalogueEntry {
  label: string;
  /** What it may be: a source of ad data, a destination (of ad data or conversions). */
  kinds: readonly IntegrationKind[];
  /** An ad platform: ad accounts, conversion targets, reports; every per-platform fact the pages and workers use. */
  ad?: {
    /** What a conversion target is called (Pixel, Conversion action, Conversion goal). */
    targetLabel: string;
    /** Its page segment: /{orgId}/source/{id}/{segment}/configuration and /{orgId}/app/{id}/{segment}/configuration. */
    sourceSegment: string;
    /** Its short name in sentences ("Meta received 12 % fewer…"). */
    shortName: string;
    /** Days each run re-reads by default: how far back the platform restates recent days. */
    lookbackDays: number;
    /** How far back it keeps daily performance (a backfill cannot start earlier), and that in words. */
    history: { months: number; label: string };
    /** Hours after a day ends until its conversion figures are final (docs/PLATFORMS.md). */
    lagHours: number;
    /** `utm_source` of its ad-spend events in Mixpanel. */
    utmSource: string;
    /** It shows a test event under a code its own tool gives (Meta's Events Manager `test_event_code`). */
    testEventCode?: true;
    /** Its source login may also be a conversion destination: its consent asks the same scopes for both kinds. */
    reusableLogin?: true;
    /** It takes a person's address as one identifier (names, country and postal code together), or none of it. */
    addressAsOneIdentifier?: true;
    /**
     * The counted notes in its own words (docs/PLATFORMS.md): why a recent day is not final (`{when}`); whose
     * events each figure it reports covers, said after its count (`received`: absent when it reports none;
     * `attributed`; blanks `{events}`, the event names read, and `{target}`); and what drives its attribution.
     */
    countedNotes: { notFinal: string; received?: string; attributed: string; attribution: string };
    /** Which fields of an event carry each match key in the form its conversion endpoint takes (docs/MATCH_KEYS.md). */
    matchKeys: MatchKeyForms;
    /** What it also matches by beyond the keys counted (Meta: date of birth, gender, external id). */
    alsoTakes?: readonly Identifier[];
  };
  /** What receives conversions when it is not an ad platform (an app's events imported into Mixpanel, appended to a BigQuery table). */
  conversionTarget?: string;
  /**
   * A destination of ad performance (a connection writes there): into a table of a picked project and dataset
   * (BigQuery), or into the project its login names (Mixpanel).
   */
  adData?: { writesTo: 'table' | 'project' };
  /** What one of its picked accounts is called, when not an ad account (BigQuery's projects); null: it picks none (Mixpanel). */
  accountNoun?: { one: string; many: string } | null;
  /**
   * Its rows or events can be read as a conversion source, with the login of one of its destinations
   * (its connector's `source`: describe, preview, read from a cursor).
   */
  conversionSource?: true;
  /**
   * Connected through an OAuth consent: whose (a provider's reconnect returns to /{provider}Reauth),
   * started at /{orgId}/{startRoute} (in the page layout `startLayout`), returning to `consentPath`.
   */
  oauth?: { provider: string; startRoute: string; startLayout: 'empty' | 'default'; consentPath: Record<IntegrationKind, string> };
}

export const AD_CONSENT_PATHS: Record<IntegrationKind, string> = { source: '/addSource', destination: '/addConversionDestination' };
