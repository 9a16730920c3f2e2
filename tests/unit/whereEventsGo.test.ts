import type { Conversion } from '@/lib/shared/conversions/conversion';
import { alsoSendingInWords, alsoSendingToPlatform, conversionsOfApp } from '@/lib/shared/conversions/whereEventsGo';

const conversion = (id: string, changes: Partial<Conversion> & { appId?: string; platform?: Conversion['destination']['platform'] }) =>
  ({
    id,
    name: id,
    source: { type: 'app', appId: changes.appId ?? 'shop' },
    destination: { destinationId: 'd', platform: changes.platform ?? 'meta_ads', accountId: '101', targetId: 'p', targetName: 'Pixel' },
    mapping: { events: [], value: { mode: 'event' }, identifiers: ['email'] },
    status: 'active',
    statusReason: null,
    parked: { held: 0, failed: 0 },
    lastDeliveryAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...changes,
  }) as Conversion;

describe('where an app’s events go, one model', () => {
  const routing = conversion('Shop → Pixel', { routing: true });
  const leads = conversion('Leads to Meta', {});
  const google = conversion('Leads to Google', { platform: 'google_ads' });
  const otherApp = conversion('Other shop', { appId: 'other' });
  const paused = conversion('Old leads', { status: 'paused' });
  const all = [leads, google, otherApp, routing, paused];

  test('the conversions of an app: its routings first, then by name; another app’s are not', () => {
    expect(conversionsOfApp('shop', all).map((each) => each.id)).toEqual(['Shop → Pixel', 'Leads to Google', 'Leads to Meta', 'Old leads']);
  });

  test('a second sender of the same source to the same platform is named, a paused one or another platform is not', () => {
    expect(alsoSendingToPlatform(leads, all).map((each) => each.id)).toEqual(['Shop → Pixel']);
    expect(alsoSendingInWords(leads, all, 'Meta Ads')).toBe(
      'The app’s routing “Shop → Pixel” also sends this source’s events to Meta Ads: an event both take reaches it twice.',
    );
    expect(alsoSendingInWords(routing, all, 'Meta Ads')).toBe(
      '“Leads to Meta” also sends this source’s events to Meta Ads: an event both take reaches it twice.',
    );
    expect(alsoSendingInWords(google, all, 'Google Ads')).toBeNull();
    expect(alsoSendingInWords(otherApp, all, 'Meta Ads')).toBeNull();
  });
});
