import styles from '@/components/conversions/conversions.module.css';
import { FailureAlert } from '@/components/ui/failures';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import { formatDateTime } from '@/components/ui/time';
import SectionTitle from '@/components/ui/SectionTitle';
import { MATCH_KEY_LABELS as KEY_LABELS, type MatchKey } from '@/lib/shared/conversions/matchKeys';
import type { MatchCounts, PlatformMeasure } from '@/lib/shared/conversions/quality';
import { useMatchQualityQuery } from '@/store/conversionsApi';

const REQUEST_STATUS_WORDS: Record<string, string> = {
  SUCCESS: 'processed',
  PROCESSING: 'still being processed',
  FAILED: 'failed',
  PARTIAL_SUCCESS: 'partly processed',
};

/** PROCESSING_ERROR_REASON_DUPLICATE_TRANSACTION_ID → "duplicate transaction id". */
const words = (code: string) =>
  code
    .replace(/^PROCESSING_(ERROR|WARNING)_(REASON_)?/, '')
    .replace(/_/g, ' ')
    .toLowerCase();

function Share({ counts, matchKey }: { counts: MatchCounts; matchKey: MatchKey }) {
  if (counts.events === 0) return <span className="muted">—</span>;
  const carried = counts.keys[matchKey];
  const share = carried / counts.events;
  return (
    <span className={styles.share}>
      <meter min={0} max={1} low={0.5} high={0.9} optimum={1} value={share} aria-hidden="true" />
      <span>
        <strong>{Math.round(share * 100)} %</strong>{' '}
        <span className="muted">
          ({carried} of {counts.events})
        </span>
      </span>
    </span>
  );
}

