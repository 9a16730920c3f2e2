import { useRouter } from 'next/router';
import { useState, type FormEvent } from 'react';
import styles from '@/components/conversions/conversions.module.css';
import { formatDateTime } from '@/components/ui/time';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import TextField from '@/components/ui/TextField';
import SectionTitle from '@/components/ui/SectionTitle';
import RowDebugger from '@/components/conversions/RowDebugger';
import { OutcomeBadge } from '@/components/conversions/Outcomes';
import { filteredInWords, type DeliveryRecord, type DeliveryRow } from '@/lib/shared/conversions/conversion';
import { outcomeCountsInWords } from '@/lib/shared/outcomes';
import { dayLabel } from '@/lib/shared/conversions/reconciliation';
import { useDeliveriesQuery } from '@/store/conversionsApi';

/** A row of a record, and when opened, what was sent for the event and the platform's answer below it. */
function LogRow({ orgId, id, record, row }: { orgId: string; id: string; record: DeliveryRecord; row: DeliveryRow }) {
  const [open, setOpen] = useState(false);
  const panelId = `row-${record.id}-${row.id}`;
  return (
    <>
      <tr>
        <td className={styles.logId}>
          <code>{row.id}</code>
        </td>
        <td data-label="Email" className={styles.logWhole}>
          {row.maskedEmail ?? <span className="muted">—</span>}
        </td>
        <td data-label="Status" className={styles.logWhole}>
          <OutcomeBadge status={row.status} />
        </td>
        <td data-label="Reason" className={styles.logReason}>
          {row.reason ? (
            row.status === 'rejected' ? (
              `The platform refused it: ${row.reason}`
            ) : (
              row.reason
            )
          ) : (
            <span className="muted">—</span>
          )}
        </td>
        <td className="actions">
          <Button
            type="button"
            variant="secondary"
            className="button--small"
            aria-expanded={open}
            aria-controls={open ? panelId : undefined}
            onClick={() => setOpen(!open)}
          >
            {/* The visible words start the button's name (WCAG 2.5.3): a voice user says what they see. */}
            {open ? 'Hide' : 'What was sent'}
            <span className="sr-only"> for event {row.id}</span>
          </Button>
        </td>
      </tr>
      {open && (
        <tr id={panelId}>
          <td colSpan={5} className={styles.logPanel}>
            <RowDebugger orgId={orgId} id={id} deliveryId={record.id} eventId={row.id} />
          </td>
        </tr>
      )}
    </>
  );
}

