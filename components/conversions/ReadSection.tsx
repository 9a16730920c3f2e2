import { useState } from 'react';
import styles from '@/components/conversions/conversions.module.css';
import { RelativeTime } from '@/components/ui/time';
import { FailureAlert, formFailureOf, useCheckedSubmit } from '@/components/ui/failures';
import { updateErrors, useSchemas } from '@/components/conversions/validation';
import { bytesInWords, warehouseDraftOf } from '@/components/conversions/warehouseDefaults';
import { warehouseSourceOf } from '@/components/conversions/warehouseDraft';
import WarehouseSourceFields from '@/components/conversions/WarehouseSourceFields';
import Button from '@/components/ui/Button';
import SaveCancel from '@/components/ui/SaveCancel';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import Spinner from '@/components/ui/Spinner';
import { scheduleInWords } from '@/lib/shared/connections/connection';
import type { Conversion, ReadState, WarehouseSource } from '@/lib/shared/conversions/conversion';
import type { UpdateConversionInput } from '@/lib/shared/schemas/conversions';
import { PLATFORM_LABELS, type Integration } from '@/lib/shared/integrations/platforms';
import { useReadNowMutation, useUpdateConversionMutation } from '@/store/conversionsApi';
import { useIntegrationsQuery } from '@/store/integrationsApi';

/**
 * A BigQuery or Mixpanel conversion's reads on its configuration page: where the last one got to
 * (rows, events, rows not sent, bytes billed, the cursor), its error in BigQuery's or Mixpanel's
 * words, when the next one runs, **Read now**, and editing what it reads (with the preview).
 */

type WarehouseConversion = Conversion & { source: WarehouseSource };

/** Where the next read starts, in words. */
function cursorInWords(source: WarehouseSource, cursor: string | null): string {
  if (source.type === 'mixpanel')
    return cursor
      ? `events from ${new Date(Number(cursor) * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC on`
      : 'the last 7 days';
  return cursor ? `rows with ${source.cursorColumn} ≥ ${cursor}` : 'every row (a first read)';
}

function ReadSummary({ read, source, now }: { read: ReadState; source: WarehouseSource; now: number }) {
  const soon = read.nextReadAt && new Date(read.nextReadAt).getTime() - now < 60_000;
  return (
    <dl className={styles.review}>
      <dt>Schedule</dt>
      <dd>{scheduleInWords(source.schedule)}</dd>
      <dt>Last read</dt>
      <dd>
        {read.lastReadAt ? <RelativeTime iso={read.lastReadAt} now={now} /> : 'Not yet'}
        {read.last &&
          ` · ${read.last.rows} ${read.last.rows === 1 ? 'row' : 'rows'} read, ${read.last.published} became events, ${read.last.notSent} made none (see the log)` +
            (read.last.bytesBilled !== null ? `, ${bytesInWords(read.last.bytesBilled)} billed` : '')}
      </dd>
      <dt>Next read</dt>
      <dd>
        {read.reading ? 'Reading now' : read.nextReadAt ? soon ? 'Within a minute' : <RelativeTime iso={read.nextReadAt} now={now} /> : '—'}
      </dd>
      <dt>Reads next</dt>
      <dd>{cursorInWords(source, read.cursor)}</dd>
    </dl>
  );
}

function EditSource({
  orgId,
  plan,
  conversion,
  destination,
  onDone,
}: {
  orgId: string;
  plan: unknown;
  conversion: WarehouseConversion;
  destination: Integration;
  onDone: (saved: boolean) => void;
}) {
  useSchemas();
  const [draft, setDraft] = useState(() => warehouseDraftOf(conversion.source));
  const [save, saving] = useUpdateConversionMutation();
  const { errors, setErrors, submit } = useCheckedSubmit(
    updateErrors,
    (changes: UpdateConversionInput) => save({ orgId, id: conversion.id, changes }),
    () => onDone(true),
  );
  const failure = formFailureOf(saving.error);
  return (
    <form
      className="stack card"
      onSubmit={(event) => void submit(event, { source: warehouseSourceOf(draft) })}
      noValidate
      aria-label="Edit what it reads"
    >
      <p className="muted" style={{ margin: 0 }}>
        Changing the table, the query, the cursor column or the events starts the reads over from the first row. Rows read again keep their
        event ids, so the ad platform does not count them twice.
      </p>
      <WarehouseSourceFields
        orgId={orgId}
        plan={plan}
        destination={destination}
        draft={draft}
        onChange={setDraft}
        errors={errors}
        onErrors={setErrors}
        sendsTo={conversion.destination.destinationId}
      />
      {failure && <FailureAlert orgId={orgId} error={failure} fallback="Could not save what it reads." />}
      <SaveCancel busy={saving.isLoading} onCancel={() => onDone(false)} />
    </form>
  );
}

export default function ReadSection({
  orgId,
  plan,
  conversion,
  canEdit,
  now,
}: {
  orgId: string;
  plan: unknown;
  conversion: WarehouseConversion;
  canEdit: boolean;
  now: number;
}) {
  const [readNow, reading] = useReadNowMutation();
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  const { data: destinations } = useIntegrationsQuery({ orgId, kind: 'destination' });
  const destination = destinations?.find((candidate) => candidate.id === conversion.source.destinationId);
  const read = conversion.read ?? { lastReadAt: null, nextReadAt: null, cursor: null, last: null, error: null, reading: false };
  const paused = conversion.status === 'paused';

  async function requestRead() {
    setNotice(null);
    const result = await readNow({ orgId, id: conversion.id });
    if (!('error' in result)) setNotice({ ok: true, text: 'A read starts within a minute. This page shows how it went.' });
  }

  return (
    <section className="stack" aria-labelledby="reads-title">
      <div className="toolbar">
        <h2 id="reads-title" style={{ margin: 0, fontSize: '1.1rem' }}>
          Reads from {PLATFORM_LABELS[conversion.source.type]}
        </h2>
        {canEdit && (
          <div className="actions">
            <Button
              type="button"
              className="button--small"
              busy={reading.isLoading}
              disabled={paused || read.reading}
              onClick={() => void requestRead()}
            >
              Read now
            </Button>
            {!editing && (
              <Button type="button" variant="secondary" className="button--small" disabled={!destination} onClick={() => setEditing(true)}>
                Edit what it reads
              </Button>
            )}
          </div>
        )}
      </div>
      {read.reading && (
        <p role="status" className="muted" style={{ margin: 0 }}>
          <Spinner /> Reading now…
        </p>
      )}
      {paused && canEdit && (
        <p className="muted" style={{ margin: 0 }}>
          Paused: nothing is read until you resume it.
        </p>
      )}
      {read.error && (
        <div role="alert" className="alert alert--error">
          <strong>The last read failed.</strong> {read.error}
        </div>
      )}
      <Notice notice={notice} />
      {reading.error && <FailureAlert orgId={orgId} error={reading.error} fallback="Could not start a read." />}
      <ReadSummary read={read} source={conversion.source} now={now} />
      {editing && destination && (
        <EditSource
          orgId={orgId}
          plan={plan}
          conversion={conversion}
          destination={destination}
          onDone={(saved) => {
            setEditing(false);
            if (saved) setNotice({ ok: true, text: 'Saved. The next read uses it.' });
          }}
        />
      )}
    </section>
  );
}
