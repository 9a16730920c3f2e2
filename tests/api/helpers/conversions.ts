import type { ConversionMapping } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import { connectorFor } from '@/lib/server/connectors/registry';
import { sha256 } from '@/lib/server/conversions/normalize';
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
};

const REDIRECT_URI = 'http://localhost:3999/addConversionDestination';

export async function connectDestination(orgId: string, uid: string, platform: AdPlatform): Promise<string> {
  const oauth = connectorFor(platform).auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('test-state', REDIRECT_URI));
  const connection = await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI);
  const destination = await createIntegration(orgId, { kind: 'destination', platform, connection, uid });
  await updateIntegration(orgId, 'destination', destination.id, { accountIds: [SANDBOX_TARGETS[platform].accountId] });
  return destination.id;
}

export interface ConversionSetup {
  owner: TestUser;
  orgId: string;
  appId: string;
  destinationId: string;
  conversionId: string;
}

export async function setUpConversion(
  platform: AdPlatform = 'meta_ads',
  mapping: Partial<ConversionMapping> = {},
): Promise<ConversionSetup> {
  const owner = await createTestUser();
  const orgId = await createTestOrganization([[owner, 'owner']]);
  const app = await createApp(orgId, owner.uid, {
    name: 'Shop',
    websiteUrl: 'https://shop.example',
    gtmContainerId: 'GTM-SHOP1',
    payloadUrls: ['/thanks'],
  });
  const destinationId = await connectDestination(orgId, owner.uid, platform);
  const conversion = await createConversion(orgId, 'growth', owner.uid, {
    name: 'Leads',
    source: { type: 'app', appId: app.id },
    destination: { destinationId, ...SANDBOX_TARGETS[platform] },
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
    user: { email: sha256(`person${index}@example.com`) },
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
