import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useRouter } from 'next/router';
import { Fragment, useState } from 'react';
import styles from '@/components/conversions/conversions.module.css';
import {
  conversionsPath,
  ConversionStatusBadge,
  destinationPath,
  MappingInWords,
  sourceLabel,
  targetLabel,
} from '@/components/conversions/shared';
import { RelativeTime, useNow, usePageVisible } from '@/components/ui/time';
import { FailureAlert, fieldErrorsOf, firstError } from '@/components/ui/failures';
import TextField from '@/components/ui/TextField';
import { LoadFailed, messageOf, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Button from '@/components/ui/Button';
import DeleteButton from '@/components/ui/DeleteButton';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import Spinner from '@/components/ui/Spinner';
import { Stat, Stats } from '@/components/ui/Stats';
import SectionTitle from '@/components/ui/SectionTitle';
import { TabPanel, Tabs, type TabItem } from '@/components/ui/Tabs';
import { outcomeTextStyle } from '@/components/conversions/Outcomes';
import { OUTCOME_ORDER, OUTCOMES, outcomeOf, splitUndelivered } from '@/lib/shared/outcomes';
import { DELIVERY_STATUS_LABELS, isWarehouseSource, type Conversion, type DeliveryRow } from '@/lib/shared/conversions/conversion';
import { CONVERSION_TARGET_LABEL, isAdPlatform, PLATFORM_LABELS, takesTestEventCode } from '@/lib/shared/integrations/platforms';
import { can, type Role } from '@/lib/shared/permissions';
import { alsoSendingInWords } from '@/lib/shared/conversions/whereEventsGo';
import {
  useConversionQuery,
  useConversionsQuery,
  useDeleteConversionMutation,
  useRetryConversionMutation,
  useSendTestEventMutation,
  useUpdateConversionMutation,
  type ConversionDetail,
} from '@/store/conversionsApi';
import { useAppsQuery, useIntegrationsQuery, usePaymentsQuery } from '@/store/integrationsApi';

// The chart, the delivery log, the edit form (behind Edit) and a warehouse conversion's reads load beside the page, not in its first load.
const DeliveryChart = dynamic(() => import('@/components/conversions/DeliveryChart'), {
  loading: () => <Spinner label="Loading the chart" />,
});
const EditMappingForm = dynamic(() => import('@/components/conversions/EditMappingForm'), {
  loading: () => <Spinner label="Loading the form" />,
});
const DeliveryLog = dynamic(() => import('@/components/conversions/DeliveryLog'), {
  loading: () => <Spinner label="Loading the delivery log" />,
});
const MatchQualitySection = dynamic(() => import('@/components/conversions/MatchQualitySection'), {
  loading: () => <Spinner label="Loading match quality" />,
});
const AlertThreshold = dynamic(() => import('@/components/conversions/AlertThreshold'), {
  loading: () => <Spinner label="Loading the alert threshold" />,
});
const CountedSection = dynamic(() => import('@/components/conversions/CountedSection'), {
  loading: () => <Spinner label="Loading what the platform counted" />,
});
const ReadSection = dynamic(() => import('@/components/conversions/ReadSection'), { loading: () => <Spinner label="Loading the reads" /> });

const REFRESH_MS = 10_000;

/** The delivery log's tab, where the test event's call is listed. */
function LogLink() {
  const router = useRouter();
  const query: Record<string, string | string[] | undefined> = { ...router.query, tab: 'log' };
  delete query.day;
  return (
    <Link href={{ pathname: router.pathname, query }} shallow scroll={false}>
      See it in the delivery log
    </Link>
  );
}

/** What became of the test event, in words. */
function TestOutcome({ row, platform }: { row: DeliveryRow; platform: string }) {
  if (row.status === 'delivered') {
    return (
      <div role="status" className="alert alert--success">
        <strong>{DELIVERY_STATUS_LABELS.delivered}.</strong> {platform} accepted the test event
        {row.maskedEmail ? ` for ${row.maskedEmail}` : ''}. It is marked as a test, so it does not count in your reports. <LogLink />
      </div>
    );
  }
  return (
    <div role="alert" className="alert alert--error">
      <strong>{DELIVERY_STATUS_LABELS[row.status]}.</strong>{' '}
      {row.reason
        ? row.status === 'rejected'
          ? `${platform} refused it: ${row.reason}`
          : row.reason
        : OUTCOMES[outcomeOf(row.status)].meaning}{' '}
      <LogLink />
    </div>
  );
}

/** Pause / Resume and Send test event, with a spinner while the test goes and its outcome once it is back. */
function Actions({
  orgId,
  conversion,
  onNotice,
}: {
  orgId: string;
  conversion: Conversion;
  onNotice: (notice: NoticeValue | null) => void;
}) {
  const [send, test] = useSendTestEventMutation();
  const [update, updating] = useUpdateConversionMutation();
  const platform = PLATFORM_LABELS[conversion.destination.platform];
  // Meta shows a test event under the code its Test events tool gives; the other platforms have none.
  const [testEventCode, setTestEventCode] = useState('');
  const takesCode = takesTestEventCode(conversion.destination.platform);
  const codeError = firstError(fieldErrorsOf(test.error), 'testEventCode');

  async function setStatus(status: 'active' | 'paused') {
    onNotice(null);
    const result = await update({ orgId, id: conversion.id, changes: { status } });
    // Pausing shows its own notice (the paused state); resuming says it worked.
    if (!('error' in result) && status === 'active') onNotice({ ok: true, text: `Resumed. New events go to ${platform} again.` });
  }

  return (
    <section className="stack" aria-label="Actions" style={{ gap: '0.75rem' }}>
      <div className="actions" style={{ justifyContent: 'flex-start', alignItems: 'center' }}>
        {conversion.status === 'paused' ? (
          <Button type="button" busy={updating.isLoading} onClick={() => void setStatus('active')}>
            Resume
          </Button>
        ) : (
          <Button type="button" variant="secondary" busy={updating.isLoading} onClick={() => void setStatus('paused')}>
            Pause
          </Button>
        )}
        {conversion.status !== 'needs_reauth' && (
          <Button
            type="button"
            variant="secondary"
            busy={test.isLoading}
            onClick={() =>
              void send({ orgId, id: conversion.id, ...(takesCode && testEventCode.trim() ? { testEventCode: testEventCode.trim() } : {}) })
            }
          >
            Send test event
          </Button>
        )}
      </div>
      {/* Beside the test event it is for, folded: most tests need no code (Meta's Test events tool gives one). */}
      {takesCode && conversion.status !== 'needs_reauth' && (
        <details>
          <summary className="muted">Send it under a Meta test event code (optional)</summary>
          <TextField
            label="Meta test event code (optional)"
            value={testEventCode}
            onChange={(event) => setTestEventCode(event.target.value)}
            maxLength={64}
            placeholder="TEST12345, from Events Manager → Test events"
            error={codeError}
          />
        </details>
      )}
      {updating.error && <FailureAlert orgId={orgId} error={updating.error} fallback="Could not change the status." />}
      <div aria-live="polite">
        {test.isLoading ? (
          <p className={`muted ${styles.outcome}`} style={{ margin: 0 }}>
            <Spinner /> Sending a test event to {platform}…
          </p>
        ) : test.error && !codeError ? (
          <FailureAlert orgId={orgId} error={test.error} fallback="Could not send the test event." />
        ) : test.data ? (
          <TestOutcome row={test.data.row} platform={platform} />
        ) : null}
      </div>
    </section>
  );
}

function Settings({
  orgId,
  conversion,
  canEdit,
  onSaved,
}: {
  orgId: string;
  conversion: Conversion;
  canEdit: boolean;
  onSaved: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const { data: apps } = useAppsQuery(orgId);
  const { data: payments } = usePaymentsQuery(orgId);
  const { data: destinations } = useIntegrationsQuery({ orgId, kind: 'destination' });
  const { destination: where, mapping } = conversion;
  const destination = destinations?.find((candidate) => candidate.id === where.destinationId);
  const account = destination?.accounts.find((candidate) => candidate.id === where.accountId);
  return (
    <section className="stack" aria-labelledby="settings-title">
      <div className="toolbar">
        <SectionTitle id="settings-title">Source, destination and mapping</SectionTitle>
        {canEdit && !editing && (
          <Button type="button" variant="secondary" className="button--small" onClick={() => setEditing(true)}>
            Edit name and mapping
          </Button>
        )}
      </div>
      <dl className={styles.review}>
        <dt>Source</dt>
        <dd>{sourceLabel(conversion.source, apps, payments)}</dd>
        <dt>Destination</dt>
        <dd>
          <Link href={destinationPath(orgId, where.destinationId)}>{destination?.name ?? PLATFORM_LABELS[where.platform]}</Link> (
          {PLATFORM_LABELS[where.platform]})
        </dd>
        <dt>
          {isAdPlatform(where.platform)
            ? 'Ad account'
            : where.platform === 'bigquery'
              ? 'Project'
              : CONVERSION_TARGET_LABEL[where.platform]}
        </dt>
        <dd>{account ? `${account.name || account.id} · ${account.id}` : where.accountId}</dd>
        <dt>{CONVERSION_TARGET_LABEL[where.platform]}</dt>
        {/* A warehouse table is named in full; an ad platform's target also shows the id the platform uses. */}
        <dd>{where.platform === 'bigquery' ? where.targetName : `${where.targetName} · ${where.targetId}`}</dd>
        <MappingInWords source={conversion.source} mapping={mapping} />
      </dl>
      {editing && (
        <EditMappingForm
          orgId={orgId}
          conversion={conversion}
          onDone={(saved) => {
            setEditing(false);
            if (saved) onSaved();
          }}
        />
      )}
    </section>
  );
}

/** Held, failed and paused events, and the way out of each. */
function StateNotices({
  orgId,
  detail,
  canEdit,
  onNotice,
}: {
  orgId: string;
  detail: ConversionDetail;
  canEdit: boolean;
  onNotice: (notice: NoticeValue) => void;
}) {
  const { conversion, parked } = detail;
  const [retry, retrying] = useRetryConversionMutation();
  const platform = PLATFORM_LABELS[conversion.destination.platform];
  const reconnect = <Link href={destinationPath(orgId, conversion.destination.destinationId)}>Reconnect {platform}</Link>;
  const held =
    parked.held > 0
      ? `${parked.held} ${parked.held === 1 ? 'event is' : 'events are'} held until you reconnect; they are sent after you do.`
      : '';

  async function retryFailed() {
    const result = await retry({ orgId, id: conversion.id });
    onNotice(
      'error' in result
        ? { ok: false, text: messageOf(result.error, 'Could not send the failed events again.') }
        : {
            ok: true,
            text: `${result.data.replayed} ${result.data.replayed === 1 ? 'event was' : 'events were'} sent again. The log shows how they went.`,
          },
    );
  }

  return (
    <>
      {conversion.status === 'needs_reauth' ? (
        <div role="alert" className="alert alert--error stack" style={{ gap: '0.4rem' }}>
          <strong>Held until you reconnect.</strong>
          <span>
            {conversion.statusReason ?? `${platform} has disconnected this destination.`} {held}
          </span>
          <span>{reconnect}</span>
        </div>
      ) : (
        parked.held > 0 && (
          <div role="alert" className="alert alert--error">
            <strong>Held until you reconnect.</strong> {held} {reconnect}
          </div>
        )
      )}
      {conversion.status === 'paused' && conversion.pausedByPlan && (
        <div role="alert" className="alert alert--error" data-testid="paused-by-plan">
          {conversion.pausedByPlan} <Link href={`/${encodeURIComponent(orgId)}/subscription`}>See the plans</Link>
        </div>
      )}
      {conversion.status === 'paused' && !conversion.pausedByPlan && (
        <p role="status" className="alert alert--info">
          Paused: new events are not sent to {platform} until you resume it.
        </p>
      )}
      {parked.failed > 0 && (
        <div
          role="alert"
          className="alert alert--error"
          style={{ display: 'flex', gap: '0.75rem', alignItems: 'center', flexWrap: 'wrap' }}
        >
          <span>
            <strong>
              {parked.failed} {OUTCOMES.failed.word}.
            </strong>{' '}
            {parked.failed === 1 ? 'This event' : 'These events'} could not reach {platform} after several tries; Retry sends{' '}
            {parked.failed === 1 ? 'it' : 'them'} again.
          </span>
          {canEdit && (
            <Button type="button" className="button--small" busy={retrying.isLoading} onClick={() => void retryFailed()}>
              Retry
            </Button>
          )}
        </div>
      )}
    </>
  );
}

type TabKey = 'overview' | 'log' | 'quality' | 'counted' | 'settings';

/** The page's sections, a tab each, in the order a marketer looks: how it goes, each event, match keys, the platform's count, settings. */
const TABS: ReadonlyArray<TabItem<TabKey>> = [
  { key: 'overview', label: 'Overview' },
  { key: 'log', label: 'Delivery log' },
  { key: 'quality', label: 'Match quality' },
  { key: 'counted', label: 'Counted' },
  { key: 'settings', label: 'Settings' },
];

/**
 * The tab the address names: `?tab=`; else a log's day (`?day=`, what a loss in Counted links to) opens the
 * log; else an older link's anchor (`#log`, `#counted`: alerts sent before the tabs); else the overview.
 */
function tabOf(query: Record<string, string | string[] | undefined>, asPath: string, tabs: ReadonlyArray<TabItem<TabKey>>): TabKey {
  const known = (value: unknown) => tabs.find((candidate) => candidate.key === value)?.key;
  const hash = asPath.includes('#') ? asPath.slice(asPath.indexOf('#') + 1) : '';
  return known(query.tab) ?? (typeof query.day === 'string' ? 'log' : undefined) ?? known(hash) ?? 'overview';
}

/** What the four outcome words mean, said once where the figures are. */
function OutcomeMeanings() {
  return (
    <details>
      <summary className="muted">What delivered, not sent, failed and held mean</summary>
      <dl className={styles.review} data-testid="outcome-meanings">
        {OUTCOME_ORDER.map((outcome) => (
          <Fragment key={outcome}>
            <dt>{OUTCOMES[outcome].label}</dt>
            <dd>{OUTCOMES[outcome].meaning}</dd>
          </Fragment>
        ))}
      </dl>
    </details>
  );
}

function ConversionConfiguration({ orgId, role, plan, id }: { orgId: string; role: Role; plan: unknown; id: string }) {
  const router = useRouter();
  const now = useNow();
  const visible = usePageVisible();
  const [autoRefresh, setAutoRefresh] = useState(true);
  const pollingInterval = autoRefresh && visible ? REFRESH_MS : 0;
  const { data: detail, isLoading, error, refetch } = useConversionQuery({ orgId, id }, { pollingInterval });
  const [remove] = useDeleteConversionMutation();
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  const { data: apps } = useAppsQuery(orgId);
  const { data: payments } = usePaymentsQuery(orgId);
  const { data: siblings } = useConversionsQuery(orgId);
  const counted = detail ? isAdPlatform(detail.conversion.destination.platform) : false;
  const tabs = counted ? TABS : TABS.filter((candidate) => candidate.key !== 'counted');
  const tab = tabOf(router.query, router.asPath, tabs);

  /** A tab is a place in the address (`?tab=log`): pushed, so Back returns to the tab before; a day of the log stays with the log only. */
  function selectTab(key: TabKey) {
    const query: Record<string, string | string[] | undefined> = { ...router.query, tab: key };
    if (key === 'overview') delete query.tab;
    if (key !== 'log') delete query.day;
    void router.push({ pathname: router.pathname, query }, undefined, { shallow: true, scroll: false });
  }

  // A failed refresh keeps what was loaded; only a first load that failed shows the reason instead.
  if (!detail)
    return isLoading || !error ? (
      <Spinner label="Loading the conversion" />
    ) : (
      <LoadFailed title="Conversion" error={error} fallback="Conversion not found." />
    );
  const { conversion, last24h } = detail;
  const canEdit = can(role, 'conversion', 'update');
  const platform = PLATFORM_LABELS[conversion.destination.platform];
  // One model with the app page: an app's routing (or another conversion) of the same source to the same platform.
  const alsoSending = siblings ? alsoSendingInWords(conversion, siblings, platform) : null;
  const undelivered = splitUndelivered(last24h);

  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Title>{conversion.name}</Title>
      <div className="stack" style={{ gap: '0.4rem' }}>
        <p style={{ margin: 0 }}>
          <Link href={conversionsPath(orgId)}>← Conversions</Link>
        </p>
        <h1>{conversion.name}</h1>
        <p className="muted" style={{ margin: 0 }}>
          {sourceLabel(conversion.source, apps, payments)} →{' '}
          {targetLabel(conversion.destination.platform, conversion.destination.targetName)}{' '}
          <ConversionStatusBadge status={conversion.status} pausedByPlan={conversion.pausedByPlan} />
        </p>
        {alsoSending && (
          <p className="alert alert--info" role="note" data-testid="also-sending" style={{ margin: 0 }}>
            {alsoSending}
          </p>
        )}
      </div>

      <StateNotices orgId={orgId} detail={detail} canEdit={canEdit} onNotice={setNotice} />
      <Notice notice={notice} />
      {canEdit && <Actions orgId={orgId} conversion={conversion} onNotice={setNotice} />}

      <Tabs label="Conversion sections" idPrefix="conversion" tabs={tabs} selected={tab} onSelect={selectTab} />
      <TabPanel idPrefix="conversion" tab={tab}>
        {tab === 'overview' && (
          <>
            <Stats label="Deliveries" large>
              <Stat label={`${OUTCOMES.delivered.label}, last 24 h`}>{last24h.delivered}</Stat>
              <Stat
                label={`${OUTCOMES.not_sent.label}, last 24 h`}
                valueStyle={undelivered.notSent > 0 ? outcomeTextStyle('not_sent') : undefined}
              >
                {undelivered.notSent}
              </Stat>
              <Stat label={`${OUTCOMES.failed.label}, last 24 h`}>{undelivered.failed}</Stat>
              <Stat label="Last delivery">
                {conversion.lastDeliveryAt ? <RelativeTime iso={conversion.lastDeliveryAt} now={now} /> : 'Never'}
              </Stat>
            </Stats>
            <OutcomeMeanings />
            {isWarehouseSource(conversion.source) && (
              <ReadSection
                orgId={orgId}
                plan={plan}
                conversion={{ ...conversion, source: conversion.source }}
                canEdit={canEdit}
                now={now}
              />
            )}
            <DeliveryChart hours={detail.hours} now={now} />
          </>
        )}
        {tab === 'log' && (
          <DeliveryLog
            orgId={orgId}
            id={id}
            pollingInterval={pollingInterval}
            autoRefresh={autoRefresh}
            onAutoRefreshChange={setAutoRefresh}
            onRefresh={() => refetch()}
          />
        )}
        {tab === 'quality' && <MatchQualitySection orgId={orgId} id={id} platform={platform} />}
        {tab === 'counted' && <CountedSection orgId={orgId} id={id} />}
        {tab === 'settings' && (
          <>
            <Settings
              key={`${conversion.name}|${JSON.stringify(conversion.mapping)}`}
              orgId={orgId}
              conversion={conversion}
              canEdit={canEdit}
              onSaved={() => setNotice({ ok: true, text: 'Saved.' })}
            />
            <AlertThreshold orgId={orgId} id={id} canEdit={canEdit} counted={counted} />
            {can(role, 'conversion', 'delete') && (
              <section className="stack" aria-labelledby="danger-title">
                <SectionTitle id="danger-title">Delete</SectionTitle>
                <p className="muted" style={{ margin: 0 }}>
                  Deleting stops sending to {platform} and removes the delivery log and any held or failed events.
                </p>
                <div>
                  <DeleteButton
                    name={conversion.name}
                    confirmLabel="Delete conversion"
                    small
                    explanation={() => (
                      <p>
                        Events stop going to {platform} at once. The delivery log and the events waiting for Retry or Reconnect are deleted
                        with it.
                      </p>
                    )}
                    onDelete={async () => {
                      const result = await remove({ orgId, id });
                      return 'error' in result ? messageOf(result.error, 'Could not delete the conversion.') : null;
                    }}
                    onDeleted={() => void router.push(conversionsPath(orgId))}
                  />
                </div>
              </section>
            )}
          </>
        )}
      </TabPanel>
    </div>
  );
}

/** `/{orgId}/conversion/{id}/configuration`. */
export function ConversionConfigurationPage() {
  const { query } = useRouter();
  const { orgId, role, plan } = useOrganizationContext();
  const id = typeof query.id === 'string' ? query.id : null;
  if (!orgId || !role || !id) return <Spinner label="Loading" />;
  return <ConversionConfiguration key={id} orgId={orgId} role={role} plan={plan} id={id} />;
}
