import type { ConversionMapping } from '@/lib/shared/conversions/conversion';
import { createApp } from '@/lib/server/repos/apps';
import { createConversion } from '@/lib/server/repos/conversions';
import { DEMO, DEMO_META_PIXEL } from '@/scripts/lib/demo';

/**
 * A new app of the demo organization (the seeded login) and a conversion from it to the demo's Meta pixel:
 * the demo's own "Demo store" already sends to that pixel, and a second conversion of one app to one pixel
 * is refused, so each test brings its own app.
 */
export async function demoAppConversion(
  app: { name: string; websiteUrl: string; gtmContainerId: string | null },
  conversion: { name: string } & Pick<ConversionMapping, 'events' | 'identifiers'>,
) {
  const created = await createApp(DEMO.orgId, DEMO.uid, { ...app, payloadUrls: ['/thanks'] });
  const { id } = await createConversion(DEMO.orgId, {
    name: conversion.name,
    source: { type: 'app', appId: created.id },
    destination: DEMO_META_PIXEL,
    mapping: { events: conversion.events, value: { mode: 'event' }, identifiers: conversion.identifiers },
    uid: DEMO.uid,
  });
  return { appId: created.id, conversionId: id };
}
