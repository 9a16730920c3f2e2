/**
 * The sandbox's own pages under /__sandbox: the index (credentials to paste, buttons that revoke a
 * provider's logins), the conversions each platform received, what each matched, what each reports it
 * counted (with the switches of its imperfections) and what the destinations hold. Each platform's
 * part comes from its entry in sandbox/fakes.ts.
 */
import type { ServerResponse } from 'node:http';
import { page } from '@/sandbox/consent';
import type { ConversionPlatform } from '@/sandbox/conversions';
import { FAKES } from '@/sandbox/fakes';
import { KNOWN_PEOPLE } from '@/sandbox/people';
import { switchesForm } from '@/sandbox/reporting';
import { escapeHtml } from '@/sandbox/server';
import type { SandboxPlatform, SandboxStore } from '@/sandbox/store';

/** The OAuth providers the index can revoke every login of, as their consent pages show them. */
export const BRANDS = FAKES.flatMap((fake) => ('brand' in fake ? [fake.brand] : []));
/** The platforms whose received conversions the ledger keeps, each with a failure switch. */
export const CONVERSION_PLATFORMS: readonly ConversionPlatform[] = FAKES.flatMap((fake) =>
  'conversions' in fake ? [fake.conversions] : [],
);
const MATCH_SECTIONS = FAKES.flatMap((fake) => ('matches' in fake ? [fake.matches] : []));

/** The sandbox's index: credentials to paste, and buttons that revoke every login of a platform. */
export function sandboxIndex(res: ServerResponse, store: SandboxStore) {
  const credentials = FAKES.map((fake) => ('credentials' in fake ? fake.credentials(store.base) : '')).join('');
  page(
    res,
    200,
    'Platform sandbox',
    `<h1>Platform sandbox</h1><p class="muted">Fake Google, Meta, Microsoft and Mixpanel for local development.</p>
<h2>Credentials to paste</h2><ul>
${credentials}
<li>Stripe restricted key: <code>rk_test_sandboxChargesRead</code></li></ul>
<h2>Break a login</h2><p>Revoking makes the app's next call fail, as when a user removes access in their account.</p>
${BRANDS.map(
  (brand) =>
    `<form method="post" action="${store.base}/__sandbox/${brand.provider}/revoke"><button>Revoke every ${brand.name} login</button></form>`,
).join('<br>')}
<h2>Conversions received</h2><p><a href="${store.base}/__sandbox/conversions">What Meta, Google, Microsoft and Mixpanel received</a></p>
<h2>Counted by the platform</h2><p><a href="${store.base}/__sandbox/reporting">What each platform reports it received and attributed, and the switches of their imperfections</a></p>
<h2>Match quality</h2><p><a href="${store.base}/__sandbox/matches">Identifiers each platform matched to its ${KNOWN_PEOPLE.length} known people, by its own rules</a> (<a href="${store.base}/__sandbox/matches.json">JSON</a>)</p>
<h2>Destinations</h2><p><a href="${store.base}/__sandbox/destinations">Rows in each BigQuery table and Ad Data events in each Mixpanel project</a></p>`,
  );
}

/** Every conversion each platform received (the latest 200 of each), and switches that make one fail for a while. */
export function conversionsPage(res: ServerResponse, store: SandboxStore) {
  const ledger = store.conversions;
  const section = (platform: ConversionPlatform) => {
    const rows = ledger.list(platform).slice(-200).reverse();
    const failure = ledger.failures.get(platform);
    return `<h2>${platform[0]!.toUpperCase()}${platform.slice(1)} — ${ledger.list(platform).length} received in ${ledger.calls(platform)} calls</h2>
<form method="post" action="${store.base}/__sandbox/${platform}/fail"><input type="hidden" name="seconds" value="60"><input type="hidden" name="status" value="500">
<button>Fail with 500 for a minute</button></form>${failure ? `<p class="muted">Failing with ${failure.status} until ${new Date(failure.until).toISOString()}</p>` : ''}
<table><tr><th>Dedup key</th><th>Target</th><th>Received</th><th>Times</th><th>Event</th></tr>${rows
      .map(
        (row) =>
          `<tr><td><code>${escapeHtml(row.key)}</code></td><td>${escapeHtml(row.target)}</td><td>${new Date(row.receivedAt).toISOString()}</td><td>${row.receipts}</td><td><code>${escapeHtml(JSON.stringify(row.event))}</code></td></tr>`,
      )
      .join('')}</table>`;
  };
  page(
    res,
    200,
    'Conversions received',
    `<h1>Conversions received</h1><p><a href="${store.base}/__sandbox">Sandbox</a></p>${CONVERSION_PLATFORMS.map(section).join('')}`,
  );
}

