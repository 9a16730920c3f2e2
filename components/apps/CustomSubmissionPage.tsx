import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useState } from 'react';
import CodeBlock from '@/components/ui/CodeBlock';
import CopyButton from '@/components/ui/CopyButton';
import codeStyles from '@/components/ui/code.module.css';
import { useRouteApp } from '@/components/apps/useRouteApp';
import { formatDate, LoadFailed, messageOf, Title } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import ConfirmDialog from '@/components/ui/ConfirmDialog';
import Spinner from '@/components/ui/Spinner';
import { PURCHASE_EXAMPLE } from '@/lib/shared/integrations/purchaseExample';
import { can } from '@/lib/shared/permissions';
import { useAppDispatch } from '@/store/hooks';
import { integrationsApi, useLazyAppSnippetQuery, usePublishableKeyMutation, useSubmissionKeyMutation } from '@/store/integrationsApi';

// The contract carries zod and the examples: loaded after the key and endpoint are shown.
const SubmissionContract = dynamic(() => import('@/components/apps/SubmissionContract'), {
  loading: () => <Spinner label="Loading the API reference" />,
});

const FIELD_LABELS: Record<string, string> = {
  email: 'email',
  phone: 'phone',
  firstName: 'first name',
  lastName: 'last name',
  city: 'city',
  state: 'state',
  postalCode: 'postal code',
  countryCode: 'country',
  dateOfBirth: 'date of birth',
  gender: 'gender',
};

/** The app's own form field names ("email ← contact_email, …"), read as they may be absent on older apps. */
function customFieldsInWords(value: unknown): string {
  if (!value || typeof value !== 'object') return '';
  return Object.entries(value as Record<string, unknown>)
    .filter((entry): entry is [string, string] => entry[0] in FIELD_LABELS && typeof entry[1] === 'string' && entry[1].trim() !== '')
    .map(([field, name]) => `${FIELD_LABELS[field]} ← ${name}`)
    .join(', ');
}

