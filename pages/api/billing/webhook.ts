import type { NextApiRequest, NextApiResponse, PageConfig } from 'next';
import { applyStripeEvent, verifiedStripeEvent } from '@/lib/server/services/billing';
import { applyPlan } from '@/lib/server/services/planLimits';
import { errorFields, log } from '@/lib/server/log';
import { BodyTooLarge, readRawBody } from '@/lib/server/http/rawBody';

// Stripe signs the exact bytes it sent: the body must stay raw.
export const config: PageConfig = { api: { bodyParser: false } };

/** Stripe's events are a few kilobytes; anything near this is not from Stripe. */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;

function tooLarge(res: NextApiResponse) {
  // The rest of the body is not read: the connection closes after the answer.
  res.setHeader('Connection', 'close');
  return res.status(413).json({ success: false, message: 'The request body is too large.' });
}

/**
 * POST /api/billing/webhook: Stripe's events, at most 1 MB, signature verified, each applied at most once
 * and only to the organization its customer is bound to; events about anything else are acknowledged (200).
 */
export default async function webhook(req: NextApiRequest, res: NextApiResponse) {
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    return res.status(405).json({ success: false, message: 'Use POST.' });
  }
  let body: Buffer;
  try {
    body = await readRawBody(req, MAX_WEBHOOK_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) return tooLarge(res);
    throw error;
  }
  // A forged, altered or stale (over 5 minutes) event changes nothing.
  const event = verifiedStripeEvent(body, req.headers['stripe-signature']);
  if (!event) return res.status(400).json({ success: false, message: 'Invalid signature.' });
  try {
    // What the new plan no longer includes is paused by plan; what it includes again resumes.
    const outcome = await applyStripeEvent(event, { afterChange: (orgId) => applyPlan(orgId) });
    return res.status(200).json({ received: true, outcome });
  } catch (error) {
    log.error({ component: 'billing', stripeEvent: event.id, type: event.type, ...errorFields(error) }, 'Stripe webhook failed');
    // 500 makes Stripe retry later; the event id keeps the retry from applying twice.
    return res.status(500).json({ success: false, message: 'An unexpected error occurred' });
  }
}
