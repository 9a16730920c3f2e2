import Link from 'next/link';
import { useRouter } from 'next/router';
import { useState, type FormEvent } from 'react';
import styles from '@/components/connections/connections.module.css';
import { connectionPath } from '@/components/connections/paths';
import { destinationInWords, formatDay, formatMoney, formatNumber, sourceInWords } from '@/components/connections/shared';
import { FailureAlert, fieldErrorsOf, firstError } from '@/components/ui/failures';
import { LoadFailed, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Button from '@/components/ui/Button';
import ScrollRegion from '@/components/ui/ScrollRegion';
import SelectField from '@/components/ui/SelectField';
import Spinner from '@/components/ui/Spinner';
import { AD_LEVEL_LABELS } from '@/lib/shared/connections/rows';
import { PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';
import { useConnectionQuery, useTestConnectionMutation, type ConnectionTestResult } from '@/store/connectionsApi';

const COLUMNS = ['Date', 'Account', 'Campaign', 'Ad group', 'Ad', 'Impressions', 'Clicks', 'Spend', 'Conversions', 'Value'];

function Result({ result, platform }: { result: ConnectionTestResult; platform: string }) {
  const { destination, rows } = result;
  return (
    <div className="stack">
      {destination.ok ? (
        <div role="status" className="alert alert--success">
          <strong>Destination ready.</strong> {destination.message}
        </div>
      ) : (
        <div role="alert" className="alert alert--error">
          <strong>The destination is not ready.</strong> {destination.message}
        </div>
      )}
      <p style={{ margin: 0 }} data-testid="test-summary">
        {platform} answered {formatNumber(rows.length)} row{rows.length === 1 ? '' : 's'} for {result.account.name || result.account.id}{' '}
        from {formatDay(result.from)} to {formatDay(result.to)}, in {formatNumber(result.calls)} API call{result.calls === 1 ? '' : 's'}.
        Nothing was written.
      </p>
      {rows.length === 0 ? (
        <p className="empty-state">No performance in these days: the account had no impressions, or its campaigns were not running.</p>
      ) : (
        <ScrollRegion label="Rows that would be written (scrolls sideways)">
          <table className="table" aria-label="Rows that would be written">
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.date}/${row.campaign_id}/${row.ad_group_id ?? ''}/${row.ad_id ?? ''}`}>
                  <td className={styles.numeric}>{row.date}</td>
                  <td>
                    <span className="cell-wrap">{row.account_name || row.account_id}</span>
                  </td>
                  <td>
                    <span className="cell-wrap">{row.campaign_name || row.campaign_id}</span>
                  </td>
                  <td>{row.ad_group_name ?? row.ad_group_id ?? <span className="muted">—</span>}</td>
                  <td>{row.ad_name ?? row.ad_id ?? <span className="muted">—</span>}</td>
                  <td className={styles.numeric}>{formatNumber(row.impressions)}</td>
                  <td className={styles.numeric}>{formatNumber(row.clicks)}</td>
                  <td className={styles.numeric}>{formatMoney(row.spend, row.currency)}</td>
                  <td className={styles.numeric}>{formatNumber(row.conversions)}</td>
                  <td className={styles.numeric}>{formatMoney(row.conversion_value, row.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </div>
  );
}

function ConnectionTest({ orgId, id }: { orgId: string; id: string }) {
  const { data: detail, isLoading, error } = useConnectionQuery({ orgId, id });
  const [test, testing] = useTestConnectionMutation();
  const [accountId, setAccountId] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);

  if (!detail)
    return isLoading || !error ? (
      <Spinner label="Loading the connection" />
    ) : (
      <LoadFailed title="Test connection" error={error} fallback="Connection not found." />
    );
  const { connection } = detail;
  const accounts = connection.source.accounts;
  // One account needs no choice.
  const picked = accountId ?? (accounts.length === 1 ? accounts[0]!.id : '');
  const platform = PLATFORM_LABELS[connection.source.platform];
  const serverErrors = fieldErrorsOf(testing.error);
  const failure = testing.error && Object.keys(serverErrors).length === 0 ? testing.error : null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setMissing(!picked);
    if (!picked) return;
    await test({ orgId, id, accountId: picked });
  }

  return (
    <div className="stack" style={{ gap: '1.5rem', minWidth: 0 }}>
      <Title>{`Test ${connection.name}`}</Title>
      <p style={{ margin: 0 }}>
        <Link href={connectionPath(orgId, id)}>← {connection.name}</Link>
      </p>
      <div>
        <h1>Test connection</h1>
        <p className="muted">
          A dry run of “{connection.name}” ({sourceInWords(connection)} → {destinationInWords(connection)},{' '}
          {AD_LEVEL_LABELS[connection.level].toLowerCase()} level): reads the last 7 days of one account and checks that the destination
          accepts writes. <strong>Writes nothing.</strong>
        </p>
      </div>
      <form className="stack card" onSubmit={submit} noValidate aria-label="Run a test">
        <SelectField
          id="test-account"
          label="Ad account"
          value={picked}
          onChange={(value) => {
            setAccountId(value);
            setMissing(false);
          }}
          options={accounts.map((account) => ({ value: account.id, label: `${account.name || account.id} · ${account.id}` }))}
          placeholder="Choose an account"
          error={missing ? 'Pick an account' : firstError(serverErrors, 'accountId')}
        />
        <div className="actions" style={{ justifyContent: 'flex-start' }}>
          <Button type="submit" busy={testing.isLoading}>
            Run test
          </Button>
        </div>
      </form>
      <div aria-live="polite" className="stack">
        {testing.isLoading ? (
          <p className="muted" style={{ margin: 0, display: 'flex', gap: '0.5rem', alignItems: 'center' }}>
            <Spinner /> Reading from {platform} and checking {PLATFORM_LABELS[connection.destination.platform]}…
          </p>
        ) : failure ? (
          <FailureAlert orgId={orgId} error={failure} fallback="Could not run the test." />
        ) : testing.data ? (
          <Result result={testing.data} platform={platform} />
        ) : null}
      </div>
    </div>
  );
}

/** `/{orgId}/connection/{id}/test1`: the dry run of one account. */
export function ConnectionTestPage() {
  const { query } = useRouter();
  const { orgId, role } = useOrganizationContext();
  const id = typeof query.id === 'string' ? query.id : null;
  if (!orgId || !role || !id) return <Spinner label="Loading" />;
  return <ConnectionTest key={id} orgId={orgId} id={id} />;
}
