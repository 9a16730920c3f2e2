import type { NextApiRequest, NextApiResponse, PageConfig } from 'next';
import type Stripe from 'stripe';
import { stripe } from '@/lib/server/vendors/stripe';
import { applyStripeEvent } from '@/lib/server/services/billing';
import { applyPlan } from '@/lib/server/services/planLimits';
import { errorFields, log } from '@/lib/server/log';

// Stripe signs the exact bytes it sent: the body must stay raw.
export const config: PageConfig = { api: { bodyParser: false } };

/** Stripe's events are a few kilobytes; anything near this is not from Stripe. */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;

class BodyTooLarge extends Error {}

/** The raw body, refused as soon as it passes the limit (declared or counted): no one makes us buffer 50 MB. */
async function rawBody(req: NextApiRequest): Promise<Buffer> {
  if (Number(req.headers['content-length']) > MAX_WEBHOOK_BYTES) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    if (size > MAX_WEBHOOK_BYTES) throw new BodyTooLarge();
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

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
  const secret = process.env.STRIPE_WEBHOOK_SECRET;
  const signature = req.headers['stripe-signature'];
  let body: Buffer;
  try {
    body = await rawBody(req);
  } catch (error) {
    if (error instanceof BodyTooLarge) return tooLarge(res);
    throw error;
  }
  let event: Stripe.Event;
  try {
    if (!secret || typeof signature !== 'string') throw new Error('missing signature or secret');
    event = stripe().webhooks.constructEvent(body, signature, secret);
  } catch {
    // A forged, altered or stale (over 5 minutes) event changes nothing.
    return res.status(400).json({ success: false, message: 'Invalid signature.' });
  }
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
