import type { ConversionMapping } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { AppInput } from '@/lib/shared/integrations/apps';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import { connectorFor } from '@/lib/server/connectors/registry';
import { sha256Hex } from '@/lib/server/sha256';
import { publishConversions } from '@/lib/server/queue/pubsub';
import { createApp } from '@/lib/server/repos/apps';
import { createConversion } from '@/lib/server/services/conversions';
import { createIntegration, updateIntegration } from '@/lib/server/services/integrations';
import { consentTo } from '@/sandbox/platforms';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';

/**
 * An organization with an app and a conversion from it to a sandbox target, made through the same
 * services the API uses (consent on the sandbox included). Needs platformsEnv(...) in process.env.
 */

export const SANDBOX_TARGETS: Record<AdPlatform, { accountId: string; targetId: string }> = {
  meta_ads: { accountId: '101', targetId: '555000111' },
  google_ads: { accountId: '5556667778', targetId: '9001' },
  microsoft_ads: { accountId: '301', targetId: '8001' },
  linkedin_ads: { accountId: '510001', targetId: '17001' },
  tiktok_ads: { accountId: '7100000000000000001', targetId: 'CSBXSHOES0PIXEL00001' },
};

const REDIRECT_URI = 'http://localhost:3999/addConversionDestination';

export async function connectDestination(
  orgId: string,
  uid: string,
  platform: AdPlatform,
  accountId = SANDBOX_TARGETS[platform].accountId,
): Promise<string> {
  const oauth = connectorFor(platform).auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('test-state', REDIRECT_URI));
  const connection = await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI);
  const destination = await createIntegration(orgId, { kind: 'destination', platform, connection, uid });
  await updateIntegration(orgId, 'destination', destination.id, { accountIds: [accountId] });
  return destination.id;
}

export interface ConversionSetup {
  owner: TestUser;
  orgId: string;
  appId: string;
  destinationId: string;
  conversionId: string;
}

/** A shop's app (no payload URLs unless `fields` gives them), made through the repo the API uses. */
export const createShopApp = (orgId: string, uid: string, fields: Partial<AppInput> = {}) =>
  createApp(orgId, uid, { name: 'Shop', websiteUrl: 'https://shop.example', gtmContainerId: 'GTM-SHOP1', payloadUrls: [], ...fields });

/** A new owner of a new organization that has one shop app. */
export async function ownerWithShopApp(fields: Partial<AppInput> = {}) {
  const owner = await createTestUser();
  const orgId = await createTestOrganization([[owner, 'owner']]);
  const app = await createShopApp(orgId, owner.uid, fields);
  return { owner, orgId, app };
}

/** `target`: another sandbox account and target of the platform than SANDBOX_TARGETS' (an account in another time zone). */
export async function setUpConversion(
  platform: AdPlatform = 'meta_ads',
  mapping: Partial<ConversionMapping> = {},
  target: { accountId: string; targetId: string } = SANDBOX_TARGETS[platform],
): Promise<ConversionSetup> {
  const { owner, orgId, app } = await ownerWithShopApp({ payloadUrls: ['/thanks'] });
  const destinationId = await connectDestination(orgId, owner.uid, platform, target.accountId);
  const conversion = await createConversion(orgId, 'growth', owner.uid, {
    name: 'Leads',
    source: { type: 'app', appId: app.id },
    destination: { destinationId, ...target },
    mapping: {
      events: [],
      value: { mode: 'event' },
      identifiers: ['email', 'phone', 'name', 'externalId', 'clickIds', 'context'],
      ...mapping,
    },
  });
  return { owner, orgId, appId: app.id, destinationId, conversionId: conversion.id };
}

/** `count` Lead events of distinct people, ids `{prefix}-{index}`, a minute old; `extra` adds per event. */
export function leadEvents(count: number, prefix: string, extra?: (index: number) => Partial<ConversionEvent>): ConversionEvent[] {
  const now = Math.floor(Date.now() / 1000) - 60;
  return Array.from({ length: count }, (_, index) => ({
    id: `${prefix}-${index}`,
    name: 'Lead',
    time: now,
    value: 10,
    currency: 'USD',
    user: { email: sha256Hex(`person${index}@example.com`) },
    clickIds: { fbp: `fb.1.1700000000000.${index}` },
    context: { actionSource: 'website', userAgent: 'Mozilla/5.0', ip: '203.0.113.5', pageUrl: 'https://shop.example/thanks' },
    ...extra?.(index),
  }));
}

/** Publishes events as the app's submissions would, 2,000 a message. */
export async function publishFromApp(setup: Pick<ConversionSetup, 'orgId' | 'appId'>, list: ConversionEvent[]): Promise<void> {
  for (let start = 0; start < list.length; start += 2000) {
    await publishConversions(list.slice(start, start + 2000), { org: setup.orgId, source: `app:${setup.appId}` });
  }
}

/**
 * A BigQuery conversion source reading a table of the sandbox hourly through the warehouse `destinationId`: its
 * leads (`acme-warehouse.crm.qualified_leads`, 40 over the last 10 days) unless `fields` names another table;
 * `fields` adds the columns and overrides the rest.
 */
export const bigqueryTableSource = (destinationId: string, fields: Record<string, unknown> = {}) => ({
  type: 'bigquery',
  destinationId,
  projectId: 'acme-warehouse',
  mode: 'table',
  table: 'acme-warehouse.crm.qualified_leads',
  cursorColumn: 'updated_at',
  schedule: { every: 'hourly' },
  ...fields,
});
