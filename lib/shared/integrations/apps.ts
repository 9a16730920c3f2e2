import type { Consent } from '@/lib/shared/conversions/event';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';

/** docs/PRODUCT.md §7: a tag-manager identifier is GTM- followed by uppercase letters and digits (an app may have none). */
const GTM_CONTAINER_ID = /^GTM-[A-Z0-9]+$/;
export const GTM_MESSAGE = 'A tag-manager identifier must match GTM- followed by uppercase letters and digits';
export const PAYLOAD_HOST_MESSAGE = 'Payload URLs must not contain a host';
export const PAYLOAD_CHARACTERS_MESSAGE = 'A thank-you page path has no spaces, quotes or < >';

export function isGtmContainerId(value: string): boolean {
  return GTM_CONTAINER_ID.test(value);
}

/**
 * docs/PRODUCT.md §7: payload URLs are paths only. Anything a browser would resolve to another host is
 * refused: a scheme (`https:`, `javascript:`), a protocol-relative `//host`, or a backslash that
 * browsers read as a slash.
 */
export function payloadUrlHasHost(value: string): boolean {
  const url = value.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return true;
  if (/^[\\/]{2}/.test(url.replace(/\\/g, '/'))) return true;
  return url.includes('\\');
}

/**
 * docs/PRODUCT.md §7: a payload URL is a path without `<`, `>`, quotes or whitespace. The snippet
 * carries it inside a `<script>` on the customer's own site, so nothing in it may look like markup.
 */
export function payloadUrlHasBadCharacters(value: string): boolean {
  return /[<>"'\s]/.test(value.trim());
}

/** Where one platform's conversions of an app go: a destination and its pixel / action / goal. */
export interface AppPlatformTarget {
  destinationId: string;
  accountId: string;
  targetId: string;
  targetName: string;
}

/** The identifiers the website snippet reads from forms: the customer may name the form field of each. */
export const CUSTOM_FIELD_KEYS = [
  'email',
  'phone',
  'firstName',
  'lastName',
  'city',
  'state',
  'postalCode',
  'countryCode',
  'dateOfBirth',
  'gender',
] as const;
export type CustomFieldKey = (typeof CUSTOM_FIELD_KEYS)[number];
/** The names (or ids) of the customer's own form fields, for the snippet; absent keys use the common names. */
export type CustomFields = Partial<Record<CustomFieldKey, string>>;

/**
 * What a source sets for its events (an app, a payment account, a warehouse conversion's source): the
 * country a phone written without one is read in (ISO 3166-1 alpha-2), and the consent of an event that
 * says nothing (a question left out is "not set").
 */
export interface SourceSettings {
  defaultCountry?: string;
  defaultConsent?: Consent;
}

/** What a user types about an app. */
export interface AppFields extends SourceSettings {
  name: string;
  websiteUrl: string;
  /** The site's Google Tag Manager container, or null: the snippet works without one (pasted into the pages). */
  gtmContainerId: string | null;
  payloadUrls: string[];
  customFields?: CustomFields;
}

export interface App extends AppFields {
  id: string;
  targets: Partial<Record<AdPlatform, AppPlatformTarget>>;
  /** Warehouse / analytics destinations that receive this app's conversions. */
  bigqueryDestinationId: string | null;
  mixpanelDestinationId: string | null;
  /** The custom-submission key: only its prefix is ever shown again after it is made. */
  submissionKey: { prefix: string; createdAt: string } | null;
  /** The website snippet's key: 'none' until the snippet is first shown, 'revoked' until a new one is made. */
  publishableKey: 'active' | 'revoked' | 'none';
  createdAt: string;
}

/** An app's fields as a form sends them: a default country or tag manager of null (or absent) means none. */
export type AppInput = Omit<AppFields, 'defaultCountry' | 'gtmContainerId'> & {
  defaultCountry?: string | null;
  gtmContainerId?: string | null;
};

/** A Stripe account whose payments become conversions. */
export interface Payment {
  id: string;
  name: string;
  provider: 'stripe';
  livemode: boolean;
  keyPrefix: string;
  connectedAt: string;
  /** The country a phone written without one is read in (Stripe's billing phones). */
  defaultCountry?: string;
}
