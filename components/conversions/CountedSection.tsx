import Link from 'next/link';
import { useRouter } from 'next/router';
import CountedShare from '@/components/conversions/CountedShare';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import ScrollRegion from '@/components/ui/ScrollRegion';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import { formatDateTime } from '@/components/ui/time';
import SectionTitle from '@/components/ui/SectionTitle';
import { dayLabel, type PlatformFigure, type ReconcileDay } from '@/lib/shared/conversions/reconciliation';
import { PLATFORM_LABELS, type AdPlatform } from '@/lib/shared/integrations/platforms';
import { useConversionReconciliationQuery } from '@/store/reconciliationApi';

const count = (value: number) => value.toLocaleString('en-US');

/** "490 (98 %)": what the platform received of what we sent that day, and its share. */
function Received({ day }: { day: ReconcileDay }) {
  if (day.sent === 0) return <span className="muted">—</span>;
  const percent = Math.floor((day.received * 100) / day.sent);
  return (
    <>
      {count(day.received)} <span className={day.received < day.sent ? undefined : 'muted'}>({percent} %)</span>
    </>
  );
}

/** The loss of a day, linking to that day's platform calls in the delivery log (the page's address with `?day=`). */
function NotReceived({ day }: { day: ReconcileDay }) {
  const router = useRouter();
  const lost = day.sent - day.received;
  if (lost === 0) return <span className="muted">0</span>;
  return (
    <>
      <strong style={{ color: 'var(--danger)' }}>{count(lost)}</strong>{' '}
      <Link href={{ pathname: router.pathname, query: { ...router.query, tab: 'log', day: day.date } }} shallow scroll={false}>
        {dayLabel(day.date)} in the delivery log
      </Link>
    </>
  );
}

/** The platform's own figures, each with whose events it covers: wider than this conversion, so never a ratio. */
function TheirFigures({ day }: { day: ReconcileDay }) {
  const figures = [day.platform.received, day.platform.attributed].filter((figure): figure is PlatformFigure => figure !== null);
  if (figures.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {figures.map((figure) => (
        <p key={figure.scope} style={{ margin: 0 }}>
          <strong>{count(figure.count)}</strong> <span className="muted">{figure.scope}</span>
        </p>
      ))}
    </>
  );
}

/** The columns after the day; on phones each is written beside its value in the day's card (`.table--cards`). */
const countedColumns = (platform: string) => [
  'Sent',
  `Received by ${platform}`,
  'Not received',
  `What ${platform} reports (all its senders)`,
  'What it means',
];

function DayRow({ day, columns }: { day: ReconcileDay; columns: string[] }) {
  const [sent, received, notReceived, theirs, means] = columns;
  return (
    <tr data-testid="counted-day">
      <th scope="row">
        {dayLabel(day.date)}
        {!day.final && <span className="muted"> (not final)</span>}
      </th>
      <td data-label={sent}>{count(day.sent)}</td>
      <td data-label={received}>
        <Received day={day} />
      </td>
      <td data-label={notReceived}>
        <NotReceived day={day} />
      </td>
      <td data-label={theirs}>
        <TheirFigures day={day} />
      </td>
      <td data-label={means}>
        {day.notes.length === 0 ? <span className="muted">—</span> : day.notes.map((note) => <p key={note}>{note}</p>)}
      </td>
    </tr>
  );
}

/**
 * "Counted by the platform" on a conversion's page: did the platform get what this conversion sent? Per day (the
 * last 30 days of the ad account, in the time zone its platform's read named), what we sent and what the platform
 * received of it (the one figure: the rest is a loss, each day's linking to its calls in the delivery log), beside
 * what the platform reports itself with whose events each figure covers, and what drives its attribution
 * (information, not a loss). The reading job fills it (hourly); nothing is read from here.
 */
export default function CountedSection({ orgId, id }: { orgId: string; id: string }) {
  const router = useRouter();
  const { data, isLoading, error, refetch } = useConversionReconciliationQuery({ orgId, id });
  const platform = data ? PLATFORM_LABELS[data.platform as AdPlatform] : 'the platform';
  // The read names the account's time zone its days are in (our counts are summed into them): said as the data says, whatever the platform.
  const zone = data?.summary.timeZone ?? null;
  const accountDays = zone !== null && zone !== 'UTC';
  const dayZone = accountDays ? `the ad account's time zone, ${zone}` : 'UTC';
  const days = data ? [...data.days].reverse() : [];
  return (
    <section className="stack" id="counted" aria-labelledby="counted-title">
      <SectionTitle id="counted-title">Counted by the platform</SectionTitle>
      <p className="muted" style={{ margin: 0 }}>
        Did {platform} get what this conversion sent? Per day ({dayZone}), what we sent and what {platform} received of it, beside what{' '}
        {platform} reports itself. Read from {platform}&apos;s reports about once an hour.
      </p>
      {isLoading ? (
        <Spinner label="Loading what the platform counted" />
      ) : error || !data ? (
        <Alert>
          {messageOf(error, 'What the platform counted could not be loaded.')}{' '}
          <button type="button" className="link-button" onClick={() => void refetch()}>
            Try again
          </button>
        </Alert>
      ) : (
        <>
          <p style={{ margin: 0 }}>
            Received by {platform} over the last 7 final days: <CountedShare summary={data.summary} threshold={data.threshold} />
            {data.summary.readAt && <span className="muted"> · read {formatDateTime(data.summary.readAt)}</span>}
          </p>
          {data.summary.state === 'needs_scope' && <Alert>{data.summary.message}</Alert>}
          {data.summary.state === 'failed' && data.summary.message && (
            <p className="muted" role="status" style={{ margin: 0 }}>
              The last read failed: {data.summary.message}
            </p>
          )}
          {data.summary.state === 'not_read' ? (
            <div className="empty-state" data-testid="counted-empty">
              <p>Not read yet. The first read of {platform}&apos;s reports comes within the hour.</p>
            </div>
          ) : days.length === 0 ? (
            <div className="empty-state" data-testid="counted-empty">
              <p>Nothing sent in the last 30 days, and nothing counted by {platform}.</p>
            </div>
          ) : (
            <ScrollRegion label={`Counted by ${platform} per day (scrolls sideways)`}>
              {/* On phones a card per day: "What it means" under the figures, not off the screen in a tall row. */}
              <table className="table table--cards" aria-label={`Counted by ${platform}, per day`}>
                <TableHead columns={[accountDays ? 'Day (account time)' : 'Day (UTC)', ...countedColumns(platform)]} actions={false} />
                <tbody>
                  {days.map((day) => (
                    <DayRow key={day.date} day={day} columns={countedColumns(platform)} />
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
          {data.attribution && (
            <p className="muted" style={{ margin: 0 }} data-testid="counted-attribution">
              <strong>Attributed to ads</strong> is information, not a loss, and never alerts: {data.attribution}
            </p>
          )}
          <p className="muted" style={{ margin: 0 }}>
            The team is alerted when {platform} received less than {data.threshold} % of what the conversion sent over the last 7 final days
            (at least 10 events). The threshold is set in{' '}
            <Link href={{ pathname: router.pathname, query: { ...router.query, tab: 'settings' } }} shallow scroll={false}>
              Settings
            </Link>
            , with the other alerts.
          </p>
        </>
      )}
    </section>
  );
}