function PlatformFigure({ measure, platform }: { measure: PlatformMeasure; platform: string }) {
  if (measure.status === 'not_reported')
    return (
      <p className="muted" style={{ margin: 0 }}>
        Not reported yet. {measure.message}
      </p>
    );
  if (measure.status === 'unavailable')
    return (
      <p className="muted" style={{ margin: 0 }}>
        Could not read what {platform} reports now: {measure.message}
      </p>
    );
  if (measure.kind === 'event_scores')
    return (
      <div className="stack" style={{ gap: '0.5rem' }}>
        <p className="muted" style={{ margin: 0 }}>
          {platform} scores each event name of the pixel for all its senders together: the score of an event below covers this conversion
          and any other conversion or tool sending that event there. Only the events this conversion sent are listed.
        </p>
        <div className={styles.quality}>
          <table aria-label={`Event Match Quality of this conversion's events, as ${platform} reports it`}>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Event Match Quality</th>
                <th scope="col">Share of events with each key</th>
                <th scope="col">What {platform} found</th>
              </tr>
            </thead>
            <tbody>
              {measure.events.map((event) => (
                <tr key={event.eventName} data-testid="platform-event-score">
                  <th scope="row">{event.eventName}</th>
                  <td>{event.score === null ? <span className="muted">—</span> : <strong>{event.score} / 10</strong>}</td>
                  <td>
                    {event.keys.length === 0 ? (
                      <span className="muted">—</span>
                    ) : (
                      event.keys.map((key) => `${key.label} ${key.percentage} %`).join(' · ')
                    )}
                  </td>
                  <td>
                    {event.diagnostics.length === 0 ? (
                      <span className="muted">Nothing to fix</span>
                    ) : (
                      event.diagnostics.map((diagnostic) => (
                        <p key={diagnostic.name} style={{ margin: '0 0 0.25rem' }}>
                          {diagnostic.text}
                        </p>
                      ))
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    );
  const problems = [
    ...measure.errors.map((item) => ({ ...item, kind: 'refused' })),
    ...measure.warnings.map((item) => ({ ...item, kind: 'warned' })),
  ];
  return (
    <div className="stack" style={{ gap: '0.25rem' }}>
      <p style={{ margin: 0 }}>
        Last request{measure.sentAt ? ` (${formatDateTime(measure.sentAt)})` : ''}:{' '}
        <strong>{REQUEST_STATUS_WORDS[measure.requestStatus] ?? 'status unknown'}</strong>
        {measure.records !== null ? `, ${measure.records} ${measure.records === 1 ? 'event' : 'events'} taken` : ''}.
      </p>
      {problems.length > 0 && (
        <ul style={{ margin: 0 }}>
          {problems.map((problem) => (
            <li key={`${problem.kind}-${problem.reason}`}>
              {problem.records} {problem.kind}: {words(problem.reason)}
            </li>
          ))}
        </ul>
      )}
      <p className="muted" style={{ margin: 0 }}>
        Request id <code>{measure.requestId}</code>
      </p>
    </div>
  );
}

/**
 * Match quality on a conversion's page: the share of events carrying each key its platform matches
 * by (last 24 hours, last 7 days), what would raise the low ones, and the platform's own figure.
 */
export default function MatchQualitySection({ orgId, id, platform }: { orgId: string; id: string; platform: string }) {
  const { data, isLoading, isFetching, error, refetch } = useMatchQualityQuery({ orgId, id });
  return (
    <section className="stack" aria-labelledby="quality-title" aria-busy={isFetching}>
      <div className="toolbar">
        <SectionTitle id="quality-title">Match quality</SectionTitle>
        <Button type="button" variant="secondary" className="button--small" busy={isFetching} onClick={() => void refetch()}>
          Reload figures
        </Button>
      </div>
      {isLoading ? (
        <Spinner label="Loading match quality" />
      ) : !data ? (
        <FailureAlert orgId={orgId} error={error} fallback="Could not load match quality." />
      ) : data.keys.length === 0 ? (
        <p className="muted" style={{ margin: 0 }}>
          Match quality applies to ad platforms, which match events to people; {platform} stores every event as it is.
        </p>
      ) : (
        <>
          <p className="muted" style={{ margin: 0 }}>
            The share of events that went to {platform} with each key it matches people by. The more events carry, the more conversions
            {` ${platform}`} can attribute to your ads.
          </p>
          {data.week.events === 0 ? (
            <div className="empty-state" data-testid="quality-empty">
              <p>No events in the last 7 days yet. Once events are sent, this shows the share carrying each key.</p>
            </div>
          ) : (
            <>
              <div className={styles.quality}>
                <table aria-label="Share of events carrying each match key">
                  <thead>
                    <tr>
                      <th scope="col">Match key</th>
                      <th scope="col">Last 24 h</th>
                      <th scope="col">Last 7 days</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.keys.map((key) => (
                      <tr key={key}>
                        <th scope="row">{KEY_LABELS[key]}</th>
                        <td>
                          <Share counts={data.day} matchKey={key} />
                        </td>
                        <td>
                          <Share counts={data.week} matchKey={key} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <h3 style={{ margin: 0, fontSize: '1rem' }}>What would raise it</h3>
              {data.advice.length === 0 ? (
                <p className="muted" style={{ margin: 0 }}>
                  Every key is carried by at least 90 % of events.
                </p>
              ) : (
                <ul style={{ margin: 0 }} data-testid="quality-advice">
                  {data.advice.map((advice) => (
                    <li key={advice.key}>{advice.text}</li>
                  ))}
                </ul>
              )}
            </>
          )}
          <h3 style={{ margin: 0, fontSize: '1rem' }}>What {platform} reports</h3>
          <PlatformFigure measure={data.platformMeasure} platform={platform} />
          {data.platformMeasureReadAt && (
            // Asked at most every few hours (each read spends the customer's API quota): Refresh shows the kept figure.
            <p className="muted" style={{ margin: 0 }} data-testid="platform-measure-read-at">
              Read from {platform} {formatDateTime(data.platformMeasureReadAt)}; asked again after a few hours.
            </p>
          )}
          {error && <FailureAlert orgId={orgId} error={error} fallback="Could not refresh match quality." />}
        </>
      )}
    </section>
  );
}
