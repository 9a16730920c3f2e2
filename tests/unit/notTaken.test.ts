/** @jest-environment node */
import { connectorFor } from '@/lib/server/connectors/registry';
import { toConversionEvent } from '@/lib/server/delivery/normalize';
import { notSentWarnings } from '@/lib/server/services/ingestRouting';
import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import { EXAMPLE_EVENT, EXAMPLE_NO_USER_AGENT, EXAMPLE_NOT_SENT, EXAMPLE_NOW, NOT_TAKEN } from '@/lib/shared/schemas/submissionContract';
import { submittedEventSchema, type SubmittedEvent } from '@/lib/shared/schemas/submissions';

// The API reference's "Events a platform will not take" and its complete website event, run through each ad
// platform's own check: the one the delivery logs by and the 202's warnings are made of.

const now = new Date(EXAMPLE_NOW);
const queued = (submitted: SubmittedEvent) =>
  toConversionEvent(submittedEventSchema.parse(submitted), { source: 'app:example', receivedAt: now, sourceLabel: 'app' });
const refusal = (platform: AdPlatform, submitted: SubmittedEvent) => connectorFor(platform).deliver!.check(queued(submitted), now);

/** A conversion of the example app to `platform` that sends every identifier it is given. */
const conversionTo = (platform: AdPlatform, name: string): Conversion => ({
  id: EXAMPLE_NOT_SENT.conversion.id,
  name,
  source: { type: 'app', appId: 'example' },
  destination: { destinationId: 'destination', platform, accountId: 'account', targetId: 'target', targetName: 'Target' },
  mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'phone', 'name', 'externalId', 'clickIds', 'context'] },
  status: 'active',
  statusReason: null,
  parked: { held: 0, failed: 0 },
  lastDeliveryAt: null,
  createdAt: '2026-11-01T00:00:00Z',
});

test('the complete website event passes Meta’s and Google’s checks', () => {
  expect(refusal('meta_ads', EXAMPLE_EVENT)).toBeNull();
  expect(refusal('google_ads', EXAMPLE_EVENT)).toBeNull();
  expect(refusal('microsoft_ads', { ...EXAMPLE_EVENT, msclkid: 'b0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5' })).toBeNull();
});

test.each(NOT_TAKEN.map((row) => [row.platform, row.when, row.example] as const))(
  '%s will not take an event with %s',
  (platform, _when, example) => {
    expect(refusal(platform, example)).toEqual(expect.any(String));
  },
);

test('the answer the reference shows for a website event without userAgent is the one a Meta conversion gives', () => {
  const warnings = notSentWarnings([conversionTo('meta_ads', EXAMPLE_NOT_SENT.conversion.name)], queued(EXAMPLE_NO_USER_AGENT), now);
  expect(warnings).toEqual([EXAMPLE_NOT_SENT]);
});
