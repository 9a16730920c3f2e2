/**
 * The pages a person sees on the sandbox's OAuth platforms: the consent screen ('Allow' / 'Cancel')
 * and the error page a platform shows instead of redirecting (unknown client, unregistered redirect URI).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml, readBody } from '@/sandbox/server';
import { token, type Provider, type SandboxStore } from '@/sandbox/store';

/** How a platform looks on its pages, and the sandbox account a person is signed in as. */
export interface Brand {
  provider: Provider;
  name: string;
  color: string;
  account: string;
}

/** An HTML page in the sandbox's frame (the "Local platform sandbox" badge). */
export function page(res: ServerResponse, status: number, title: string, body: string) {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:460px;margin:4rem auto;padding:0 1rem;color:#202124}
.card{border:1px solid #dadce0;border-radius:8px;padding:1.5rem}ul{padding-left:1.2rem}li{margin:.3rem 0}
button{font:inherit;font-weight:600;border-radius:6px;padding:.6rem 1.2rem;cursor:pointer;border:1px solid #dadce0;background:#fff}
button.allow{color:#fff;border-color:transparent}.actions{display:flex;gap:.75rem;justify-content:flex-end;margin-top:1.5rem}
.badge{background:#fff4e6;color:#a34a00;border-radius:999px;padding:.1rem .5rem;font-size:.8rem}.muted{color:#5f6368}</style>
</head><body><p><span class="badge">Local platform sandbox</span></p>${body}</body></html>`);
}

/** What a platform shows instead of redirecting back to the app. */
export function errorPage(res: ServerResponse, brand: Brand, error: string, description: string) {
  page(
    res,
    400,
    `${brand.name} — error`,
    `<div class="card"><h1>${escapeHtml(brand.name)}: ${escapeHtml(error)}</h1><p>${escapeHtml(description)}</p></div>`,
  );
}

/** The consent screen: the request's fields ride along hidden, Allow or Cancel posts them to decide(). */
export function consent(res: ServerResponse, store: SandboxStore, brand: Brand, fields: Record<string, string>, scopes: string[]) {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  page(
    res,
    200,
    `Sign in with ${brand.name}`,
    `<div class="card"><h1>SignalBridge wants to access your ${escapeHtml(brand.name)} account</h1>
<p class="muted">Signed in as <strong>${escapeHtml(brand.account)}</strong></p>
<p>This will allow SignalBridge to:</p><ul>${scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('')}</ul>
<form method="post" action="${store.base}/${brand.provider}/consent">${hidden}<div class="actions">
<button type="submit" name="decision" value="deny">Cancel</button>
<button type="submit" name="decision" value="allow" class="allow" style="background:${brand.color}">Allow</button></div></form></div>`,
  );
}

/** Allow issues a code bound to the client and redirect URI; Cancel returns access_denied. Either way back to the app. */
export async function decide(req: IncomingMessage, res: ServerResponse, store: SandboxStore, brand: Brand) {
  const provider = brand.provider;
  const form = new URLSearchParams(await readBody(req));
  const redirectUri = form.get('redirect_uri') ?? '';
  if (!store.registered.has(redirectUri)) return errorPage(res, brand, 'redirect_uri_mismatch', 'The redirect URI is not registered.');
  const target = new URL(redirectUri);
  const state = form.get('state');
  if (form.get('decision') !== 'allow') {
    target.searchParams.set('error', 'access_denied');
    if (provider === 'meta') target.searchParams.set('error_reason', 'user_denied');
  } else {
    const code = token(provider === 'google' ? '4/0A' : provider === 'meta' ? 'AQ' : 'M.C5');
    store.codes.set(code, {
      provider,
      clientId: form.get('client_id') ?? '',
      redirectUri,
      scope: form.get('scope') ?? '',
      offline: form.get('offline') === 'true',
      expiresAt: Date.now() + 10 * 60 * 1000,
    });
    store.revokedProviders.delete(provider);
    target.searchParams.set('code', code);
    if (provider === 'google') target.searchParams.set('scope', form.get('scope') ?? '');
    // TikTok returns the code as auth_code too (its advertiser authorization's redirect).
    if (provider === 'tiktok') target.searchParams.set('auth_code', code);
  }
  if (state !== null) target.searchParams.set('state', state);
  res.writeHead(302, { Location: target.toString() });
  res.end();
}