function LogLine({ orgId, id, record }: { orgId: string; id: string; record: DeliveryRecord }) {
  return (
    <li>
      <details>
        <summary className={styles.logSummary}>
          <time className={styles.logTime} dateTime={record.at}>
            {formatDateTime(record.at)}
          </time>
          {record.test && <span className="badge">Test</span>}
          <span>{outcomeCountsInWords(record.counts)}</span>
          <span className="muted">{record.latencyMs === null ? 'nothing sent to the platform' : `${record.latencyMs} ms`}</span>
        </summary>
        <div className={styles.logRows}>
          {/* Cards on phones (globals.css `.table--cards`): the event id is the card's title, each value under its column's name. */}
          <table className="table--cards">
            <TableHead columns={['Event id', 'Email', 'Status', 'Reason']} />
            <tbody>
              {record.rows.map((row) => (
                <LogRow key={row.id} orgId={orgId} id={id} record={record} row={row} />
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </li>
  );
}

interface Props {
  orgId: string;
  id: string;
  /** 0: no automatic refresh. */
  pollingInterval: number;
  autoRefresh: boolean;
  onAutoRefreshChange: (on: boolean) => void;
  /** Refreshes what the rest of the page shows (status, chart, parked events). */
  onRefresh: () => Promise<unknown>;
}

/** `?day=YYYY-MM-DD` of the page's address (with `tab=log`): the day a gap in "Counted by the platform" links to. */
const dayOf = (value: unknown) => (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined);

/**
 * One line per platform call, newest first, each unfolding to its events; the calls that held one event id; or,
 * with `?day=` in the address (a gap in "Counted by the platform" links there), the calls of that day.
 */
export default function DeliveryLog({ orgId, id, pollingInterval, autoRefresh, onAutoRefreshChange, onRefresh }: Props) {
  const router = useRouter();
  const day = dayOf(router.query.day);
  const [search, setSearch] = useState('');
  const [eventId, setEventId] = useState<string | undefined>(undefined);
  const [refreshing, setRefreshing] = useState(false);
  const {
    data: answer,
    isLoading,
    isFetching,
    error,
    refetch,
  } = useDeliveriesQuery({ orgId, id, eventId, limit: day ? 100 : 20, day }, { pollingInterval });
  const data = answer?.deliveries;
  // Every call again: the address without its day (the page stays where it is).
  const showEveryDay = () => {
    const query = { ...router.query };
    delete query.day;
    void router.replace({ pathname: router.pathname, query }, undefined, { shallow: true, scroll: false });
  };
  const dayWords = answer?.day
    ? `${dayLabel(answer.day.date)} (${answer.day.timeZone === 'UTC' ? 'UTC' : `the ad account's day, ${answer.day.timeZone}`})`
    : null;

  function find(event: FormEvent) {
    event.preventDefault();
    setEventId(search.trim() || undefined);
  }

  async function refresh() {
    setRefreshing(true);
    await Promise.allSettled([refetch(), onRefresh()]);
    setRefreshing(false);
  }

  return (
    <section className="stack" id="log" aria-labelledby="log-title">
      <div className="toolbar">
        <SectionTitle id="log-title">Delivery log</SectionTitle>
        <div className="actions" style={{ alignItems: 'center' }}>
          <label className="muted" style={{ display: 'flex', gap: '0.4rem', alignItems: 'center', fontSize: '0.9rem' }}>
            <input type="checkbox" checked={autoRefresh} onChange={(event) => onAutoRefreshChange(event.target.checked)} />
            Refresh every 10 s
          </label>
          <Button type="button" variant="secondary" className="button--small" busy={refreshing} onClick={() => void refresh()}>
            Refresh
          </Button>
        </div>
      </div>
      <form className="inline-form" role="search" aria-label="Find an event in the log" onSubmit={find}>
        <TextField
          label="Event id"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          maxLength={100}
          placeholder="The id your form or payment sent"
        />
        <Button type="submit" variant="secondary">
          Find
        </Button>
        {day && (
          <Button type="button" variant="secondary" onClick={showEveryDay}>
            Every day
          </Button>
        )}
        {eventId && (
          <Button
            type="button"
            variant="secondary"
            onClick={() => {
              setSearch('');
              setEventId(undefined);
            }}
          >
            Show all
          </Button>
        )}
      </form>
      {isLoading || (isFetching && !data) ? (
        <Spinner label="Loading the delivery log" />
      ) : error ? (
        <Alert>{messageOf(error, 'Could not load the delivery log.')}</Alert>
      ) : !data || data.length === 0 ? (
        <p className="empty-state" data-testid="log-empty">
          {answer?.filtered
            ? `“${eventId}” was not sent: ${filteredInWords(answer.filtered)} (${formatDateTime(answer.filtered.at)}).`
            : eventId
              ? `No delivery holds the event id “${eventId}” (the log keeps 30 days).`
              : dayWords
                ? `No platform call on ${dayWords}.`
                : 'No deliveries yet. Each call to the platform appears here; send a test event to see one.'}
        </p>
      ) : (
        <>
          <p className="muted" style={{ margin: 0 }}>
            {eventId
              ? `Platform calls that held the event “${eventId}”.`
              : dayWords
                ? `Platform calls on ${dayWords}${data.length === 100 ? ', the latest 100' : ''}, newest first. Open one to see its events and why any was not sent.`
                : `The latest ${data.length === 1 ? 'platform call' : `${data.length} platform calls`}, newest first. Open one to see its events.`}
          </p>
          <ul className={styles.log} aria-label="Delivery log">
            {data.map((record) => (
              <LogLine key={record.id} orgId={orgId} id={id} record={record} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
