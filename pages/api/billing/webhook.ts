import type { NextApiRequest, NextApiResponse, PageConfig } from 'next';
import type Stripe from 'stripe';
import { stripe } from '@/lib/server/integrations/stripe';
import { applyStripeEvent } from '@/lib/server/repos/billing';

// Stripe signs the exact bytes it sent: the body must stay raw.
export const config: PageConfig = { api: { bodyParser: false } };

async function rawBody(req: NextApiRequest): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** POST /api/billing/webhook: Stripe's events, signature verified, each applied at most once. */
export default async function webhook(req: NextApiRequest, res: NextApiResponse) {
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    return res.status(405).json({ success: false, message: 'Use POST.' });
  }
  const secret = process.env.STRIPE_WEBHOOK_SECRET;
  const signature = req.headers['stripe-signature'];
  let event: Stripe.Event;
  try {
    if (!secret || typeof signature !== 'string') throw new Error('missing signature or secret');
    event = stripe().webhooks.constructEvent(await rawBody(req), signature, secret);
  } catch {
    // A forged, altered or stale (over 5 minutes) event changes nothing.
    return res.status(400).json({ success: false, message: 'Invalid signature.' });
  }
  try {
    const outcome = await applyStripeEvent(event);
    return res.status(200).json({ received: true, outcome });
  } catch (error) {
    console.error('[billing] webhook failed', { id: event.id, type: event.type, error });
    // 500 makes Stripe retry later; the event id keeps the retry from applying twice.
    return res.status(500).json({ success: false, message: 'An unexpected error occurred' });
  }
}
