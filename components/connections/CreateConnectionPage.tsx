import Link from 'next/link';
import { useRouter } from 'next/router';
import { useRef, useState, type FormEvent } from 'react';
import { AccountChecklist, DEFAULT_SCHEDULE, LevelField, LookbackField, ScheduleFields } from '@/components/connections/ConnectionFields';
import styles from '@/components/connections/connections.module.css';
import { connectionPath, connectionsPath } from '@/components/connections/paths';
import { createErrors, lookbackOf, useSchemas } from '@/components/connections/validation';
import { FailureAlert, fieldErrorsOf, firstError } from '@/components/ui/failures';
import { CannotCreatePage, messageOf, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import SelectField from '@/components/ui/SelectField';
import Spinner from '@/components/ui/Spinner';
import TextField from '@/components/ui/TextField';
import NameField from '@/components/ui/NameField';
import { adAccountUsageLabel, entitlementsOf, includesAdAccounts } from '@/lib/shared/billing/entitlements';
import type { Schedule } from '@/lib/shared/connections/connection';
import type { CreateConnectionInput } from '@/lib/shared/schemas/connections';
import type { AdLevel } from '@/lib/shared/connections/rows';
import {
  configurationPathOf,
  DEFAULT_LOOKBACK_DAYS,
  isAdPlatform,
  PLATFORM_LABELS,
  type AdPlatform,
  type Integration,
  isAdDataDestination,
  writesTables,
} from '@/lib/shared/integrations/platforms';
import { can } from '@/lib/shared/permissions';
import { useConnectionsQuery, useCreateConnectionMutation } from '@/store/connectionsApi';
import { useIntegrationsQuery } from '@/store/integrationsApi';

const DEFAULT_DATASET = 'signalbridge';
const DEFAULT_TABLE = 'ad_performance';

interface Draft {
  /** null: the suggested name (source → destination) until the user types one. */
  name: string | null;
  sourceId: string;
  accountIds: string[];
  destinationId: string;
  projectId: string;
  dataset: string;
  table: string;
  level: AdLevel;
  schedule: Schedule;
  /** null: the source platform's default until the user types a number. */
  lookback: string | null;
}

const isAdSource = (integration: Integration): integration is Integration & { platform: AdPlatform } => isAdPlatform(integration.platform);
const isDataDestination = (integration: Integration) => isAdDataDestination(integration.platform);

/** The BigQuery project a destination suggests: its own (a key's project) when it is one of its projects, else the first. */
function defaultProject(destination: Integration | undefined): string {
  if (!destination || !writesTables(destination.platform)) return '';
  const own = destination.settings.projectId;
  if (own && (destination.accounts.length === 0 || destination.accounts.some((account) => account.id === own))) return own;
  return destination.accounts[0]?.id ?? own ?? '';
}

/** `/{orgId}/createConnection`: one form, from a source's accounts to a destination, with level, schedule and lookback. */
export function CreateConnectionPage() {
  useSchemas();
  const router = useRouter();
  const { orgId, role, plan } = useOrganizationContext();
  const [draft, setDraft] = useState<Draft>(() => ({
    name: null,
    sourceId: '',
    accountIds: [],
    destinationId: '',
    projectId: '',
    dataset: DEFAULT_DATASET,
    table: DEFAULT_TABLE,
    level: 'campaign',
    schedule: DEFAULT_SCHEDULE(),
    lookback: null,
  }));
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [create, creating] = useCreateConnectionMutation();
  const form = useRef<HTMLFormElement>(null);
  const sources = useIntegrationsQuery({ orgId: orgId ?? '', kind: 'source' }, { skip: !orgId });
  const destinations = useIntegrationsQuery({ orgId: orgId ?? '', kind: 'destination' }, { skip: !orgId });
  const existing = useConnectionsQuery(orgId ?? '', { skip: !orgId });

  if (!orgId || !role) return <Spinner label="Loading" />;

  if (!can(role, 'connection', 'create')) {
    return <CannotCreatePage title="New connection" things="connections" />;
  }

  const adSources = (sources.data ?? []).filter(isAdSource);
  const dataDestinations = (destinations.data ?? []).filter(isDataDestination);
  const source = adSources.find((candidate) => candidate.id === draft.sourceId);
  const destination = dataDestinations.find((candidate) => candidate.id === draft.destinationId);
  const lookbackText = draft.lookback ?? (source ? String(DEFAULT_LOOKBACK_DAYS[source.platform]) : '');
  const suggestedName = source && destination ? `${source.name} → ${destination.name}`.slice(0, 100) : '';
  const name = draft.name ?? suggestedName;

  const update = (changes: Partial<Draft>) => {
    setDraft((current) => ({ ...current, ...changes }));
    // A field the user changed no longer shows its error (Create checks again).
    const changed = Object.keys(changes).map((key) => (key === 'lookback' ? 'lookbackDays' : key));
    setErrors((current) =>
      Object.fromEntries(Object.entries(current).filter(([key]) => !changed.some((field) => key === field || key.startsWith(`${field}.`)))),
    );
  };

  const body: CreateConnectionInput = {
    name,
    sourceId: draft.sourceId,
    accountIds: draft.accountIds,
    destinationId: draft.destinationId,
    ...(destination && writesTables(destination.platform)
      ? { projectId: draft.projectId || undefined, dataset: draft.dataset, table: draft.table }
      : {}),
    level: draft.level,
    schedule: draft.schedule,
    lookbackDays: lookbackOf(lookbackText),
  };

  /** Our own words for the choices, then the handler's schema for the rest. */
  function problems(): Record<string, string[]> {
    const found = createErrors(body);
    if (!draft.sourceId) found.sourceId = ['Choose a source'];
    else if (source && source.accounts.length > 0 && draft.accountIds.length === 0) found.accountIds = ['Pick at least one ad account'];
    else delete found.accountIds;
    if (!draft.destinationId) found.destinationId = ['Choose a destination'];
    if (destination && writesTables(destination.platform) && !draft.projectId)
      found.projectId = [`Pick a ${PLATFORM_LABELS[destination.platform]} project`];
    return found;
  }

  /** Shows the errors on their fields and moves focus to the first one. */
  function showErrors(found: Record<string, string[]>): boolean {
    setErrors(found);
    if (Object.keys(found).length === 0) return false;
    window.setTimeout(
      () => form.current?.querySelector<HTMLElement>('[aria-invalid="true"] input, [aria-invalid="true"]:not(fieldset)')?.focus(),
      0,
    );
    return true;
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (showErrors(problems())) return;
    const result = await create({ orgId: orgId!, body });
    if ('data' in result && result.data) {
      void router.push(connectionPath(orgId!, result.data.connection.id));
      return;
    }
    showErrors(fieldErrorsOf(result.error));
  }

  // The allowance beside the accounts: the organization's accounts across connections, these counted as picked.
  const keys = new Set([
    ...(existing.data ?? []).flatMap((connection) =>
      connection.source.accounts.map((account) => `${connection.source.sourceId}/${account.id}`),
    ),
    ...draft.accountIds.map((id) => `${draft.sourceId}/${id}`),
  ]);
  const over = !includesAdAccounts(entitlementsOf(plan), keys.size);
  const allowance = existing.data && (
    <span className={over ? 'badge badge--pending' : 'badge'} aria-live="polite" style={{ alignSelf: 'flex-start' }}>
      {adAccountUsageLabel(plan, keys.size)}
    </span>
  );
  const serverFailure = creating.error && Object.keys(fieldErrorsOf(creating.error)).length === 0 ? creating.error : null;
  const loading = sources.isLoading || destinations.isLoading;
  const loadError = sources.error ?? destinations.error;
  const org = `/${encodeURIComponent(orgId)}`;

  return (
    <div className="stack" style={{ gap: '1.5rem', maxWidth: 760 }}>
      <Title>New connection</Title>
      <p style={{ margin: 0 }}>
        <Link href={connectionsPath(orgId)}>← Connections</Link>
      </p>
      <div>
        <h1>New connection</h1>
        <p className="muted">
          Copy the daily performance of ad accounts into BigQuery or Mixpanel, on a schedule. The first run starts as soon as you create it.
        </p>
      </div>
      {loading ? (
        <Spinner label="Loading your sources and destinations" />
      ) : loadError ? (
        <Alert>{messageOf(loadError, 'Could not load your sources and destinations.')}</Alert>
      ) : adSources.length === 0 || dataDestinations.length === 0 ? (
        <div className="empty-state stack" data-testid="empty-state" style={{ alignItems: 'center' }}>
          <p>
            {adSources.length === 0 && dataDestinations.length === 0
              ? 'Connect an ad platform as a source and BigQuery or Mixpanel as a destination first.'
              : adSources.length === 0
                ? 'Connect Google Ads, Meta Ads or Microsoft Advertising as a source first.'
                : 'Connect BigQuery or Mixpanel as a destination first.'}
          </p>
          <div className="actions" style={{ justifyContent: 'center' }}>
            {adSources.length === 0 && (
              <Link className="button" href={`${org}/source`}>
                Go to sources
              </Link>
            )}
            {dataDestinations.length === 0 && (
              <Link className="button button--secondary" href={`${org}/destination`}>
                Go to destinations
              </Link>
            )}
          </div>
        </div>
      ) : (
        <form ref={form} className="stack" onSubmit={submit} noValidate aria-label="New connection">
          <fieldset className={styles.fieldset}>
            <legend className={styles.legend}>From</legend>
            <SelectField
              id="connection-source"
              label="Source"
              value={draft.sourceId}
              onChange={(sourceId) => {
                const picked = adSources.find((candidate) => candidate.id === sourceId);
                // The accounts picked on the source are picked here too (untick what this connection skips); a new platform has its own lookback default.
                update({ sourceId, accountIds: (picked?.accounts ?? []).map((account) => account.id), lookback: null });
              }}
              options={adSources.map((candidate) => ({
                value: candidate.id,
                label: `${candidate.name} · ${PLATFORM_LABELS[candidate.platform]}`,
              }))}
              placeholder="Choose an ad platform source"
              error={firstError(errors, 'sourceId')}
            />
            {source?.status === 'needs_reauth' && (
              <Alert>
                {PLATFORM_LABELS[source.platform]} has disconnected this source.{' '}
                <Link href={configurationPathOf(orgId, 'source', source.id, source.platform)}>Reconnect it</Link>: runs wait until you do.
              </Alert>
            )}
            {source &&
              (source.accounts.length === 0 ? (
                <Alert>
                  This source has no ad accounts picked.{' '}
                  <Link href={configurationPathOf(orgId, 'source', source.id, source.platform)}>Pick its accounts</Link>, then come back.
                </Alert>
              ) : (
                <AccountChecklist
                  accounts={source.accounts}
                  picked={draft.accountIds}
                  onChange={(accountIds) => update({ accountIds })}
                  error={firstError(errors, 'accountIds')}
                  allowance={allowance}
                />
              ))}
          </fieldset>

          <fieldset className={styles.fieldset}>
            <legend className={styles.legend}>To</legend>
            <SelectField
              id="connection-destination"
              label="Destination"
              value={draft.destinationId}
              onChange={(destinationId) =>
                update({ destinationId, projectId: defaultProject(dataDestinations.find((candidate) => candidate.id === destinationId)) })
              }
              options={dataDestinations.map((candidate) => ({
                value: candidate.id,
                label: `${candidate.name} · ${PLATFORM_LABELS[candidate.platform]}`,
              }))}
              placeholder="Choose BigQuery or Mixpanel"
              error={firstError(errors, 'destinationId')}
            />
            {destination?.status === 'needs_reauth' && (
              <Alert>
                {PLATFORM_LABELS[destination.platform]} has disconnected this destination.{' '}
                <Link href={configurationPathOf(orgId, 'destination', destination.id, destination.platform)}>Reconnect it</Link>: runs wait
                until you do.
              </Alert>
            )}
            {destination && isAdDataDestination(destination.platform) && !writesTables(destination.platform) && (
              <p className="muted" style={{ margin: 0 }}>
                Each row becomes an event in {PLATFORM_LABELS[destination.platform]} project {destination.settings.projectId ?? '—'}; a row
                sent again replaces itself instead of counting twice (Mixpanel&apos;s insert id).
              </p>
            )}
            {destination && writesTables(destination.platform) && (
              <>
                {destination.accounts.length > 0 ? (
                  <SelectField
                    id="connection-project"
                    label="BigQuery project"
                    value={draft.projectId}
                    onChange={(projectId) => update({ projectId })}
                    options={destination.accounts.map((account) => ({
                      value: account.id,
                      label: account.name && account.name !== account.id ? `${account.name} · ${account.id}` : account.id,
                    }))}
                    placeholder="Choose a project"
                    error={firstError(errors, 'projectId')}
                  />
                ) : (
                  <TextField
                    id="connection-project"
                    label="BigQuery project"
                    value={draft.projectId}
                    readOnly
                    error={firstError(errors, 'projectId')}
                  />
                )}
                <div className={styles.row}>
                  <TextField
                    id="connection-dataset"
                    label="Dataset"
                    value={draft.dataset}
                    onChange={(event) => update({ dataset: event.target.value })}
                    required
                    spellCheck={false}
                    error={firstError(errors, 'dataset')}
                  />
                  <TextField
                    id="connection-table"
                    label="Table"
                    value={draft.table}
                    onChange={(event) => update({ table: event.target.value })}
                    required
                    spellCheck={false}
                    error={firstError(errors, 'table')}
                  />
                </div>
                <p className={`muted ${styles.hint}`}>
                  The dataset and table are created on the first run when they do not exist; rows are merged by date, account, campaign, ad
                  group and ad, so a day read again replaces itself.
                </p>
              </>
            )}
          </fieldset>

          <fieldset className={styles.fieldset}>
            <legend className={styles.legend}>What and when</legend>
            <LevelField
              id="connection-level"
              value={draft.level}
              onChange={(level) => update({ level })}
              error={firstError(errors, 'level')}
            />
            <ScheduleFields
              idPrefix="connection-schedule"
              orgId={orgId}
              plan={plan}
              value={draft.schedule}
              onChange={(schedule) => update({ schedule })}
              errors={errors}
            />
            <LookbackField
              id="connection-lookback"
              platform={source?.platform ?? null}
              value={lookbackText}
              onChange={(lookback) => update({ lookback })}
              error={firstError(errors, 'lookbackDays')}
            />
          </fieldset>

          <NameField
            id="connection-name"
            value={name}
            onChange={(value) => update({ name: value })}
            errors={errors}
            placeholder="Google Ads → BigQuery"
          />
          {serverFailure && <FailureAlert orgId={orgId} error={serverFailure} fallback="Could not create the connection." />}
          <div className="actions" style={{ justifyContent: 'flex-start' }}>
            <Button type="submit" busy={creating.isLoading}>
              Create connection
            </Button>
            <Link className="button button--secondary" href={connectionsPath(orgId)}>
              Cancel
            </Link>
          </div>
        </form>
      )}
    </div>
  );
}
