import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { AccountChecklist, LevelField, LookbackField, ScheduleFields } from '@/components/connections/ConnectionFields';
import styles from '@/components/connections/connections.module.css';
import { lookbackOf, updateErrors, useSchemas } from '@/components/connections/validation';
import Button from '@/components/ui/Button';
import { FailureAlert, fieldErrorsOf, firstError } from '@/components/ui/failures';
import NameField from '@/components/ui/NameField';
import type { Connection, Schedule } from '@/lib/shared/connections/connection';
import type { UpdateConnectionInput } from '@/lib/shared/schemas/connections';
import type { AdLevel } from '@/lib/shared/connections/rows';
import { configurationPathOf } from '@/lib/shared/integrations/platforms';
import { useUpdateConnectionMutation } from '@/store/connectionsApi';
import { useIntegrationsQuery } from '@/store/integrationsApi';

/** A connection's settings as a form: name, accounts, level, schedule, lookback; checked, then saved. */
export default function EditConnectionForm({
  orgId,
  connection,
  plan,
  onDone,
}: {
  orgId: string;
  connection: Connection;
  plan: unknown;
  onDone: (saved: boolean) => void;
}) {
  useSchemas();
  const { data: sources } = useIntegrationsQuery({ orgId, kind: 'source' });
  const source = sources?.find((candidate) => candidate.id === connection.source.sourceId);
  // The source's accounts, plus any the connection still has that the source no longer lists.
  const accounts = [
    ...(source?.accounts ?? []),
    ...connection.source.accounts.filter((account) => !source?.accounts.some((other) => other.id === account.id)),
  ];
  const [name, setName] = useState(connection.name);
  const [accountIds, setAccountIds] = useState(connection.source.accounts.map((account) => account.id));
  const [level, setLevel] = useState<AdLevel>(connection.level);
  const [schedule, setSchedule] = useState<Schedule>(connection.schedule);
  const [lookback, setLookback] = useState(String(connection.lookbackDays));
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [save, saving] = useUpdateConnectionMutation();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const changes: UpdateConnectionInput = { name, accountIds, level, schedule, lookbackDays: lookbackOf(lookback) };
    const found = updateErrors(changes);
    if (changes.lookbackDays === undefined) found.lookbackDays = ['A number of days'];
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const result = await save({ orgId, id: connection.id, changes });
    if ('error' in result) {
      setErrors(fieldErrorsOf(result.error));
      return;
    }
    onDone(true);
  }

  const failure = saving.error && Object.keys(fieldErrorsOf(saving.error)).length === 0 ? saving.error : null;
  return (
    <form className="stack card" onSubmit={submit} noValidate aria-label="Edit the connection">
      <NameField id="edit-name" value={name} onChange={setName} errors={errors} />
      <AccountChecklist accounts={accounts} picked={accountIds} onChange={setAccountIds} error={firstError(errors, 'accountIds')} />
      {source && (
        <p className={`muted ${styles.hint}`}>
          Another account? <Link href={configurationPathOf(orgId, 'source', source.id, source.platform)}>Pick it in the source</Link> first.
        </p>
      )}
      <LevelField id="edit-level" value={level} onChange={setLevel} error={firstError(errors, 'level')} />
      <ScheduleFields idPrefix="edit-schedule" orgId={orgId} plan={plan} value={schedule} onChange={setSchedule} errors={errors} />
      <LookbackField
        id="edit-lookback"
        platform={connection.source.platform}
        value={lookback}
        onChange={setLookback}
        error={firstError(errors, 'lookbackDays')}
      />
      {failure && <FailureAlert orgId={orgId} error={failure} fallback="Could not save the connection." />}
      <div className="actions" style={{ justifyContent: 'flex-start' }}>
        <Button type="submit" busy={saving.isLoading}>
          Save
        </Button>
        <Button type="button" variant="secondary" onClick={() => onDone(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
