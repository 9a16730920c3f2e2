/** @jest-environment node */
import { connectorFor } from '@/lib/server/connectors/registry';
import { mapEvent } from '@/lib/server/delivery/mapping';
import { sha256Hex } from '@/lib/server/sha256';
import { IDENTIFIERS, type ConversionMapping, type Identifier } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { unmetMappingNeeds } from '@/lib/shared/conversions/mappingNeeds';
import { AD_PLATFORMS, PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';

// Each ad connector's declared mapping needs say exactly which mappings let its own `check` pass an
// event that has every identifier: a save is refused if and only if nothing could ever be sent.
const now = new Date();
const hash = (value: string) => sha256Hex(value);
const complete: ConversionEvent = {
  id: 'lead-1',
  name: 'Lead',
  time: Math.floor(now.getTime() / 1000) - 60,
  value: 10,
  currency: 'USD',
  user: {
    email: hash('jane@example.com'),
    phone: hash('16505551212'),
    phoneE164: hash('+16505551212'),
    firstName: hash('jane'),
    lastName: hash('doe'),
    externalId: hash('customer-1'),
    city: hash('newyork'),
    state: hash('ny'),
    postalCode: hash('10001'),
    countryCode: hash('us'),
    dateOfBirth: hash('19900101'),
    gender: hash('f'),
  },
  address: { regionCode: 'US', postalCode: '10001' },
  consent: { adUserData: 'granted', adPersonalization: 'granted' },
  clickIds: {
    gclid: 'gclid-1',
    fbc: 'fb.1.1700000000000.abc',
    fbp: 'fb.1.1700000000000.1',
    msclkid: 'a'.repeat(32),
    li_fat_id: 'li-fat-1',
    ttclid: 'E.C.P.1',
    ttp: 'ttp-1',
  },
  context: { actionSource: 'system_generated', ip: '203.0.113.7', userAgent: 'Mozilla/5.0' },
};

const subsets = (items: readonly Identifier[]): Identifier[][] =>
  items.reduce<Identifier[][]>((all, item) => [...all, ...all.map((subset) => [...subset, item])], [[]]);

test.each(AD_PLATFORMS)('%s: the declared needs match what its check lets through, for every choice of identifiers', (platform) => {
  const delivery = connectorFor(platform).deliver!;
  expect(delivery.needs).toBeDefined();
  for (const identifiers of subsets(IDENTIFIERS)) {
    const mapping: ConversionMapping = { events: [], value: { mode: 'event' }, identifiers };
    const refused = Object.keys(unmetMappingNeeds(delivery.needs, PLATFORM_LABELS[platform], mapping, { type: 'app', appId: 'a' }));
    const sendable = delivery.check(mapEvent(mapping, complete), now) === null;
    expect({ identifiers, refused: refused.length > 0 }).toEqual({ identifiers, refused: !sendable });
  }
});

describe('a warehouse source', () => {
  const needs = connectorFor('meta_ads').deliver!.needs;
  const source = (columns: Record<string, string>) => ({
    type: 'mixpanel' as const,
    destinationId: 'mixpanel-1',
    events: ['Lead'],
    columns: { eventTime: 'time', ...columns },
    eventName: 'Lead',
    schedule: { every: 'hourly' as const, at: '06:00', timeZone: 'UTC' },
  });
  const unmet = (identifiers: Identifier[], columns: Record<string, string>) =>
    unmetMappingNeeds(needs, 'Meta Ads', { identifiers }, source(columns));

  test('needs a mapped column for an identifier it sends', () => {
    expect(unmet(['email'], { email: '$email' })).toEqual({});
    expect(Object.keys(unmet(['email'], { phone: '$phone' }))).toEqual(['source.columns.email']);
    expect(unmet(['email', 'phone'], { phone: '$phone' })).toEqual({});
  });

  test('has no IP address and user agent to send', () => {
    expect(Object.keys(unmet(['context'], { email: '$email' }))).toEqual(['mapping.identifiers']);
  });

  test('Google: a name with an address needs the name’s columns (the country may be the source’s default)', () => {
    const google = connectorFor('google_ads').deliver!.needs;
    const nameAndAddress = (columns: Record<string, string>) =>
      unmetMappingNeeds(google, 'Google Ads', { identifiers: ['name', 'address'] }, source(columns));
    expect(Object.keys(nameAndAddress({ postalCode: 'zip' }))).toEqual(['source.columns.firstName']);
    expect(nameAndAddress({ firstName: 'first', lastName: 'last' })).toEqual({});
  });
});
