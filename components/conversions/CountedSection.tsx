import CountedShare from '@/components/conversions/CountedShare';
import ThresholdForm, { type ThresholdField } from '@/components/conversions/ThresholdForm';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import ScrollRegion from '@/components/ui/ScrollRegion';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import { formatDateTime } from '@/components/ui/time';
import SectionTitle from '@/components/ui/SectionTitle';
import { dayLabel, type ReconcileDay } from '@/lib/shared/conversions/reconciliation';
import { PLATFORM_LABELS, type AdPlatform } from '@/lib/shared/integrations/platforms';
import { useConversionReconciliationQuery, useSaveCountedThresholdMutation } from '@/store/reconciliationApi';

/** "8 (80 %)": a step's count and its share of the step before; "—" where the platform reports none. */
function Step({ value, of }: { value: number | null; of: number | null }) {
  if (value === null) return <span className="muted">—</span>;
  if (of === null || of === 0) return <>{value}</>;
  const percent = Math.round((value / of) * 100);
  return (
    <>
      {value} <span className={percent < 95 ? undefined : 'muted'}>({percent} %)</span>
    </>
  );
}

/** The columns after the day; on phones each is written beside its value in the day's card (`.table--cards`). */
const countedColumns = (platform: string) => [
  'Received by SignalBridge',
  'Sent',
  'Accepted by the API',
  `Received by ${platform}`,
  `Attributed by ${platform}`,
  'What it means',
];

function DayRow({ day, columns }: { day: ReconcileDay; columns: string[] }) {
  const [received, sent, accepted, platformReceived, attributed, means] = columns;
  return (
    <tr data-testid="counted-day">
      <th scope="row">
        {dayLabel(day.date)}
        {!day.final && <span className="muted"> (not final)</span>}
      </th>
      <td data-label={received}>{day.received}</td>
      <td data-label={sent}>
        <Step value={day.sent} of={day.received} />
      </td>
      <td data-label={accepted}>
        <Step value={day.accepted} of={day.sent} />
      </td>
      <td data-label={platformReceived}>
        <Step value={day.platformReceived} of={day.accepted} />
      </td>
      <td data-label={attributed}>
        <Step value={day.attributed} of={day.platformReceived ?? day.accepted} />
      </td>
      <td data-label={means}>
        {day.notes.length === 0 ? <span className="muted">—</span> : day.notes.map((note) => <p key={note}>{note}</p>)}
      </td>
    </tr>
  );
}

const FIELDS: ReadonlyArray<ThresholdField<'threshold'>> = [
  { name: 'threshold', label: 'Alert when the counted share falls under (%)', min: 1, max: 100 },
];

/**
 * "Counted by the platform" on a conversion's page: per day (the last 30 days of the ad account, in the time
 * zone its platform's read named), the events we received,
 * sent and had accepted, beside what the platform reports it received and attributed, with the ratio at
 * each step and what each gap means. The reading job fills it (hourly); nothing is read from here.
 */
export default function CountedSection({ orgId, id, canEdit }: { orgId: string; id: string; canEdit: boolean }) {
  const { data, isLoading, error, refetch } = useConversionReconciliationQuery({ orgId, id });
  const [save, saving] = useSaveCountedThresholdMutation();
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
        What we sent beside what {platform} says it received and attributed, per day ({dayZone}). Read from {platform}&apos;s reports about
        once an hour.
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
            Counted over the last 7 final days: <CountedShare summary={data.summary} threshold={data.threshold} />
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
          {/* Not keyed by the threshold: the refetch after a save must not remount the form and lose its "Saved." */}
          <ThresholdForm
            fields={FIELDS}
            saved={{ threshold: data.threshold }}
            canEdit={canEdit}
            save={({ threshold }) => save({ orgId, id, threshold })}
            saving={saving}
          />
        </>
      )}
    </section>
  );
}