/**
 * Matched and unmatched events per pixel, conversion action and goal, and per identifier: an
 * identifier that matches nobody was hashed in another platform's form (or belongs to a stranger).
 */
export function matchesPage(res: ServerResponse, store: SandboxStore) {
  const section = ({ platform, label, target }: (typeof MATCH_SECTIONS)[number]) => {
    const targets = [...new Set(store.matches.list({ platform }).map((entry) => entry.target))].sort();
    const rows = targets.map((name) => {
      const total = store.matches.total(platform, name);
      const keys = Object.entries(total.keys)
        .map(([key, counts]) => `${escapeHtml(key)} ${counts.matched}/${counts.sent}`)
        .join(', ');
      return `<tr><td><code>${escapeHtml(name)}</code></td><td>${total.events}</td><td>${total.matched}</td><td>${total.unmatched}</td><td>${total.withoutIdentifiers}</td><td>${keys}</td></tr>`;
    });
    return `<h2>${label}</h2>${
      rows.length
        ? `<table><tr><th>${target}</th><th>Events</th><th>Matched</th><th>Unmatched</th><th>No identifier</th><th>Identifiers matched / sent</th></tr>${rows.join('')}</table>`
        : '<p class="muted">Nothing received yet.</p>'
    }`;
  };
  page(
    res,
    200,
    'Match quality',
    `<h1>Match quality</h1><p><a href="${store.base}/__sandbox">Sandbox</a></p>
<p class="muted">Each platform knows ${KNOWN_PEOPLE.length} people (sandbox/people.ts) and hashes each of them in the form it documents (docs/SANDBOX.md). An event matches when every hashed identifier it carries is one of theirs.</p>
${MATCH_SECTIONS.map(section).join('')}
<form method="post" action="${store.base}/__sandbox/matches/reset"><button>Reset the counts</button></form>`,
  );
}

/** What the ad-data sync wrote: each destination's section (BigQuery's tables, Mixpanel's projects), as its fake shows it. */
export function destinationsPage(res: ServerResponse, store: SandboxStore, platforms: readonly SandboxPlatform[]) {
  page(
    res,
    200,
    'Destinations',
    `<h1>Destinations</h1><p><a href="${store.base}/__sandbox">Sandbox</a></p>
${platforms.map((platform) => platform.destinations?.() ?? '').join('\n')}`,
  );
}

/** The reporting imperfections (sandbox/reporting.ts): what each platform is set to, with a form that changes them. */
export function reportingPage(res: ServerResponse, store: SandboxStore) {
  page(
    res,
    200,
    'Counted by the platform',
    `<h1>Counted by the platform</h1><p><a href="${store.base}/__sandbox">Sandbox</a></p>
<p class="muted">What Meta's pixel stats and insights, Google's conversions by conversion date and Microsoft's goals report answer about the conversions each received (docs/SANDBOX.md). Each conversion is dated by the UTC day it arrived.</p>
<form method="post" action="${store.base}/__sandbox/reporting">
${switchesForm(store.reporting.switches)}
<p><button>Save</button></p></form>
<form method="post" action="${store.base}/__sandbox/reporting/reset"><button>Back to the defaults</button></form>`,
  );
}