/** `/{orgId}/app/{id}/custom-submission`: the endpoint for posting conversions, and its revocable key. */
export default function CustomSubmissionPage() {
  const { orgId, role, data: app, isLoading, error } = useRouteApp();
  const [keyAction, keyState] = useSubmissionKeyMutation();
  const [newKey, setNewKey] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'rotate' | 'revoke' | 'rotateWebsite' | 'revokeWebsite' | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [loadSnippetQuery, snippet] = useLazyAppSnippetQuery();
  const dispatch = useAppDispatch();
  // The first snippet makes the website key: the app (and its checklist) is read again to say so.
  const loadSnippet = async (args: { orgId: string; id: string }) => {
    const result = await loadSnippetQuery(args);
    if (result.data) dispatch(integrationsApi.util.invalidateTags([{ type: 'Apps', id: args.orgId }]));
  };
  const [websiteKeyAction, websiteKeyState] = usePublishableKeyMutation();
  const [websiteFailure, setWebsiteFailure] = useState<string | null>(null);
  // A snippet made by a new website key replaces the one loaded before.
  const [newSnippet, setNewSnippet] = useState<string | null>(null);
  // Revoked here, before the app is read again.
  const [revokedNow, setRevokedNow] = useState(false);
  if (!orgId || !role || isLoading) return <Spinner label="Loading the app" />;
  if (error || !app) return <LoadFailed title="Events from your server" error={error} fallback="App not found." />;
  const endpoint = `${typeof window === 'undefined' ? '' : window.location.origin}/api/submissions`;
  const canEdit = can(role, 'app', 'update');
  // Replacing or revoking a key stops what posts with it: owners and admins only.
  const canManageKeys = can(role, 'app', 'delete');

  async function run(revoke: boolean) {
    setConfirm(null);
    setFailure(null);
    const result = await keyAction({ orgId: orgId!, id: app!.id, revoke });
    if ('error' in result) setFailure(messageOf(result.error, 'Could not change the key.'));
    else setNewKey(revoke ? null : (result.data.key ?? null));
  }

  async function runWebsite(revoke: boolean) {
    setConfirm(null);
    setWebsiteFailure(null);
    const result = await websiteKeyAction({ orgId: orgId!, id: app!.id, revoke });
    if ('error' in result) setWebsiteFailure(messageOf(result.error, 'Could not change the website key.'));
    else {
      setRevokedNow(revoke);
      setNewSnippet(revoke ? null : (result.data.snippet ?? null));
    }
  }

  const websiteRevoked = (revokedNow || app.publishableKey === 'revoked') && !newSnippet;
  const shownSnippet = newSnippet ?? (websiteRevoked ? null : (snippet.data?.snippet ?? null));
  const hasWebsiteKey = !websiteRevoked && (app.publishableKey === 'active' || shownSnippet !== null);

  return (
    <div className="stack" style={{ gap: '1.5rem', maxWidth: 880, minWidth: 0 }}>
      <Title>{`${app.name} · Events from your server`}</Title>
      <p>
        <Link href={`/${encodeURIComponent(orgId)}/app/${app.id}`}>← {app.name}</Link>
      </p>
      <h1>Events from your server</h1>
      <p className="muted">
        Post form submissions, purchases and other conversion events from your own code, and copy the website snippet. (Technically: the
        app&apos;s custom submission endpoint and its keys.)
      </p>
      <section className="stack" aria-labelledby="endpoint-title">
        <h2 id="endpoint-title">Endpoint</h2>
        <div className="actions" style={{ justifyContent: 'flex-start', alignItems: 'center', flexWrap: 'wrap' }}>
          <code className={codeStyles.code} data-testid="submission-endpoint">
            POST {endpoint}
          </code>
          <CopyButton text={endpoint} what="the endpoint" />
        </div>
      </section>
      <section className="stack" aria-labelledby="key-title">
        <h2 id="key-title">Key</h2>
        {failure && <Alert>{failure}</Alert>}
        {newKey ? (
          <div role="status" className="alert alert--success stack">
            <strong>Copy your new key now: it is not shown again.</strong>
            <code className="secret" data-testid="submission-key">
              {newKey}
            </code>
            <CopyButton text={newKey} what="the key" />
          </div>
        ) : app.submissionKey ? (
          <p>
            Key <code>{app.submissionKey.prefix}…</code> created {formatDate(app.submissionKey.createdAt)} is active.
          </p>
        ) : (
          <p className="muted">No key yet: nothing can post to this app.</p>
        )}
        {canManageKeys ? (
          <div className="actions" style={{ justifyContent: 'flex-start' }}>
            <Button type="button" busy={keyState.isLoading} onClick={() => (app.submissionKey ? setConfirm('rotate') : void run(false))}>
              {app.submissionKey ? 'Replace key' : 'Create key'}
            </Button>
            {app.submissionKey && (
              <Button type="button" variant="secondary" onClick={() => setConfirm('revoke')}>
                Revoke key
              </Button>
            )}
          </div>
        ) : (
          <p className="muted">Owners and admins make, replace and revoke keys.</p>
        )}
      </section>
      {canEdit && (
        <section className="stack" aria-labelledby="capture-title">
          <h2 id="capture-title">Website capture</h2>
          <p className="muted" data-testid="capture-where">
            {app.gtmContainerId
              ? `Paste this as a Custom HTML tag in ${app.gtmContainerId} firing on all pages (or straight into every page of your site).`
              : 'Paste this into every page of your site, just before </body> (in your theme’s layout: on Shopify, theme.liquid); no Tag Manager needed.'}{' '}
            On the thank-you page paths it sends form submissions with the email, phone, name, city, state, postal code, country, date of
            birth and gender it finds; on any page, the purchases your page pushes to the dataLayer (GA4&apos;s e-commerce{' '}
            <code>purchase</code>, as Tag Manager, Elevar or Stape push it, or <code>gtag(&apos;event&apos;, &apos;purchase&apos;, …)</code>
            ), once per transaction id. Each event carries the click ids (gclid, fbclid, msclkid) and the visitor&apos;s ad consent where
            the page uses Google consent mode; its publishable key only works from {app.websiteUrl} (with or without www.).
          </p>
          <p className="muted" style={{ margin: 0 }}>
            It finds fields by the app&apos;s own field names first (
            {customFieldsInWords((app as { customFields?: unknown }).customFields) || 'none set'}), then by their autocomplete tokens
            (email, tel, given-name, address-level2, postal-code, country, bday, sex …) and usual names. Show it again after changing them.
          </p>
          {websiteFailure && <Alert>{websiteFailure}</Alert>}
          {newSnippet && (
            <div role="status" className="alert alert--success">
              New website key made: paste this snippet into your tag again. The previous snippet no longer submits.
            </div>
          )}
          {websiteRevoked ? (
            <p className="muted" data-testid="website-key-revoked">
              The website key is revoked: the snippet on your site submits nothing.{' '}
              {canManageKeys ? 'Make a new key to get a snippet that works.' : 'An owner or admin can make a new one.'}
            </p>
          ) : shownSnippet ? (
            <CodeBlock title="The snippet" code={shownSnippet} testId="capture-snippet" level={3} />
          ) : (
            <div className="actions" style={{ justifyContent: 'flex-start' }}>
              <Button type="button" variant="secondary" busy={snippet.isFetching} onClick={() => void loadSnippet({ orgId, id: app.id })}>
                Show the snippet
              </Button>
            </div>
          )}
          {canManageKeys && (websiteRevoked || hasWebsiteKey) && (
            <div className="actions" style={{ justifyContent: 'flex-start' }}>
              <Button
                type="button"
                variant="secondary"
                busy={websiteKeyState.isLoading}
                onClick={() => (websiteRevoked ? void runWebsite(false) : setConfirm('rotateWebsite'))}
              >
                {websiteRevoked ? 'Make a new website key' : 'Replace website key'}
              </Button>
              {!websiteRevoked && (
                <Button type="button" variant="secondary" onClick={() => setConfirm('revokeWebsite')}>
                  Revoke website key
                </Button>
              )}
            </div>
          )}
          {snippet.error && <Alert>{messageOf(snippet.error, 'Could not make the snippet.')}</Alert>}
          <p className="muted" style={{ margin: 0 }}>
            No dataLayer purchase on your thank-you page yet? Add one like this, with your order&apos;s id, total and currency, above the
            snippet or anywhere on the page: it is sent as a <code>Purchase</code> whose event id is the transaction id.
          </p>
          <CodeBlock title="A thank-you page purchase" code={PURCHASE_EXAMPLE} testId="purchase-example" level={3} />
        </section>
      )}
      <section className="stack" aria-labelledby="contract-title">
        <h2 id="contract-title">API reference</h2>
        <SubmissionContract endpoint={endpoint} />
      </section>
      <ConfirmDialog
        open={confirm !== null}
        title={
          confirm === 'revoke'
            ? 'Revoke this key?'
            : confirm === 'rotate'
              ? 'Replace this key?'
              : confirm === 'revokeWebsite'
                ? 'Revoke the website key?'
                : 'Replace the website key?'
        }
        confirmLabel={
          confirm === 'revoke'
            ? 'Revoke key'
            : confirm === 'rotate'
              ? 'Replace key'
              : confirm === 'revokeWebsite'
                ? 'Revoke website key'
                : 'Replace website key'
        }
        onConfirm={() =>
          void (confirm === 'revoke' || confirm === 'rotate' ? run(confirm === 'revoke') : runWebsite(confirm === 'revokeWebsite'))
        }
        onCancel={() => setConfirm(null)}
      >
        {confirm === 'revoke' || confirm === 'rotate'
          ? 'Anything still posting with the current key is refused from now on.'
          : 'The snippet on your website stops submitting events at once, until you paste the new one.'}
      </ConfirmDialog>
    </div>
  );
}
