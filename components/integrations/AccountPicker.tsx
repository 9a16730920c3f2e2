import { useEffect, useState, type FormEvent } from 'react';
import NextStep from '@/components/integrations/NextStep';
import { codeOf, fieldErrorOf, isNeedsReauth, messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import ConfirmDialog from '@/components/ui/ConfirmDialog';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import Spinner from '@/components/ui/Spinner';
import { adAccountUsageLabel, countAdAccounts, entitlementsOf, includesAdAccounts } from '@/lib/shared/billing/entitlements';
import { subscribedPlan } from '@/lib/shared/billing/gate';
import type { AdAccount, Integration } from '@/lib/shared/integrations/platforms';
import { useAppSelector } from '@/store/hooks';
import { useAccountsQuery, useIntegrationsQuery, useUpdateIntegrationMutation } from '@/store/integrationsApi';
import { selectOrganization } from '@/store/organizationSlice';
import { accountNounOf } from '@/lib/shared/integrations/platforms';

interface Props {
  orgId: string;
  integration: Integration;
  canEdit: boolean;
  /** The login died while listing: the parent refreshes the object to show the reconnect notice. */
  onNeedsReauth: () => void;
}

/** Manager accounts first, each followed by the clients reached through it. */
function ordered(accounts: AdAccount[]): Array<AdAccount & { depth: number }> {
  const clientsOf = (managerId: string) => accounts.filter((account) => account.managerId === managerId);
  const top = accounts.filter((account) => !account.managerId || !accounts.some((other) => other.id === account.managerId));
  return top.flatMap((account) => [
    { ...account, depth: 0 },
    ...(account.isManager ? clientsOf(account.id).map((client) => ({ ...client, depth: 1 })) : []),
  ]);
}

/**
 * "2 of 2 ad accounts on Starter": the organization's ad accounts across its sources, this source's
 * counted as picked right now, against what its plan includes (the server enforces the same table).
 */
function AdAccountAllowance({ orgId, integration, picked }: { orgId: string; integration: Integration; picked: Set<string> }) {
  const { document } = useAppSelector(selectOrganization);
  const { data: sources } = useIntegrationsQuery({ orgId, kind: 'source' });
  if (!sources || document?.organization_id !== orgId) return null;
  const plan = subscribedPlan(document);
  const others = sources.filter((source) => source.id !== integration.id);
  const selected = countAdAccounts([...others, { platform: integration.platform, accounts: [...picked].map((id) => ({ id })) }]);
  const over = !includesAdAccounts(entitlementsOf(plan), selected);
  return (
    <span className={over ? 'badge badge--pending' : 'badge'} aria-live="polite" data-testid="ad-account-allowance">
      {adAccountUsageLabel(plan, selected)}
    </span>
  );
}

/** Picks which accounts of the login this source or destination covers (SourceSettings). */
export default function AccountPicker({ orgId, integration, canEdit, onNeedsReauth }: Props) {
  const args = { orgId, kind: integration.kind, id: integration.id };
  const { data, isFetching, error, refetch } = useAccountsQuery(args, { refetchOnMountOrArgChange: true });
  // null until the user changes something: until then the saved selection is shown.
  const [edited, setEdited] = useState<Set<string> | null>(null);
  const picked = edited ?? new Set(data?.selected ?? integration.accounts.map((account) => account.id));
  const [save, saving] = useUpdateIntegrationMutation();
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  // Mixpanel picks no accounts (no picker is shown for it): the null record never reaches here.
  const { one: noun, many } = accountNounOf(integration.platform) ?? { one: 'account', many: 'accounts' };
  const heading = noun === 'account' ? 'Ad accounts' : `${many[0]!.toUpperCase()}${many.slice(1)}`;

  useEffect(() => {
    if (error && isNeedsReauth(error)) onNeedsReauth();
  }, [error, onNeedsReauth]);

  // The connections that use an unticked account, in the server's words, until the user confirms or cancels.
  const [inUse, setInUse] = useState<string | null>(null);

  async function submit(event?: FormEvent, removeFromConnections = false) {
    event?.preventDefault();
    setNotice(null);
    const result = await save({ ...args, accountIds: [...picked], ...(removeFromConnections ? { removeFromConnections } : {}) });
    setInUse(null);
    if ('error' in result && codeOf(result.error) === 'accounts_in_use' && integration.kind === 'source' && !removeFromConnections) {
      // Said before anything is saved: which connections read the unticked accounts.
      setInUse(messageOf(result.error));
      return;
    }
    setNotice(
      'error' in result
        ? { ok: false, text: fieldErrorOf(result.error, 'accountIds') ?? messageOf(result.error, `Could not save the ${noun}s.`) }
        : { ok: true, text: `Saved: ${picked.size} ${noun}${picked.size === 1 ? '' : 's'}.` },
    );
  }

  const toggle = (id: string) => {
    const next = new Set(picked);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setEdited(next);
  };

  return (
    <section className="stack" aria-labelledby="accounts-title">
      <h2 id="accounts-title">{heading}</h2>
      {isFetching && !data ? (
        <Spinner label={`Loading the ${noun}s this login can reach`} />
      ) : error ? (
        isNeedsReauth(error) ? null : (
          <Alert>
            {messageOf(error, `Could not load the ${noun}s.`)}{' '}
            <button type="button" className="link-button" onClick={() => void refetch()}>
              Try again
            </button>
          </Alert>
        )
      ) : data && data.accounts.length === 0 ? (
        <p className="muted">This login has no {noun}s. Sign in with another login, or ask for access to an account.</p>
      ) : (
        data && (
          <form className="stack" onSubmit={submit}>
            <p className="muted">
              Pick the {noun}s SignalBridge should use with this login.{' '}
              {integration.kind === 'source' && <AdAccountAllowance orgId={orgId} integration={integration} picked={picked} />}
            </p>
            <ul className="checklist">
              {ordered(data.accounts).map((account) => (
                <li key={`${account.managerId ?? ''}-${account.id}`} className={account.depth ? 'indent' : undefined}>
                  <label>
                    <input
                      type="checkbox"
                      checked={picked.has(account.id)}
                      disabled={!canEdit || account.isManager}
                      onChange={() => toggle(account.id)}
                    />
                    <span>
                      {account.name || account.id} <span className="muted">· {account.id}</span>
                      {account.isManager && <span className="badge">Manager — pick its client accounts</span>}
                      {account.currency && <span className="muted"> · {account.currency}</span>}
                    </span>
                  </label>
                </li>
              ))}
            </ul>
            <Notice notice={notice} />
            {/* Saved: what these accounts are for, one click away. */}
            {notice?.ok && <NextStep orgId={orgId} integration={integration} />}
            <ConfirmDialog
              open={inUse !== null}
              title="Take the accounts out of their connections?"
              confirmLabel="Take them out and save"
              busy={saving.isLoading}
              onConfirm={() => void submit(undefined, true)}
              onCancel={() => setInUse(null)}
            >
              <p data-testid="accounts-in-use">{inUse}</p>
            </ConfirmDialog>
            {canEdit && (
              <div className="actions" style={{ justifyContent: 'flex-start' }}>
                <Button type="submit" busy={saving.isLoading} disabled={picked.size === 0}>
                  Save {noun}s
                </Button>
              </div>
            )}
          </form>
        )
      )}
    </section>
  );
}
