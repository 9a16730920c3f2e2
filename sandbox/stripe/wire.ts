/**
 * Stripe's wire format as the sandbox's Stripe speaks it (sandbox/stripe/): ids, unix seconds,
 * form-encoded bodies with bracket keys, JSON answers with a Request-Id, `{ error: { type, message,
 * param } }` errors, and the frame of its hosted pages.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export type Json = Record<string, unknown>;

/** A new object id with Stripe's prefix (`cus`, `ch`, `req` …). */
export const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
/** Now, in unix seconds as Stripe writes times. */
export const now = () => Math.floor(Date.now() / 1000);

/** Parses Stripe's form encoding (`a[b][0][c]=v`) into nested objects and arrays. */
export function parseStripeForm(body: string): Json {
  const root: Json = {};
  for (const pair of body.split('&').filter(Boolean)) {
    const [rawKey = '', rawValue = ''] = pair.split('=');
    const key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
    const value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    const path = key.split(/\[|\]\[|\]/).filter((part) => part !== '');
    let node: Record<string, unknown> = root;
    path.forEach((part, index) => {
      if (index === path.length - 1) {
        node[part] = value;
        return;
      }
      const nextIsIndex = /^\d+$/.test(path[index + 1]!);
      node[part] ??= nextIsIndex ? [] : {};
      node = node[part] as Record<string, unknown>;
    });
  }
  return root;
}

/** A JSON answer as Stripe sends it, with its Request-Id. */
export function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': id('req') });
  res.end(JSON.stringify(body));
}

/** An error in Stripe's shape. */
export function stripeError(res: ServerResponse, status: number, message: string, param?: string, type = 'invalid_request_error') {
  json(res, status, { error: { type, message, ...(param ? { param } : {}) } });
}

/** Stripe's answers to a missing parameter and an unknown object. */
export const missing = (res: ServerResponse, param: string) => stripeError(res, 400, `Missing required param: ${param}.`, param);
export const noSuch = (res: ServerResponse, kind: string, value: string) => stripeError(res, 404, `No such ${kind}: '${value}'`, 'id');

/** A page of the fake in its frame (the "Local Stripe sandbox" badge). */
export function html(res: ServerResponse, body: string, status = 200) {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stripe (local sandbox)</title>
<style>body{font-family:system-ui,sans-serif;max-width:440px;margin:4rem auto;padding:0 1rem;color:#1a1f36}
button{font:inherit;font-weight:600;background:#635bff;color:#fff;border:0;border-radius:6px;padding:.7rem 1.2rem;cursor:pointer}
label{display:block;margin:.6rem 0}input,select{display:block;font:inherit;width:100%;box-sizing:border-box;padding:.4rem;margin-top:.2rem}
table{border-collapse:collapse;font-size:.85rem;width:100%}td,th{text-align:left;padding:.25rem .4rem;border-bottom:1px solid #e3e8ee}
.error{color:#c0123c}
.muted{color:#697386}.badge{background:#fff4e6;color:#a34a00;border-radius:999px;padding:.1rem .5rem;font-size:.8rem}</style>
</head><body><p><span class="badge">Local Stripe sandbox</span></p>${body}</body></html>`);
}
