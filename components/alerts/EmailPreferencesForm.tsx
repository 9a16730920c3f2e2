import { useState } from 'react';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import { ALERT_KIND_LABELS, ALERT_KINDS, type AlertKindName } from '@/lib/shared/alerts';
import { useAlertPreferencesQuery, useSaveAlertPreferencesMutation } from '@/store/alertsApi';

/** The signed-in person's alert emails in this organization, one switch per kind, saved as it is ticked. */
export default function EmailPreferencesForm({ orgId }: { orgId: string }) {
  const { data, isLoading, error } = useAlertPreferencesQuery(orgId);
  const [save, saving] = useSaveAlertPreferencesMutation();
  const [saved, setSaved] = useState<AlertKindName | null>(null);
  // What the person ticked shows at once; a failed save puts the box back.
  const [ticked, setTicked] = useState<Partial<Record<AlertKindName, boolean>>>({});

  async function toggle(kind: AlertKindName, on: boolean) {
    setSaved(null);
    setTicked((current) => ({ ...current, [kind]: on }));
    const result = await save({ orgId, email: { [kind]: on } });
    if ('error' in result) setTicked((current) => ({ ...current, [kind]: !on }));
    else setSaved(kind);
  }

  return (
    <section className="section card" aria-labelledby="alert-emails-title">
      <h2 id="alert-emails-title">Email me about</h2>
      <p className="muted">
        Alert emails go to the organization&apos;s owners and admins, and to whoever created the object. One email when something stops, one
        when it works again; many at once come as one digest. These switches are yours alone.
      </p>
      {isLoading ? (
        <Spinner label="Loading your email settings" />
      ) : error || !data ? (
        <Alert>{messageOf(error, 'Your email settings could not be loaded.')}</Alert>
      ) : (
        <fieldset style={{ border: 'none', padding: 0, margin: 0 }}>
          <legend className="sr-only">Alert emails</legend>
          <ul className="checklist">
            {ALERT_KINDS.map((kind) => (
              <li key={kind}>
                <label>
                  <input
                    type="checkbox"
                    checked={ticked[kind] ?? data[kind]}
                    onChange={(event) => void toggle(kind, event.target.checked)}
                  />
                  <span>{ALERT_KIND_LABELS[kind]}</span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
      )}
      {saving.error && <Alert>{messageOf(saving.error, 'Could not save.')}</Alert>}
      {saved && (
        <div role="status" className="alert alert--success">
          Saved.
        </div>
      )}
    </section>
  );
}
