import Link from 'next/link';
import { useId, useMemo, type ReactNode } from 'react';
import styles from '@/components/connections/connections.module.css';
import { subscriptionPath } from '@/components/connections/paths';
import { firstError } from '@/components/ui/failures';
import { browserTimeZone, offsetOf, timeZones } from '@/components/connections/validation';
import ComboboxField from '@/components/ui/ComboboxField';
import TextField from '@/components/ui/TextField';
import { entitlementsOf } from '@/lib/shared/billing/entitlements';
import {
  SCHEDULE_LABELS,
  SCHEDULES,
  schedulesAllowed,
  type Schedule,
  type ScheduleEvery,
  plansWith,
} from '@/lib/shared/connections/connection';
import { AD_LEVEL_LABELS, AD_LEVELS, type AdLevel } from '@/lib/shared/connections/rows';
import { DEFAULT_LOOKBACK_DAYS, PLATFORM_LABELS, type AdAccount, type AdPlatform } from '@/lib/shared/integrations/platforms';
import FieldError from '@/components/ui/FieldError';

/**
 * The fields the create form and the configuration page's edit form share: accounts, level, schedule
 * (with what the plan includes) and the lookback.
 */

export const DEFAULT_SCHEDULE = (): Schedule => ({ every: 'daily', at: '06:00', timeZone: browserTimeZone() });

/** Checkboxes for the ad accounts of a source; the error under the group. */
export function AccountChecklist({
  accounts,
  picked,
  onChange,
  error,
  allowance,
}: {
  accounts: AdAccount[];
  picked: string[];
  onChange: (ids: string[]) => void;
  error?: string;
  allowance?: ReactNode;
}) {
  const errorId = useId();
  const toggle = (id: string) => onChange(picked.includes(id) ? picked.filter((other) => other !== id) : [...picked, id]);
  return (
    <fieldset
      className={styles.fieldset}
      style={{ background: 'none' }}
      aria-describedby={error ? errorId : undefined}
      aria-invalid={Boolean(error) || undefined}
    >
      <legend className={styles.legend}>Ad accounts</legend>
      {allowance}
      <ul className="checklist">
        {accounts.map((account) => (
          <li key={account.id}>
            <label>
              <input type="checkbox" checked={picked.includes(account.id)} onChange={() => toggle(account.id)} />
              <span>
                {account.name || account.id} <span className="muted">· {account.id}</span>
                {account.currency && <span className="muted"> · {account.currency}</span>}
              </span>
            </label>
          </li>
        ))}
      </ul>
      <FieldError id={errorId} error={error} />
    </fieldset>
  );
}

export function LevelField({
  id,
  value,
  onChange,
  error,
}: {
  id: string;
  value: AdLevel;
  onChange: (level: AdLevel) => void;
  error?: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Level of detail</label>
      <select
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value as AdLevel)}
        aria-invalid={Boolean(error)}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
      >
        {AD_LEVELS.map((level) => (
          <option key={level} value={level}>
            {AD_LEVEL_LABELS[level]}
          </option>
        ))}
      </select>
      <span id={`${id}-hint`} className={`muted ${styles.hint}`}>
        One row per {AD_LEVEL_LABELS[value].toLowerCase()} and day. Finer levels write more rows.
      </span>
      <FieldError id={`${id}-error`} error={error} />
    </div>
  );
}

/**
 * How often it runs: schedules the plan does not include are disabled and say which plan has them;
 * daily runs take a time; the time zone, the browser's at first, is picked from the IANA zones by typing
 * a city or region.
 */
export function ScheduleFields({
  idPrefix,
  orgId,
  plan,
  value,
  onChange,
  errors,
}: {
  idPrefix: string;
  orgId: string;
  plan: unknown;
  value: Schedule;
  onChange: (schedule: Schedule) => void;
  errors: Record<string, string[]>;
}) {
  const entitlements = entitlementsOf(plan);
  const allowed = schedulesAllowed(entitlements.syncFrequency);
  const locked = SCHEDULES.filter((every) => !allowed.includes(every));
  const zones = useMemo(() => timeZones(), []);
  const everyId = `${idPrefix}-every`;
  const everyError = firstError(errors, 'schedule.every');
  const update = (changes: Partial<Schedule>) => onChange({ ...value, ...changes });
  return (
    <>
      <div className="field">
        <label htmlFor={everyId}>Schedule</label>
        <select
          id={everyId}
          value={value.every}
          onChange={(event) => update({ every: event.target.value as ScheduleEvery })}
          aria-invalid={Boolean(everyError)}
          aria-describedby={
            [locked.length ? `${everyId}-plans` : '', everyError ? `${everyId}-error` : ''].filter(Boolean).join(' ') || undefined
          }
        >
          {SCHEDULES.map((every) => (
            <option key={every} value={every} disabled={!allowed.includes(every)}>
              {SCHEDULE_LABELS[every]}
              {allowed.includes(every) ? '' : ` (${plansWith(every)} plan)`}
            </option>
          ))}
        </select>
        {locked.length > 0 && (
          <span id={`${everyId}-plans`} className={`muted ${styles.hint}`}>
            Your {entitlements.name} plan syncs{' '}
            {entitlements.syncFrequency === 'daily' ? 'daily' : `up to ${SCHEDULE_LABELS[allowed[0]!].toLowerCase()}`}.{' '}
            {locked.map((every) => `${SCHEDULE_LABELS[every]} is included in ${plansWith(every)}.`).join(' ')}{' '}
            <Link href={subscriptionPath(orgId)}>See the plans</Link>
          </span>
        )}
        <FieldError id={`${everyId}-error`} error={everyError} />
      </div>
      <div className={styles.row}>
        {value.every === 'daily' && (
          <TextField
            id={`${idPrefix}-at`}
            label="Time of day"
            type="time"
            value={value.at}
            onChange={(event) => update({ at: event.target.value })}
            required
            error={firstError(errors, 'schedule.at')}
          />
        )}
        <ComboboxField
          id={`${idPrefix}-zone`}
          label="Time zone"
          value={value.timeZone}
          options={zones}
          describe={offsetOf}
          noun="time zone"
          placeholder="Type a city or region: Paris, America…"
          onChange={(timeZone) => update({ timeZone })}
          required
          error={firstError(errors, 'schedule.timeZone')}
        />
      </div>
    </>
  );
}

/** The days each run re-reads, with why platforms restate them. */
export function LookbackField({
  id,
  platform,
  value,
  onChange,
  error,
}: {
  id: string;
  platform: AdPlatform | null;
  value: string;
  onChange: (text: string) => void;
  error?: string;
}) {
  const fallback = platform ? DEFAULT_LOOKBACK_DAYS[platform] : null;
  return (
    <div className="field">
      <label htmlFor={id}>Lookback (days)</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={1}
        max={90}
        step={1}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={Boolean(error)}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        style={{ maxWidth: '10rem' }}
      />
      <span id={`${id}-hint`} className={`muted ${styles.hint}`}>
        Platforms restate recent days — conversions are attributed late and invalid clicks are refunded — so every run reads the last days
        again and replaces them.
        {platform && fallback ? ` ${PLATFORM_LABELS[platform]} settles within about ${fallback} days, the default.` : ''}
      </span>
      <FieldError id={`${id}-error`} error={error} />
    </div>
  );
}
