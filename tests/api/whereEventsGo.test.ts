import conversionsRoute from '@/pages/api/orgs/[orgId]/conversions/index';
import conversionRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/index';
import routing from '@/pages/api/orgs/[orgId]/apps/[id]/routing';
import { routingConversionId } from '@/lib/server/repos/conversions';
import { alsoSendingInWords, conversionsOfApp } from '@/lib/shared/conversions/whereEventsGo';
import type { Conversion } from '@/lib/shared/conversions/conversion';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { connectDestination, ownerWithShopApp, SANDBOX_TARGETS } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

// Issue 37 §6: an app's routing and the conversions from it are one model — the list says which is the
// routing, so the app page, the conversion list and the conversion page tell the same story.
let s: Record<'list' | 'item' | 'routing', TestServer>;
let platforms: FakePlatforms;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ list: conversionsRoute, item: conversionRoute, routing });
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

test('an app routed to Meta and a conversion from it to Meta: both listed from the app, the routing marked, each naming the other', async () => {
  const { owner, orgId, app } = await ownerWithShopApp();
  const destinationId = await connectDestination(orgId, owner.uid, 'meta_ads');
  const routed = await call(s.routing, {
    method: 'PUT',
    query: { orgId, id: app.id },
    token: owner.token,
    body: { platform: 'meta_ads', destinationId, ...SANDBOX_TARGETS.meta_ads },
  });
  expect(routed.status).toBe(200);
  // The conversion sends to the other pixel: no twin of the routing, yet the same platform.
  const outlet = await connectDestination(orgId, owner.uid, 'meta_ads', '102');
  const created = await call(s.list, {
    method: 'POST',
    token: owner.token,
    query: { orgId },
    body: {
      name: 'Leads to Meta',
      source: { type: 'app', appId: app.id },
      destination: { destinationId: outlet, accountId: '102', targetId: '555000222' },
      mapping: { events: ['Lead'], value: { mode: 'event' }, identifiers: ['email'] },
    },
  });
  expect(created.status).toBe(200);
  const own = created.body.conversion as Conversion;

  const listed = await call(s.list, { token: owner.token, query: { orgId } });
  expect(listed.status).toBe(200);
  const conversions = listed.body.conversions as Conversion[];
  const theRouting = conversions.find((conversion) => conversion.id === routingConversionId(app.id, 'meta_ads'))!;
  expect(theRouting).toMatchObject({ routing: true, source: { type: 'app', appId: app.id }, destination: { platform: 'meta_ads' } });
  const ofApp = conversionsOfApp(app.id, conversions);
  expect(ofApp[0]!.id).toBe(theRouting.id);
  expect(ofApp.map((conversion) => conversion.id)).toEqual([theRouting.id, own.id]);
  expect(conversions.find((conversion) => conversion.id === own.id)!.routing).toBeUndefined();
  expect(alsoSendingInWords(own, conversions, 'Meta Ads')).toBe(
    `The app’s routing “${theRouting.name}” also sends this source’s events to Meta Ads: an event both take reaches it twice.`,
  );
  expect(alsoSendingInWords(theRouting, conversions, 'Meta Ads')).toMatch(/^“Leads to Meta” also sends/);
  // The conversion page reads the same flag.
  const detail = await call(s.item, { token: owner.token, query: { orgId, id: theRouting.id } });
  expect((detail.body.conversion as Conversion).routing).toBe(true);

  // Another organization sees none of it.
  const other = await ownerWithShopApp();
  const foreign = await call(s.list, { token: other.owner.token, query: { orgId: other.orgId } });
  expect((foreign.body.conversions as Conversion[]).some((conversion) => conversion.id === theRouting.id)).toBe(false);
  expect((await call(s.list, { token: other.owner.token, query: { orgId } })).status).toBe(404);
  expect((await call(s.item, { token: other.owner.token, query: { orgId, id: theRouting.id } })).status).toBe(404);
});
